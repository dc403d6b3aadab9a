package io.uform;

/**
 * A live reading of one GPU, for metrics: what the vendor reports now. Each field is {@code null}
 * where the vendor does not report it on this device or driver (NVML without power sensors, an
 * AMD card without {@code gpu_busy_percent}, NVIDIA without NVML); uform never fills a gap with an
 * estimate.
 *
 * @param memoryUsedBytes device memory in use, bytes (NVML {@code used}, which includes memory the
 *        driver reserves; amdgpu {@code mem_info_vram_used})
 * @param memoryTotalBytes device memory, bytes (NVML {@code total}, amdgpu {@code mem_info_vram_total},
 *        or the total discovery read where no live source exists)
 * @param utilizationPercent share of the last sample period the GPU was busy, 0-100
 * @param powerWatts board power draw, watts (NVML: a 1 s average on Ampere and newer)
 * @param temperatureCelsius GPU die (NVIDIA) or edge (amdgpu {@code temp1}) temperature, degrees Celsius
 */
public record GpuReadings(Long memoryUsedBytes, Long memoryTotalBytes, Integer utilizationPercent,
		Double powerWatts, Double temperatureCelsius) {

	/** A reading with nothing reported. */
	public static final GpuReadings NONE = new GpuReadings(null, null, null, null, null);

	/**
	 * Whether the vendor reported anything at all.
	 * @return {@code true} when at least one field is set
	 */
	public boolean any() {
		return this.memoryUsedBytes != null || this.memoryTotalBytes != null || this.utilizationPercent != null
				|| this.powerWatts != null || this.temperatureCelsius != null;
	}
}
