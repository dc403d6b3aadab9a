package io.uform.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Live readings of an AMD GPU from its amdgpu sysfs directory ({@code device/} of its render node):
 * {@code mem_info_vram_used}, {@code mem_info_vram_total}, {@code gpu_busy_percent}, and from the
 * first {@code hwmon/hwmonN}: {@code power1_average} (or {@code power1_input}) in microwatts and
 * {@code temp1_input} (edge sensor) in millidegrees Celsius. A file that is missing or unreadable
 * leaves its field {@code null}; the directory itself gone means the device is gone.
 */
final class AmdReadings {

	private AmdReadings() {
	}

	/**
	 * Reads a device now.
	 * @param amdgpu the device's amdgpu directory, {@code null} when discovery found none
	 * @param discoveredTotal total memory from the KFD memory banks, used when amdgpu gives none
	 * @return the readings
	 * @throws DeviceLostException when the directory was there at discovery and is gone now
	 */
	static Readings read(Path amdgpu, long discoveredTotal) {
		if (amdgpu == null) {
			return new Readings(null, discoveredTotal, null, null, null);
		}
		if (!Files.isDirectory(amdgpu)) {
			throw new DeviceLostException(amdgpu + " is gone: amdgpu removed the device (unplugged, unbound or failed; "
					+ "look for amdgpu errors in the kernel log)");
		}
		Long used = SysfsFiles.number(amdgpu.resolve("mem_info_vram_used"));
		Long total = SysfsFiles.number(amdgpu.resolve("mem_info_vram_total"));
		Long busy = SysfsFiles.number(amdgpu.resolve("gpu_busy_percent"));
		Double watts = null;
		Double celsius = null;
		Optional<Path> hwmon = hwmon(amdgpu.resolve("hwmon"));
		if (hwmon.isPresent()) {
			Long microwatts = SysfsFiles.number(hwmon.get().resolve("power1_average"));
			if (microwatts == null) {
				microwatts = SysfsFiles.number(hwmon.get().resolve("power1_input"));
			}
			watts = microwatts == null ? null : microwatts / 1_000_000.0;
			Long millidegrees = SysfsFiles.number(hwmon.get().resolve("temp1_input"));
			celsius = millidegrees == null ? null : millidegrees / 1000.0;
		}
		return new Readings(used, total != null ? total : discoveredTotal,
				busy == null ? null : busy.intValue(), watts, celsius);
	}

	private static Optional<Path> hwmon(Path directory) {
		if (!Files.isDirectory(directory)) {
			return Optional.empty();
		}
		try (Stream<Path> entries = Files.list(directory)) {
			return entries.filter((entry) -> entry.getFileName().toString().startsWith("hwmon")).sorted().findFirst();
		}
		catch (IOException ex) {
			return Optional.empty();
		}
	}
}
