package io.uform.gpu;

/**
 * A live reading of one GPU, as its vendor reports it now: what {@code io.uform.GpuReadings} shows
 * users, field for field, which {@code io.uform} makes from it. Each field is {@code null} where the
 * vendor does not report it.
 * @param memoryUsedBytes device memory in use, bytes
 * @param memoryTotalBytes device memory, bytes
 * @param utilizationPercent share of the last sample period the GPU was busy, 0-100
 * @param powerWatts board power draw, watts
 * @param temperatureCelsius GPU temperature, degrees Celsius
 */
public record Readings(Long memoryUsedBytes, Long memoryTotalBytes, Integer utilizationPercent, Double powerWatts,
		Double temperatureCelsius) {
}
