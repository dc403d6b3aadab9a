package io.uform;

import java.util.List;

/**
 * Where the borrowed pool of a RAM executor is placed, and how many deferred calls it tracks.
 * Passed to {@link Executor#onPool(long, ExecutorOnPoolConfig)}, which reports
 * {@link UformException.Status#UNSUPPORTED} until borrowing a foreign pool is designed (as uform
 * itself does).
 *
 * @param memoryDomains NUMA node ids of the models it will drive; absent derives every node
 * @param cpuClass the CPU class to dispatch as, like {@code intel-haswell}; absent derives the CPU's own
 * @param deferredLimit deferred calls tracked at once; absent takes a default
 */
public record ExecutorOnPoolConfig(List<Integer> memoryDomains, String cpuClass, Integer deferredLimit) {

	/** Copies the domain list so the config stays immutable. */
	public ExecutorOnPoolConfig {
		memoryDomains = ConfigLists.copy(memoryDomains);
	}

	/**
	 * A config with every field absent.
	 * @return the all-defaults config
	 */
	public static ExecutorOnPoolConfig defaults() {
		return new ExecutorOnPoolConfig(null, null, null);
	}
}
