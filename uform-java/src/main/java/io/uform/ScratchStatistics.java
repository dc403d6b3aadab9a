package io.uform;

/**
 * The activation scratch of one device of a VRAM executor, for observers (metrics, the actuator).
 *
 * @param device the device's position among the executor's devices
 * @param ordinal the device's position in {@link Uform#gpuDevices()}
 * @param reservedBytes device memory the scratch holds from the driver
 * @param inUseBytes bytes handed out to reservations now
 * @param highWaterBytes the most bytes handed out at once so far
 * @param limitBytes the executor's {@code scratchLimit}, or {@code null} when scratch may grow until
 *        the device is full
 */
public record ScratchStatistics(int device, int ordinal, long reservedBytes, long inUseBytes, long highWaterBytes,
		Long limitBytes) {
}
