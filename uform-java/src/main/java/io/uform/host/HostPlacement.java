package io.uform.host;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.uform.failure.FailureFactory;

/**
 * Where the threads of a host executor go, resolved from a config and the machine: which NUMA
 * domains, how many threads, which domain (colocation) each thread belongs to, which CPU class to
 * dispatch as, and how many deferred calls to track. Every absent field is derived here and every
 * given one validated, with messages that name the field, the value and the fix.
 *
 * @param domains the domains the threads are spread over, in config order
 * @param threads threads taking part in a fork, the caller included
 * @param colocationOfThread for each thread, the index of its domain in {@code domains}
 * @param cpuClass the CPU class to dispatch as
 * @param deferredLimit deferred calls tracked at once
 */
public record HostPlacement(List<NumaDomain> domains, int threads, int[] colocationOfThread, String cpuClass,
		int deferredLimit) {

	/** The most threads one executor may have; far beyond any machine's cores, short of exhausting memory. */
	public static final int MAX_THREADS = 4096;

	/**
	 * What a RAM executor's config asks of the host, every field possibly absent.
	 * @param memoryDomains the NUMA nodes to use, or {@code null} for all
	 * @param threads threads taking part in a fork, or {@code null} to derive
	 * @param cpuClass the CPU class to dispatch as, or {@code null} for the CPU's best
	 * @param deferredLimit deferred calls in flight at once, or {@code null} for {@code defaultDeferredLimit}
	 * @param defaultDeferredLimit the deferred-call limit an absent {@code deferredLimit} means
	 */
	public record Request(List<Integer> memoryDomains, Integer threads, String cpuClass, Integer deferredLimit,
			int defaultDeferredLimit) {
	}

	/**
	 * Resolves a RAM executor's config.
	 * @param request what the config asks for, fields possibly absent
	 * @param topology the machine's NUMA domains
	 * @param cpuClasses the machine's CPU classes
	 * @param availableProcessors the JVM's CPU count (it includes container quotas)
	 * @param errors makes the exception for the first bad field
	 * @return the placement
	 * @throws RuntimeException {@code INVALID_ARGUMENT} naming the first bad field
	 */
	public static HostPlacement resolve(Request request, NumaTopology topology, CpuClasses cpuClasses,
			int availableProcessors, FailureFactory errors) {
		List<NumaDomain> domains = resolveDomains(request.memoryDomains(), topology, errors);
		// The quota counts here too, not only through availableProcessors: a fixture topology has its own.
		int cores = Math.min(topology.cpuBudget(domains), Math.max(1, availableProcessors));
		int threads = resolveThreads(request.threads(), cores, errors);
		int deferredLimit = resolveDeferredLimit(request.deferredLimit(), request.defaultDeferredLimit(), errors);
		String cpuClass = cpuClasses.resolve("cpuClass", request.cpuClass(), errors);
		return new HostPlacement(List.copyOf(domains), threads, spread(threads, domains), cpuClass, deferredLimit);
	}

	/**
	 * The thread count an absent {@code threads} derives: 7/8 of the cores, leaving one in eight to the
	 * JVM's own threads (GC, JIT, I/O); below 8 cores that is all of them.
	 * @param cores cores the executor's domains carry
	 * @return at least 1
	 */
	public static int defaultThreads(int cores) {
		return Math.max(1, cores - cores / 8);
	}

	private static List<NumaDomain> resolveDomains(List<Integer> requested, NumaTopology topology,
			FailureFactory errors) {
		if (requested == null) {
			return topology.domains();
		}
		String known = topology.domains().stream().map((domain) -> String.valueOf(domain.id())).toList().toString();
		if (requested.isEmpty()) {
			throw errors.invalid("memoryDomains", "[]",
					"name at least one NUMA node, or leave it unset to use every node; nodes here: " + known);
		}
		List<NumaDomain> domains = new ArrayList<>();
		Set<Integer> seen = new HashSet<>();
		for (Integer id : requested) {
			if (id == null) {
				throw errors.invalid("memoryDomains", requested, "holds a null entry; list NUMA node ids from " + known);
			}
			if (!seen.add(id)) {
				throw errors.invalid("memoryDomains", requested, "names node " + id + " twice; list each node once");
			}
			domains.add(topology.domain(id)
				.orElseThrow(() -> errors.invalid("memoryDomains", requested, "node " + id
						+ " does not exist or has no CPU this process may use; use nodes from " + known
						+ " (as listed in /sys/devices/system/node), or leave it unset for all of them")));
		}
		return domains;
	}

	private static int resolveThreads(Integer requested, int cores, FailureFactory errors) {
		if (requested == null) {
			return defaultThreads(cores);
		}
		if (requested < 1) {
			throw errors.invalid("threads", requested, "must be at least 1 (it counts the thread that calls a fork); "
					+ "leave it unset for " + defaultThreads(cores) + " of the " + cores + " cores here (7/8 of them from 8 "
					+ "cores up, every one below)");
		}
		if (requested > MAX_THREADS) {
			throw errors.invalid("threads", requested, "must be at most " + MAX_THREADS + "; this machine's domains carry "
					+ cores + " cores, so leave it unset for " + defaultThreads(cores));
		}
		return requested;
	}

	private static int resolveDeferredLimit(Integer requested, int byDefault, FailureFactory errors) {
		if (requested == null) {
			return byDefault;
		}
		if (requested < 1) {
			throw errors.invalid("deferredLimit", requested, "must be at least 1 deferred call in flight; leave it unset for "
					+ byDefault);
		}
		return requested;
	}

	/** Spreads threads over domains in proportion to their CPUs, in contiguous runs. */
	private static int[] spread(int threads, List<NumaDomain> domains) {
		int total = NumaDomain.cpuCount(domains);
		int[] colocation = new int[threads];
		for (int t = 0; t < threads; t++) {
			long position = (long) t * total / threads;
			int domain = 0;
			long end = domains.get(0).cpuCount();
			while (position >= end && domain + 1 < domains.size()) {
				domain++;
				end += domains.get(domain).cpuCount();
			}
			colocation[t] = domain;
		}
		return colocation;
	}

	/**
	 * The CPUs a thread belongs on: those of its domain.
	 * @param thread a thread index
	 * @return the domain's usable CPUs
	 */
	public int[] cpusOf(int thread) {
		return this.domains.get(this.colocationOfThread[thread]).cpus();
	}

	/**
	 * How many domains (colocations) the threads span.
	 * @return at least 1
	 */
	public int colocations() {
		return this.domains.size();
	}
}
