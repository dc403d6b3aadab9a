package io.uform.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ProngTask;
import io.uform.spring.autoconfigure.metrics.UformExecutorMetrics;
import io.uform.spring.autoconfigure.metrics.UformGpuMetrics;

/**
 * What the starter's Micrometer binders cost.
 *
 * <p>{@link #forN}: one uform {@code forN} over {@code threads * slicesPerThread} indices, with
 * {@code metrics=off} (a bare executor) and {@code metrics=on} (the same executor bound by
 * {@link UformExecutorMetrics} and {@link UformGpuMetrics} to a registry, and a background thread
 * reading every meter of that registry every {@code scrapeMillis}, as a Prometheus scrape does),
 * side by side in one JMH run. The binders put nothing on the fork path: every meter reads
 * {@code Executor.statistics()} when the registry is read. So the difference is the scrape itself
 * (one thread busy for microseconds every 100 ms, and the cache line of the fork counter it reads)
 * competing with the fork for the cores; the target is under 2%. Bodies as in
 * {@link ForkJoinLatencyBenchmark}: {@code empty} (pure fork overhead, the most sensitive to anything
 * else on the cores) and {@code busy5us} (about 5 us of CPU per index, {@link Work#burn}, calibrated
 * at setup unless {@code sliceIterations} fixes it).
 *
 * <p>{@link #scrape}: one read of every meter the binders register for one executor, what each
 * scrape costs the scraping thread. Divided by the scrape interval it bounds the share of a core the
 * scraper can take from the forks, a figure that a noisy machine does not blur the way it blurs a
 * 2% difference between two fork latencies.
 */
@BenchmarkMode(Mode.AverageTime)
public class MetricsOverheadBenchmark {

	/** Longs between two indices' sink slots: 128 bytes, two cache lines. */
	private static final int PAD = 16;

	/** One fork over {@code threads * slicesPerThread} indices. */
	@Benchmark
	@OutputTimeUnit(TimeUnit.MICROSECONDS)
	public void forN(Forks forks) {
		forks.executor.forN(forks.n, forks.task);
	}

	/**
	 * One scrape: every measurement of every meter of an idle two-thread executor bound by
	 * {@link UformExecutorMetrics} (and the GPUs by {@link UformGpuMetrics}, where there are any).
	 * @param bound the bound registry
	 * @return the sum of the values, so that nothing is optimised away
	 */
	@Benchmark
	@OutputTimeUnit(TimeUnit.NANOSECONDS)
	public double scrape(BoundRegistry bound) {
		return readEveryMeter(bound.registry);
	}

	static double readEveryMeter(SimpleMeterRegistry registry) {
		double sum = 0;
		for (Meter meter : registry.getMeters()) {
			for (Measurement measurement : meter.measure()) {
				sum += measurement.getValue();
			}
		}
		return sum;
	}

	/** The executor that forks, bound and scraped or not. */
	@State(Scope.Benchmark)
	public static class Forks {

		/** Threads in the uform pool, the caller included. */
		@Param({ "2" })
		public int threads;

		/** Indices per thread in one fork. */
		@Param({ "1" })
		public int slicesPerThread;

		/** {@code empty} or {@code busy5us}. */
		@Param({ "empty", "busy5us" })
		public String body;

		/** {@code off}: a bare executor; {@code on}: bound to a registry that is scraped. */
		@Param({ "off", "on" })
		public String metrics;

		/** Time between two scrapes of the registry, when {@code metrics=on}. */
		@Param({ "100" })
		public long scrapeMillis;

		/** {@link Work#burn} iterations per index of the busy body; 0 calibrates to 5 us. */
		@Param({ "0" })
		public long sliceIterations;

		Executor executor;

		int n;

		ProngTask task;

		private SimpleMeterRegistry registry;

		private Thread scraper;

		private volatile boolean scraping;

		/** What the scraper read, so that reading every meter is not optimised away. */
		private volatile double scraped;

		private volatile long scrapes;

		/** The scraper's own CPU time, nanoseconds, written by it after each scrape. */
		private volatile long scraperCpuNanos;

		private long startNanos;

		/** Makes the executor, and for {@code metrics=on} binds it and starts the scraper. */
		@Setup(Level.Trial)
		public void setUp() {
			this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(this.threads));
			this.n = this.threads * this.slicesPerThread;
			long[] sink = new long[(this.n + 1) * PAD];
			if ("busy5us".equals(this.body)) {
				long burn = (this.sliceIterations > 0) ? this.sliceIterations : Work.calibrate(5_000);
				System.out.println("busy5us: " + burn + " burn iterations per index");
				this.task = (index, thread, colocation) -> sink[(index + 1) * PAD] = Work.burn(burn, index);
			}
			else if ("empty".equals(this.body)) {
				this.task = (index, thread, colocation) -> {
				};
			}
			else {
				throw new IllegalArgumentException("body is empty or busy5us, was " + this.body);
			}
			for (int i = 0; i < 100; i++) {
				this.executor.forN(this.n, this.task);
			}
			if ("on".equals(this.metrics)) {
				this.registry = new SimpleMeterRegistry();
				new UformExecutorMetrics(this.executor, "uformRamExecutor").bindTo(this.registry);
				new UformGpuMetrics().bindTo(this.registry);
				System.out.println("metrics on: " + this.registry.getMeters().size() + " meters, scraped every "
						+ this.scrapeMillis + " ms");
				this.scraping = true;
				this.startNanos = System.nanoTime();
				this.scraper = new Thread(this::scrapeEvery, "registry-scraper");
				this.scraper.setDaemon(true);
				this.scraper.start();
			}
			else if (!"off".equals(this.metrics)) {
				throw new IllegalArgumentException("metrics is off or on, was " + this.metrics);
			}
		}

		private void scrapeEvery() {
			while (this.scraping) {
				try {
					Thread.sleep(this.scrapeMillis);
				}
				catch (InterruptedException ex) {
					return;
				}
				this.scraped += readEveryMeter(this.registry);
				this.scrapes++;
				this.scraperCpuNanos = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
			}
		}

		/** Stops the scraper and frees the executor. */
		@TearDown(Level.Trial)
		public void tearDown() throws InterruptedException {
			if (this.scraper != null) {
				this.scraping = false;
				this.scraper.interrupt();
				this.scraper.join(10_000);
				long wall = System.nanoTime() - this.startNanos;
				// What the scraper took from the cores the forks run on: its CPU time over the trial.
				System.out.printf("scrapes: %d in %.1f s, scraper CPU %.2f ms = %.4f%% of one core (checksum %s)%n",
						this.scrapes, wall / 1e9, this.scraperCpuNanos / 1e6, 100.0 * this.scraperCpuNanos / wall,
						this.scraped);
				this.registry.close();
			}
			this.executor.free();
		}
	}

	/** A registry with one idle executor bound, for {@link #scrape}. */
	@State(Scope.Benchmark)
	public static class BoundRegistry {

		private Executor executor;

		SimpleMeterRegistry registry;

		/** Makes the executor and binds it. */
		@Setup(Level.Trial)
		public void setUp() {
			this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
			this.registry = new SimpleMeterRegistry();
			new UformExecutorMetrics(this.executor, "uformRamExecutor").bindTo(this.registry);
			new UformGpuMetrics().bindTo(this.registry);
			System.out.println("scrape: " + this.registry.getMeters().size() + " meters");
		}

		/** Frees the executor. */
		@TearDown(Level.Trial)
		public void tearDown() {
			this.registry.close();
			this.executor.free();
		}
	}
}
