package io.uform.gpu;

import java.util.Objects;
import java.util.function.Supplier;

import io.uform.GpuDevice;
import io.uform.GpuReadings;

/**
 * One discovered device and the way to read it live, as a vendor discovery hands it to
 * {@link GpuDiscovery}. The reader knows the vendor's own handle (NVML index, amdgpu sysfs
 * directory) so that {@link GpuDevice} can stay a plain description.
 *
 * @param device the description
 * @param readings reads the device now; never throws, reports gaps as {@code null} fields
 */
record FoundGpu(GpuDevice device, Supplier<GpuReadings> readings) {

	FoundGpu {
		Objects.requireNonNull(device, "device");
		Objects.requireNonNull(readings, "readings");
	}
}
