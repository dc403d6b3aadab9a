package io.uform;

import java.util.List;

import io.uform.host.CpuClasses;
import io.uform.host.HostPlacement;
import io.uform.host.NumaTopology;

/**
 * Where the host threads of a RAM executor are placed, how many there are, and how many deferred
 * calls it tracks. Passed to {@link Executor#forRam(ExecutorForRamConfig)}.
 *
 * <p>Every field is optional: {@code null} means absent, and an absent field is derived from the
 * machine when the executor is made (that is also when values are validated, so a config can be
 * built anywhere and fails with a clear {@link UformException} only where it is used).
 *
 * <pre>{@code
 * var config = ExecutorForRamConfig.defaults().withThreads(8).withDeferredLimit(64);
 * try (Executor executor = Executor.forRam(config)) { ... }
 * }</pre>
 *
 * @param memoryDomains NUMA node ids the threads are spread over; absent spreads them over every
 *        node this process may use
 * @param cpuClass the CPU class to dispatch as, spelled like {@code intel-haswell}; absent derives
 *        the CPU's own best class
 * @param threads threads to run forks on, the caller of a fork included; absent takes 7/8 of the
 *        cores the domains carry (all of them below 8 cores, never fewer than 1)
 * @param deferredLimit deferred calls tracked at once (queued plus running); absent takes
 *        {@link #DEFAULT_DEFERRED_LIMIT}
 */
public record ExecutorForRamConfig(List<Integer> memoryDomains, String cpuClass, Integer threads,
		Integer deferredLimit) {

	/** Deferred calls tracked at once when {@link #deferredLimit()} is absent. */
	public static final int DEFAULT_DEFERRED_LIMIT = 64;

	/** Copies the domain list so the config stays immutable. */
	public ExecutorForRamConfig {
		memoryDomains = ConfigLists.copy(memoryDomains);
	}

	/**
	 * A config with every field absent: everything derived from the machine.
	 * @return the all-defaults config
	 */
	public static ExecutorForRamConfig defaults() {
		return new ExecutorForRamConfig(null, null, null, null);
	}

	/**
	 * This config with other memory domains.
	 * @param memoryDomains NUMA node ids, or {@code null} for every node
	 * @return a new config
	 */
	public ExecutorForRamConfig withMemoryDomains(List<Integer> memoryDomains) {
		return new ExecutorForRamConfig(memoryDomains, this.cpuClass, this.threads, this.deferredLimit);
	}

	/**
	 * This config with another CPU class.
	 * @param cpuClass a class like {@code intel-haswell}, or {@code null} for the CPU's own
	 * @return a new config
	 */
	public ExecutorForRamConfig withCpuClass(String cpuClass) {
		return new ExecutorForRamConfig(this.memoryDomains, cpuClass, this.threads, this.deferredLimit);
	}

	/**
	 * This config with another thread count.
	 * @param threads threads including a fork's caller, or {@code null} to derive it
	 * @return a new config
	 */
	public ExecutorForRamConfig withThreads(Integer threads) {
		return new ExecutorForRamConfig(this.memoryDomains, this.cpuClass, threads, this.deferredLimit);
	}

	/**
	 * This config with another deferred-call limit.
	 * @param deferredLimit calls tracked at once, or {@code null} for the default
	 * @return a new config
	 */
	public ExecutorForRamConfig withDeferredLimit(Integer deferredLimit) {
		return new ExecutorForRamConfig(this.memoryDomains, this.cpuClass, this.threads, deferredLimit);
	}

	/**
	 * Resolves this config on a machine: the host runtime derives the absent fields and validates the
	 * given ones.
	 * @param topology the machine's NUMA domains
	 * @param cpuClasses the machine's CPU classes
	 * @param availableProcessors the JVM's CPU count
	 * @return where the executor's threads go
	 * @throws UformException {@link UformException.Status#INVALID_ARGUMENT} naming the first bad field
	 */
	HostPlacement place(NumaTopology topology, CpuClasses cpuClasses, int availableProcessors) {
		HostPlacement.Request request = new HostPlacement.Request(this.memoryDomains, this.threads, this.cpuClass,
				this.deferredLimit, DEFAULT_DEFERRED_LIMIT);
		return HostPlacement.resolve(request, topology, cpuClasses, availableProcessors, UformFailures.INSTANCE);
	}
}
