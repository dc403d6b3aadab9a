package io.uform.gpu;

/**
 * A device's driver says the device is gone: NVML's {@code NVML_ERROR_GPU_IS_LOST}, or an amdgpu
 * device directory that was there at discovery and is not any more. Thrown by a device's live
 * readings, so that {@link GpuDiscovery#readings(int)} reports it as a failure naming the device,
 * rather than as readings that are merely missing (which a device without sensors also gives).
 */
final class DeviceLostException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Says what the driver reported.
	 * @param why what the driver said, for the message
	 */
	DeviceLostException(String why) {
		super(why);
	}
}
