package io.uform.spring.autoconfigure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.Uform;

/**
 * Says at startup, at WARN, when the executor beans ask for more threads than the cores they are
 * placed on: one executor with more threads than its memory domains carry ({@code threads: 8} on 2
 * cores), or two executors whose threads, on the domains they share, outnumber those domains' cores.
 * Either way threads take turns on a core, and a fork waits for its slowest thread, so every fork of
 * those executors slows. Nothing fails: a machine shared on purpose (a development laptop) may want it.
 *
 * <p>An executor's threads are pinned to the cores of their memory domain, spread over its domains in
 * proportion to their cores, so the threads an executor has on some of its domains are that share of
 * its threads. A fork counts its caller among them, since the caller runs a share and the others wait
 * for it. The cores counted are at most the JVM's available processors (a container's quota). It
 * looks once, when the context is first refreshed: every executor bean is made by then, the
 * application's included.
 *
 * <p>An executor of one thread is never one of a pair: it pins no thread, and its forks run on the
 * thread that calls them (its statistics say "not pinned: one thread, the caller's"), so it asks for
 * no core that the application's own threads would not use without it. That is the default VRAM
 * executor (one device, one host thread: the caller's) beside the default RAM executor, which below 8
 * cores takes all of them and shares them with the application's threads by design; a WARN there would
 * speak of a configuration nobody chose. A VRAM executor of two devices or more does pin host threads
 * (one per device beyond the caller's, each driving its device and waiting on its stream), and counts.
 */
final class UformOversubscriptionCheck implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(UformAutoConfiguration.class);

	private final AtomicBoolean checked = new AtomicBoolean();

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		if (!(event.getApplicationContext() instanceof ConfigurableApplicationContext context)
				|| !logger.isWarnEnabled() || !this.checked.compareAndSet(false, true)) {
			return;
		}
		ConfigurableListableBeanFactory beans = context.getBeanFactory();
		List<Placed> placed = new ArrayList<>();
		for (String name : beans.getBeanNamesForType(Executor.class, false, false)) {
			// Only executors made already: looking must not make a lazy one.
			if (beans.getSingleton(name) instanceof Executor executor) {
				ExecutorStatistics statistics = executor.statistics();
				if (statistics.state() != Executor.State.FREED) {
					placed.add(new Placed(name, statistics.threads(), statistics.memoryDomains()));
				}
			}
		}
		// By name, so that the lines read the same on every start.
		placed.sort(Comparator.comparing(Placed::bean));
		for (String warning : warnings(placed, Uform.memoryDomains(), Runtime.getRuntime().availableProcessors())) {
			logger.warn(warning);
		}
	}

	/**
	 * What to warn about for these executors on this machine.
	 * @param executors each executor bean's name, threads and memory domains
	 * @param domains the machine's memory domains: CPU ids by domain id
	 * @param availableProcessors the JVM's CPU count (it includes container quotas)
	 * @return one line per executor with more threads than cores, then one per pair of executors that
	 *         pin threads and oversubscribe the cores they share; empty when every thread has a core
	 */
	static List<String> warnings(List<Placed> executors, Map<Integer, List<Integer>> domains, int availableProcessors) {
		List<String> warnings = new ArrayList<>();
		for (Placed executor : executors) {
			int cores = cores(executor.domains(), domains, availableProcessors);
			if (executor.threads() > cores) {
				warnings.add("uform executor bean '" + executor.bean() + "' has " + executor.threads() + " threads on the "
						+ cores + " cores its memory domains carry (" + describe(executor.domains(), domains)
						+ "): threads take turns on a core and every fork waits for the slowest. Give it at most " + cores
						+ " threads (unset, threads takes 7/8 of the cores), or more memory domains");
			}
		}
		for (int a = 0; a < executors.size(); a++) {
			for (int b = a + 1; b < executors.size(); b++) {
				String shared = sharing(executors.get(a), executors.get(b), domains, availableProcessors);
				if (shared != null) {
					warnings.add(shared);
				}
			}
		}
		return warnings;
	}

	private static String sharing(Placed first, Placed second, Map<Integer, List<Integer>> domains,
			int availableProcessors) {
		if (first.threads() < 2 || second.threads() < 2) {
			return null;
		}
		List<Integer> shared = new ArrayList<>(first.domains());
		shared.retainAll(second.domains());
		if (shared.isEmpty()) {
			return null;
		}
		int cores = cores(shared, domains, availableProcessors);
		int firstThreads = threadsOn(first, shared, domains);
		int secondThreads = threadsOn(second, shared, domains);
		if (firstThreads + secondThreads <= cores) {
			return null;
		}
		return "uform executor beans '" + first.bean() + "' (" + UformStartupLog.counted(firstThreads, "thread")
				+ ") and '" + second.bean() + "' (" + UformStartupLog.counted(secondThreads, "thread")
				+ ") are pinned to the same " + UformStartupLog.counted(cores, "core") + " ("
				+ describe(shared, domains) + "): " + (firstThreads + secondThreads) + " threads take turns on them, "
				+ "which slows every fork of both. Give them different memory domains (uform.ram.memory-domains, "
				+ "uform.vram.memory-domains) or fewer threads, so that together they have at most " + cores;
	}

	/** The threads an executor has on some of its domains: their share of its CPUs, rounded up. */
	private static int threadsOn(Placed executor, List<Integer> some, Map<Integer, List<Integer>> domains) {
		long all = cpus(executor.domains(), domains);
		long part = cpus(some, domains);
		return (all == 0) ? 0 : (int) Math.min(executor.threads(), (executor.threads() * part + all - 1) / all);
	}

	private static int cores(List<Integer> ids, Map<Integer, List<Integer>> domains, int availableProcessors) {
		return (int) Math.max(1, Math.min(cpus(ids, domains), Math.max(1, availableProcessors)));
	}

	private static long cpus(List<Integer> ids, Map<Integer, List<Integer>> domains) {
		long cpus = 0;
		for (Integer id : ids) {
			cpus += domains.getOrDefault(id, List.of()).size();
		}
		return cpus;
	}

	/** Domains with their CPUs, as {@code node 0: CPUs [0, 1]; node 1: CPUs [2, 3]}. */
	private static String describe(List<Integer> ids, Map<Integer, List<Integer>> domains) {
		List<String> described = new ArrayList<>();
		for (Integer id : ids) {
			described.add("node " + id + ": CPUs " + domains.getOrDefault(id, List.of()));
		}
		return String.join("; ", described);
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
