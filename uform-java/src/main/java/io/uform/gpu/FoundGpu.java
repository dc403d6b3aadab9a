package io.uform.gpu;

import java.util.Objects;
import java.util.function.Supplier;


/**
 * One discovered device and the way to read it live, as a vendor discovery hands it to
 * {@link GpuDiscovery}. The reader knows the vendor's own handle (NVML index, amdgpu sysfs
 * directory) so that {@link DeviceFacts} can stay a plain description.
 *
 * @param device the description
 * @param readings reads the device now; never throws, reports gaps as {@code null} fields
 */
record FoundGpu(DeviceFacts device, Supplier<Readings> readings) {

	FoundGpu {
		Objects.requireNonNull(device, "device");
		Objects.requireNonNull(readings, "readings");
	}
}
