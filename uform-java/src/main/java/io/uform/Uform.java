package io.uform;

import java.util.List;

/**
 * Entry points that describe the machine: the GPUs this process can drive and the hardware
 * capabilities compiled into this build and available here.
 */
public final class Uform {

	private Uform() {
	}

	/**
	 * Lists every GPU this process can drive, NVIDIA devices first, then AMD, so that a device's
	 * position is the ordinal {@link ExecutorForVramConfig#devices()} names it by. A machine without
	 * GPUs (or without drivers) lists none.
	 * @return the devices, possibly empty
	 */
	public static List<GpuDevice> gpuDevices() {
		return List.of();
	}

	/**
	 * The hardware capabilities this build can drive, comma-separated.
	 * @return capability tokens
	 */
	public static String capabilitiesCompiled() {
		return String.join(",", io.uform.host.CpuClasses.known());
	}

	/**
	 * The hardware capabilities this machine offers now, comma-separated; a subset of
	 * {@link #capabilitiesCompiled()}.
	 * @return capability tokens
	 */
	public static String capabilitiesAvailable() {
		return String.join(",", io.uform.host.CpuClasses.system().available());
	}
}
