package io.uform;

/**
 * The runtime that drives a GPU, numbered as uform's {@code uform_gpu_vendor_t} numbers them, so
 * that {@link #code()} can cross any boundary that speaks the C ABI.
 */
public enum GpuVendor {
	/** A device whose vendor uform does not know. */
	UNKNOWN(0),
	/** Driven by CUDA ({@code libcuda.so.1}), described by NVML. */
	NVIDIA(1),
	/** Driven by ROCm/HIP; discovered from the amdkfd topology in sysfs. */
	AMD(2),
	/** Driven by Metal. */
	APPLE(3),
	/**
	 * Host memory presenting itself as a GPU, for development and tests on machines without one:
	 * uform-java only, not part of uform's C ABI (no {@code uform_gpu_vendor_t} value is 255), so the
	 * code never crosses that boundary. Never chosen silently: these devices exist only when a process
	 * opts in with the system property {@code uform.devices.simulated} or the environment variable
	 * {@code UFORM_DEVICES_SIMULATED} (a device count), and are listed after every real GPU. They hold
	 * memory and copy bytes but run no kernels; see {@link io.uform.gpu.SimulatedRuntime}.
	 */
	SIMULATED(255);

	private final int code;

	GpuVendor(int code) {
		this.code = code;
	}

	/**
	 * The number uform's C ABI uses for this vendor; {@link #SIMULATED} has 255, which the C ABI does
	 * not know.
	 * @return 0 to 3, or 255
	 */
	public int code() {
		return this.code;
	}

	/**
	 * Whether this version runs VRAM executors on this vendor's devices: NVIDIA GPUs (CUDA) and
	 * simulated devices. AMD GPUs are discovered and listed, but a HIP binding is not built yet.
	 * @return {@code true} for {@link #NVIDIA} and {@link #SIMULATED}
	 */
	public boolean runsVramExecutors() {
		return this == NVIDIA || this == SIMULATED;
	}

	/**
	 * The vendor with the given C ABI number.
	 * @param code a {@code uform_gpu_vendor_t} value
	 * @return the vendor, or {@link #UNKNOWN} for a number uform does not know
	 */
	public static GpuVendor ofCode(int code) {
		for (GpuVendor vendor : values()) {
			if (vendor.code == code) {
				return vendor;
			}
		}
		return UNKNOWN;
	}
}
