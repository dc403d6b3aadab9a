package io.uform;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One GPU this process can drive, as {@link Uform#gpuDevices()} lists it. Its position in that list
 * is the ordinal that {@link ExecutorForVramConfig#devices()} names it by.
 *
 * <p>Mirrors {@code uform_gpu_device_t}, plus the {@code uuid} and {@code pciBusId} the vendors give,
 * so a device can be matched with {@code nvidia-smi}, DCGM or {@code rocm-smi}.
 *
 * @param vendor the vendor whose runtime drives the device
 * @param vendorOrdinal the device's ordinal in its vendor's runtime, as {@code nvidia-smi} or
 *        {@code rocm-smi} lists it (ignoring {@code CUDA_VISIBLE_DEVICES} and
 *        {@code ROCR_VISIBLE_DEVICES}, as those tools do); {@code -1} where it cannot be known, that
 *        is an NVIDIA device on a machine whose NVML library is missing or failing
 * @param gpuClass the class whose kernels run on it, like {@code nvidia-hopper}; {@code null} when
 *        uform has no class for this device
 * @param computeUnits streaming multiprocessors (NVIDIA) or compute units (AMD)
 * @param memoryBytes device memory in bytes
 * @param name the vendor's own name for the device
 * @param uuid the vendor's unique id (NVIDIA {@code GPU-…} as NVML spells it, AMD {@code GPU-} and
 *        16 upper-case hex digits as ROCm spells it); {@code null} where the vendor gives none
 * @param pciBusId {@code domain:bus:device.function} in lower-case hex with a 4-digit domain, as Linux
 *        names it under {@code /sys/bus/pci/devices}; {@code null} where unknown
 */
public record GpuDevice(GpuVendor vendor, int vendorOrdinal, String gpuClass, int computeUnits,
		long memoryBytes, String name, String uuid, String pciBusId) {

	/** Checks the fields every device has. */
	public GpuDevice {
		Objects.requireNonNull(vendor, "vendor");
		Objects.requireNonNull(name, "name");
	}

	/**
	 * Devices as uform's messages list them, by their position in {@link Uform#gpuDevices()}, the
	 * ordinal a config's {@code devices} names: {@code [0 = NVIDIA H200, 1 = NVIDIA H200]}. Public so
	 * that reports built outside uform (Spring Boot's failure analysis) list them the same way.
	 * @param devices the devices, in {@link Uform#gpuDevices()} order
	 * @return the list as text
	 */
	public static String listed(List<GpuDevice> devices) {
		List<String> names = new ArrayList<>();
		for (int ordinal = 0; ordinal < devices.size(); ordinal++) {
			names.add(ordinal + " = " + devices.get(ordinal).name());
		}
		return names.toString();
	}
}
