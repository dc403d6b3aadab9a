package io.uform.gpu;

/**
 * The narrow compute interface a VRAM executor drives a vendor's devices through: one
 * implementation per backend ({@link CudaRuntime} over the CUDA driver API, {@link SimulatedRuntime}
 * over host memory), so that the executor holds all the logic (device choice, scratch, forks,
 * deferred calls, lifecycle) and tests drive it on simulated devices or a recording fake.
 *
 * <p>Devices are named by the backend's own ordinal: the CUDA ordinal for NVIDIA devices (after
 * {@code CUDA_VISIBLE_DEVICES}), the simulated device's index for simulated ones.
 */
public interface GpuRuntime {

	/**
	 * The backend's name, as messages and statistics spell it.
	 * @return {@code cuda} or {@code simulated}
	 */
	String name();

	/**
	 * Opens a device for compute: retains its primary context (CUDA) or its memory (simulated). The
	 * caller closes it with {@link DeviceContext#close()} exactly once.
	 * @param ordinal the backend's ordinal of the device
	 * @return the open device
	 * @throws RuntimeException {@code NO_DEVICE} when no device has that ordinal,
	 *         {@code DEVICE_ERROR} naming the driver call and status when the driver refuses
	 */
	DeviceContext open(int ordinal);
}
