package io.uform;

import java.util.List;

/**
 * Which GPUs a VRAM executor drives, on which streams, with how much activation scratch. Passed to
 * {@link Executor#forVram(ExecutorForVramConfig)}.
 *
 * <p>Every field is optional ({@code null} = absent, derived when the executor is made).
 *
 * @param devices device ordinals, positions in {@link Uform#gpuDevices()}; absent takes one free device
 * @param gpuClass the GPU class every device dispatches as, like {@code nvidia-hopper}; absent
 *        derives the devices' own
 * @param memoryDomains NUMA node ids whose cores the host threads take; absent takes the nodes nearest
 *        the devices (their PCI {@code numa_node} in sysfs), or every node where the system does not say
 * @param cpuClass the CPU class the host decoders dispatch as; absent derives the CPU's own
 * @param streams borrowed CUDA stream addresses ({@code CUstream}), one per device in
 *        {@code devices} order; absent creates its own
 * @param scratchLimit ceiling on scratch bytes per device; absent lets scratch grow as batches ask
 * @param deferredLimit deferred calls tracked at once; absent takes
 *        {@link ExecutorForRamConfig#DEFAULT_DEFERRED_LIMIT}
 */
public record ExecutorForVramConfig(List<Integer> devices, String gpuClass, List<Integer> memoryDomains,
		String cpuClass, List<Long> streams, Long scratchLimit, Integer deferredLimit) {

	/** Copies the list fields so the config stays immutable. */
	public ExecutorForVramConfig {
		devices = ConfigLists.copy(devices);
		memoryDomains = ConfigLists.copy(memoryDomains);
		streams = ConfigLists.copy(streams);
	}

	/**
	 * A config with every field absent.
	 * @return the all-defaults config
	 */
	public static ExecutorForVramConfig defaults() {
		return new ExecutorForVramConfig(null, null, null, null, null, null, null);
	}

	/**
	 * This config with other devices.
	 * @param devices ordinals in {@link Uform#gpuDevices()}, or {@code null} for one free device
	 * @return a new config
	 */
	public ExecutorForVramConfig withDevices(List<Integer> devices) {
		return new ExecutorForVramConfig(devices, this.gpuClass, this.memoryDomains, this.cpuClass,
				this.streams, this.scratchLimit, this.deferredLimit);
	}

	/**
	 * This config with another GPU class.
	 * @param gpuClass a class like {@code nvidia-hopper}, or {@code null} for the devices' own
	 * @return a new config
	 */
	public ExecutorForVramConfig withGpuClass(String gpuClass) {
		return new ExecutorForVramConfig(this.devices, gpuClass, this.memoryDomains, this.cpuClass,
				this.streams, this.scratchLimit, this.deferredLimit);
	}

	/**
	 * This config with other memory domains for its host threads.
	 * @param memoryDomains NUMA node ids, or {@code null} for the nodes nearest the devices
	 * @return a new config
	 */
	public ExecutorForVramConfig withMemoryDomains(List<Integer> memoryDomains) {
		return new ExecutorForVramConfig(this.devices, this.gpuClass, memoryDomains, this.cpuClass,
				this.streams, this.scratchLimit, this.deferredLimit);
	}

	/**
	 * This config with another CPU class for its host threads.
	 * @param cpuClass a class like {@code intel-haswell}, or {@code null} for the CPU's best
	 * @return a new config
	 */
	public ExecutorForVramConfig withCpuClass(String cpuClass) {
		return new ExecutorForVramConfig(this.devices, this.gpuClass, this.memoryDomains, cpuClass,
				this.streams, this.scratchLimit, this.deferredLimit);
	}

	/**
	 * This config with borrowed CUDA streams.
	 * @param streams {@code CUstream} addresses, one per device in {@code devices} order, or
	 *        {@code null} to create its own
	 * @return a new config
	 */
	public ExecutorForVramConfig withStreams(List<Long> streams) {
		return new ExecutorForVramConfig(this.devices, this.gpuClass, this.memoryDomains, this.cpuClass,
				streams, this.scratchLimit, this.deferredLimit);
	}

	/**
	 * This config with another scratch ceiling.
	 * @param scratchLimit bytes per device, or {@code null} for no ceiling
	 * @return a new config
	 */
	public ExecutorForVramConfig withScratchLimit(Long scratchLimit) {
		return new ExecutorForVramConfig(this.devices, this.gpuClass, this.memoryDomains, this.cpuClass,
				this.streams, scratchLimit, this.deferredLimit);
	}

	/**
	 * This config with another deferred-call limit.
	 * @param deferredLimit calls tracked at once, or {@code null} for the default
	 * @return a new config
	 */
	public ExecutorForVramConfig withDeferredLimit(Integer deferredLimit) {
		return new ExecutorForVramConfig(this.devices, this.gpuClass, this.memoryDomains, this.cpuClass,
				this.streams, this.scratchLimit, deferredLimit);
	}
}
