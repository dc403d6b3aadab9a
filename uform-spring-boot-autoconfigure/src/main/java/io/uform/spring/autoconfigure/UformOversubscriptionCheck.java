package io.uform.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.host.NumaDomain;
import io.uform.host.NumaTopology;

/**
 * Says at startup, at WARN, when the executor beans ask for more threads than the cores they are
 * placed on: one executor with more threads than its memory domains carry ({@code threads: 8} on 2
 * cores), or two executors whose threads, on the domains they share, outnumber those domains' cores.
 * Either way threads take turns on a core, and a fork waits for its slowest thread, so every fork of
 * those executors slows. Nothing fails: a machine shared on purpose (a development laptop) may want it.
 *
 * <p>An executor's threads are pinned to the cores of their memory domain, spread over its domains in
 * proportion to their cores ({@code HostPlacement}), so the threads an executor has on some of its
 * domains are that share of its threads. It looks once, when the context is first refreshed: every
 * executor bean is made by then, the application's included.
 */
final class UformOversubscriptionCheck implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(UformAutoConfiguration.class);

	private final AtomicBoolean checked = new AtomicBoolean();

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		ApplicationContext context = event.getApplicationContext();
		if (!logger.isWarnEnabled() || !this.checked.compareAndSet(false, true)) {
			return;
		}
		List<Placed> placed = new ArrayList<>();
		for (Map.Entry<String, Executor> bean : context.getBeansOfType(Executor.class, false, false).entrySet()) {
			ExecutorStatistics statistics = bean.getValue().statistics();
			if (statistics.state() != Executor.State.FREED) {
				placed.add(new Placed(bean.getKey(), statistics.threads(), statistics.memoryDomains()));
			}
		}
		// By name, so that the lines read the same on every start.
		placed.sort(java.util.Comparator.comparing(Placed::bean));
		for (String warning : warnings(placed, NumaTopology.system(), Runtime.getRuntime().availableProcessors())) {
			logger.warn(warning);
		}
	}

	/**
	 * What to warn about for these executors on this machine.
	 * @param executors each executor bean's name, threads and memory domains
	 * @param topology the machine's domains
	 * @param availableProcessors the JVM's CPU count (it includes container quotas)
	 * @return one line per executor with more threads than cores, then one per pair that oversubscribes
	 *         the cores it shares; empty when every thread has a core
	 */
	static List<String> warnings(List<Placed> executors, NumaTopology topology, int availableProcessors) {
		List<String> warnings = new ArrayList<>();
		for (Placed executor : executors) {
			List<NumaDomain> domains = domains(topology, executor.domains());
			int cores = Math.min(topology.cpuBudget(domains), Math.max(1, availableProcessors));
			if (executor.threads() > cores) {
				warnings.add("uform executor bean '" + executor.bean() + "' has " + executor.threads() + " threads on the "
						+ cores + " cores its memory domains carry (" + describe(domains) + "): threads take turns on a core and "
						+ "every fork waits for the slowest. Give it at most " + cores + " threads (unset, threads takes "
						+ "7/8 of the cores), or more memory domains");
			}
		}
		for (int a = 0; a < executors.size(); a++) {
			for (int b = a + 1; b < executors.size(); b++) {
				String shared = sharing(executors.get(a), executors.get(b), topology, availableProcessors);
				if (shared != null) {
					warnings.add(shared);
				}
			}
		}
		return warnings;
	}

	private static String sharing(Placed first, Placed second, NumaTopology topology, int availableProcessors) {
		List<NumaDomain> shared = new ArrayList<>();
		for (NumaDomain domain : domains(topology, first.domains())) {
			if (second.domains().contains(domain.id())) {
				shared.add(domain);
			}
		}
		if (shared.isEmpty()) {
			return null;
		}
		int cores = Math.min(topology.cpuBudget(shared), Math.max(1, availableProcessors));
		int firstThreads = threadsOn(first, shared, topology);
		int secondThreads = threadsOn(second, shared, topology);
		if (firstThreads + secondThreads <= cores) {
			return null;
		}
		return "uform executor beans '" + first.bean() + "' (" + UformStartupLog.counted(firstThreads, "thread")
				+ ") and '" + second.bean() + "' (" + UformStartupLog.counted(secondThreads, "thread")
				+ ") are pinned to the same " + UformStartupLog.counted(cores, "core") + " (" + describe(shared) + "): "
				+ (firstThreads + secondThreads) + " threads take turns on them, which slows every fork of both. Give "
				+ "them different memory domains (uform.ram.memory-domains, uform.vram.memory-domains) or fewer "
				+ "threads, so that together they have at most " + cores;
	}

	/** The threads an executor has on some of its domains: their share of its cores, rounded up. */
	private static int threadsOn(Placed executor, List<NumaDomain> some, NumaTopology topology) {
		int all = NumaDomain.cpuCount(domains(topology, executor.domains()));
		int part = NumaDomain.cpuCount(some);
		return (all == 0) ? 0 : (int) Math.min(executor.threads(), ((long) executor.threads() * part + all - 1) / all);
	}

	/** Domains with their cores, as {@code node0[0-3], node1[4-7]}. */
	private static String describe(List<NumaDomain> domains) {
		List<String> described = new ArrayList<>();
		for (NumaDomain domain : domains) {
			described.add(domain.toString());
		}
		return String.join(", ", described);
	}

	private static List<NumaDomain> domains(NumaTopology topology, List<Integer> ids) {
		List<NumaDomain> domains = new ArrayList<>();
		for (Integer id : ids) {
			topology.domain(id).ifPresent(domains::add);
		}
		return domains;
	}

	/**
	 * An executor bean as the check sees it.
	 * @param bean its bean name
	 * @param threads its threads
	 * @param domains its memory domains' ids
	 */
	record Placed(String bean, int threads, List<Integer> domains) {
	}
}
