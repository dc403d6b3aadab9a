package io.uform.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Mood;

/**
 * How much CPU a pool burns while it has nothing to do, in percent of one core.
 *
 * <h2>Method</h2>
 * Each phase runs a few hundred forks on the pool (so its workers have started and have gone through
 * their post-fork spin), waits {@value #SETTLE_MILLIS} ms, then sleeps the main thread for a window
 * (5 s by default) and reads two clocks around it:
 * <ul>
 * <li><b>process</b>: the whole JVM's CPU time ({@code com.sun.management.OperatingSystemMXBean
 * .getProcessCpuTime}), minus the same reading taken first over an equal window with no pool at all
 * (the JVM's own idle cost: GC, JIT, safepoints). This is the headline number: it sees whatever
 * the pool causes, on any thread. Its clock ticks are coarse on Linux (10 ms), i.e. about 0.2% of a
 * core over 5 s, and other JVM threads add noise either way, so small values are "about zero".</li>
 * <li><b>pool threads</b>: the sum of the pool's own worker threads' CPU time
 * ({@link ThreadMXBean#getThreadCpuTime}), found by thread name. Finer and free of JVM noise, but
 * blind to costs the pool causes elsewhere.</li>
 * </ul>
 * Phases: baseline; uform after {@code drain(Mood.PARKED)} (the target: under 1% of a core);
 * uform after {@code drain(Mood.GRINDING)} (for contrast, about {@code threads - 1} cores); uform
 * parked again (its workers must stop spinning); a fixed ThreadPoolExecutor and a ForkJoinPool of
 * the same size, idle after the same forks.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.uform.bench.IdleCpu [seconds] [threads]}
 * (defaults 5 and the machine's cores).
 */
public final class IdleCpu {

	private static final long SETTLE_MILLIS = 200;

	private static final int FORKS = 500;

	private static final double TARGET_PERCENT = 1.0;

	private final long windowMillis;

	private final com.sun.management.OperatingSystemMXBean os;

	private final ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();

	private double baselinePercent;

	private IdleCpu(long windowMillis) {
		this.windowMillis = windowMillis;
		this.os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
	}

	/**
	 * Runs every phase and prints a table; exits with status 2 if the parked uform pool misses the
	 * target, so a script can tell.
	 * @param args optional window seconds and thread count
	 * @throws InterruptedException if interrupted while sleeping
	 */
	public static void main(String[] args) throws InterruptedException {
		double seconds = (args.length > 0) ? Double.parseDouble(args[0]) : 5;
		int threads = (args.length > 1) ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
		IdleCpu idle = new IdleCpu(Math.round(seconds * 1000));
		System.out.printf(Locale.ROOT, "IdleCpu: %d threads per pool, %.1f s windows, %s %s, %d cores%n", threads,
				seconds, System.getProperty("java.vm.name"), System.getProperty("java.version"),
				Runtime.getRuntime().availableProcessors());
		System.out.printf(Locale.ROOT, "%-28s %12s %16s %14s%n", "phase", "process %", "process-base %",
				"pool thr. %");
		// Let start-up JIT compilation and class loading finish before the baseline.
		Thread.sleep(1000);
		idle.baselinePercent = idle.measure("baseline (no pool)", null);

		IntConsumer nothing = (i) -> {
		};
		double parked;
		try (Executor uform = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(threads))) {
			String prefix = "uform-" + uform.name() + "-worker-";
			for (int i = 0; i < FORKS; i++) {
				uform.forN(threads, nothing);
			}
			uform.drain(Mood.PARKED);
			parked = idle.measure("uform PARKED", prefix);
			uform.drain(Mood.GRINDING);
			idle.measure("uform GRINDING", prefix);
			uform.drain(Mood.PARKED);
			double again = idle.measure("uform PARKED again", prefix);
			parked = Math.max(parked, again);
		}

		ThreadPoolExecutor threadPool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), Pools.named("idle-tpe-"));
		for (int i = 0; i < FORKS; i++) {
			Pools.latch(threadPool, threads, nothing);
		}
		idle.measure("ThreadPoolExecutor idle", "idle-tpe-");
		threadPool.shutdown();

		ForkJoinPool forkJoin = new ForkJoinPool(threads, (pool) -> {
			var worker = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
			worker.setName("idle-fjp-" + worker.getPoolIndex());
			return worker;
		}, null, false);
		for (int i = 0; i < FORKS; i++) {
			forkJoin.invokeAll(List.of(() -> null, () -> null));
		}
		idle.measure("ForkJoinPool idle", "idle-fjp-");
		forkJoin.shutdown();

		boolean met = parked < TARGET_PERCENT;
		System.out.printf(Locale.ROOT, "target: parked uform pool under %.1f%% of a core (process minus baseline, worst "
				+ "of both parked phases): %.2f%% -> %s%n", TARGET_PERCENT, parked, met ? "MET" : "NOT MET");
		System.exit(met ? 0 : 2);
	}

	/**
	 * Sleeps one window and prints the CPU used over it.
	 * @param phase the row's label
	 * @param threadPrefix name prefix of the pool's worker threads, or {@code null} for none
	 * @return process CPU in percent of one core, minus the baseline (the raw value for the baseline)
	 */
	private double measure(String phase, String threadPrefix) throws InterruptedException {
		Thread.sleep(SETTLE_MILLIS);
		List<Thread> poolThreads = new ArrayList<>();
		if (threadPrefix != null) {
			for (Thread thread : Thread.getAllStackTraces().keySet()) {
				if (thread.getName().startsWith(threadPrefix)) {
					poolThreads.add(thread);
				}
			}
		}
		long[] threadStart = threadCpu(poolThreads);
		long processStart = this.os.getProcessCpuTime();
		long wallStart = System.nanoTime();
		Thread.sleep(this.windowMillis);
		long processEnd = this.os.getProcessCpuTime();
		long wall = System.nanoTime() - wallStart;
		long[] threadEnd = threadCpu(poolThreads);
		long poolNanos = 0;
		for (int i = 0; i < threadEnd.length; i++) {
			if (threadStart[i] >= 0 && threadEnd[i] >= 0) {
				poolNanos += threadEnd[i] - threadStart[i];
			}
		}
		double process = 100.0 * (processEnd - processStart) / wall;
		double net = (threadPrefix == null) ? process : process - this.baselinePercent;
		String pool = (threadPrefix == null) ? "-"
				: String.format(Locale.ROOT, "%.2f (%d thr)", 100.0 * poolNanos / wall, poolThreads.size());
		System.out.printf(Locale.ROOT, "%-28s %12.2f %16s %14s%n", phase, process,
				(threadPrefix == null) ? "-" : String.format(Locale.ROOT, "%.2f", net), pool);
		return net;
	}

	private long[] threadCpu(List<Thread> threads) {
		long[] nanos = new long[threads.size()];
		for (int i = 0; i < nanos.length; i++) {
			// Thread.getId() rather than threadId(): this module compiles for Java 17.
			@SuppressWarnings("deprecation")
			long id = threads.get(i).getId();
			nanos[i] = this.threadBean.getThreadCpuTime(id);
		}
		return nanos;
	}
}
