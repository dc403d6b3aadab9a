package io.uform.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ProngTask;
import io.uform.spring.autoconfigure.metrics.UformExecutorMetrics;
import io.uform.spring.autoconfigure.metrics.UformGpuMetrics;

/**
 * What the starter's Micrometer binders cost.
 *
 * <p>{@link #forN}: one uform {@code forN} over {@code threads * slicesPerThread} indices, with
 * {@code metrics=off} (a bare executor), {@code metrics=bound} (the same executor bound by
 * {@link UformExecutorMetrics} and {@link UformGpuMetrics} to a registry that nobody reads) and
 * {@code metrics=on} (bound, and a background thread reading every meter of that registry every
 * {@code scrapeMillis}, as a Prometheus scrape does). The binders put nothing on the fork path: every
 * meter reads {@code Executor.statistics()} when the registry is read, so {@code bound - off} is what
 * binding costs a fork (the target is under 2%), and {@code on - bound} is the scrape itself
 * competing with the fork for the cores. Bodies as in {@link ForkJoinLatencyBenchmark}:
 * {@code empty} (pure fork overhead, the most sensitive to anything else on the cores) and
 * {@code busy5us} (about 5 us of CPU per index, {@link Work#burn}, calibrated at setup unless
 * {@code sliceIterations} fixes it). {@code benchmarks/metrics-overhead.sh} runs the variants in
 * interleaved rounds, one JVM each; between JVMs a shared machine drifts by far more than 2%.
 *
 * <p>{@link #alternating}: the {@code off}/{@code bound} comparison inside one JVM and one executor,
 * for a machine whose load drifts between JVMs (and between two executors of one JVM, whose threads
 * the scheduler places differently). The executor forks in blocks of {@value #BLOCK}, a few hundred
 * microseconds each, alternately with its meters in a registry and without them (bound before its
 * block and removed after it, outside the timing); whatever disturbs the machine disturbs both alike.
 * Each measured iteration prints the ratio of the bound blocks' time to the bare blocks' over that
 * iteration, and the trial the median of those ratios.
 *
 * <p>{@link #scrape}: one read of every meter the binders register for one executor, what each
 * scrape costs the scraping thread.
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

	/** Forks per executor and block in {@link #alternating}. */
	static final int BLOCK = 500;

	/**
	 * One block of {@value #BLOCK} forks with the executor's meters in a registry and one without them,
	 * timed apart, the first of the two alternating from one invocation to the next.
	 * @param pair the executor, the registry and the timings
	 */
	@Benchmark
	@OperationsPerInvocation(2 * BLOCK)
	@OutputTimeUnit(TimeUnit.MICROSECONDS)
	public void alternating(Pair pair) {
		if ((pair.invocations++ & 1) == 0) {
			pair.bareNanos += pair.block();
			pair.bind();
			pair.boundNanos += pair.boundBlock();
			pair.unbind();
		}
		else {
			pair.bind();
			pair.boundNanos += pair.boundBlock();
			pair.unbind();
			pair.bareNanos += pair.block();
		}
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

		/**
		 * {@code off}: a bare executor; {@code bound}: bound to a registry nobody reads; {@code on}:
		 * bound to a registry that is scraped every {@code scrapeMillis}.
		 */
		@Param({ "off", "bound", "on" })
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

		/**
		 * Makes the executor; for {@code metrics=bound} binds it, for {@code metrics=on} binds it and
		 * starts the scraper.
		 */
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
			if ("bound".equals(this.metrics) || "on".equals(this.metrics)) {
				this.registry = new SimpleMeterRegistry();
				new UformExecutorMetrics(this.executor, "uformRamExecutor").bindTo(this.registry);
				new UformGpuMetrics().bindTo(this.registry);
				// One read, so that a bound registry has been through what a scraped one has (meters
				// registered, GPU readings asked for once) before the forks are timed.
				this.scraped = readEveryMeter(this.registry);
			}
			if ("bound".equals(this.metrics)) {
				System.out.println("metrics bound: " + this.registry.getMeters().size() + " meters, never read");
			}
			else if ("on".equals(this.metrics)) {
				System.out.println("metrics on: " + this.registry.getMeters().size() + " meters, scraped every "
						+ this.scrapeMillis + " ms");
				this.scraping = true;
				this.startNanos = System.nanoTime();
				this.scraper = new Thread(this::scrapeEvery, "registry-scraper");
				this.scraper.setDaemon(true);
				this.scraper.start();
			}
			else if (!"off".equals(this.metrics)) {
				throw new IllegalArgumentException("metrics is off, bound or on, was " + this.metrics);
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
			}
			if (this.registry != null) {
				this.registry.close();
			}
			this.executor.free();
		}
	}

	/** One executor, bound and unbound in turn, for {@link #alternating}. */
	@State(Scope.Benchmark)
	public static class Pair {

		/** Threads in the uform pool, the caller included. */
		@Param({ "2" })
		public int threads;

		/** {@code empty} or {@code busy5us}, as in {@link Forks}. */
		@Param({ "empty", "busy5us" })
		public String body;

		/** {@link Work#burn} iterations per index of the busy body; 0 calibrates to 5 us. */
		@Param({ "0" })
		public long sliceIterations;

		/**
		 * {@link Work#burn} iterations the caller adds after each fork of a bound block: 0 measures
		 * binding; a few check that the method sees a slowdown of a few percent of an empty fork.
		 */
		@Param({ "0" })
		public long boundPenalty;

		private Executor executor;

		private SimpleMeterRegistry registry;

		private UformExecutorMetrics binder;

		/** The GPU meters, bound for the whole trial: they read devices, never an executor. */
		private SimpleMeterRegistry gpus;

		private ProngTask task;

		private int n;

		/** Where {@link #boundPenalty}'s work goes, so that it is not optimised away. */
		long penaltySink;

		/** Invocations in this iteration; only the benchmark thread touches it and the two sums. */
		long invocations;

		long bareNanos;

		long boundNanos;

		private final List<Double> ratios = new ArrayList<>();

		/** Makes the executor and the registries. */
		@Setup(Level.Trial)
		public void setUp() {
			this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(this.threads));
			this.n = this.threads;
			long[] sink = new long[(this.n + 1) * PAD];
			if ("busy5us".equals(this.body)) {
				long burn = (this.sliceIterations > 0) ? this.sliceIterations : Work.calibrate(5_000);
				this.task = (index, thread, colocation) -> sink[(index + 1) * PAD] = Work.burn(burn, index);
			}
			else if ("empty".equals(this.body)) {
				this.task = (index, thread, colocation) -> {
				};
			}
			else {
				throw new IllegalArgumentException("body is empty or busy5us, was " + this.body);
			}
			this.registry = new SimpleMeterRegistry();
			this.binder = new UformExecutorMetrics(this.executor, "uformRamExecutor");
			this.gpus = new SimpleMeterRegistry();
			new UformGpuMetrics().bindTo(this.gpus);
			bind();
			System.out.println("bound: " + this.registry.getMeters().size() + " executor meters, read once");
			readEveryMeter(this.registry);
			unbind();
		}

		long block() {
			long start = System.nanoTime();
			for (int i = 0; i < BLOCK; i++) {
				this.executor.forN(this.n, this.task);
			}
			return System.nanoTime() - start;
		}

		long boundBlock() {
			if (this.boundPenalty == 0) {
				return block();
			}
			long start = System.nanoTime();
			for (int i = 0; i < BLOCK; i++) {
				this.executor.forN(this.n, this.task);
				this.penaltySink += Work.burn(this.boundPenalty, i);
			}
			return System.nanoTime() - start;
		}

		void bind() {
			this.binder.bindTo(this.registry);
		}

		void unbind() {
			this.registry.clear();
		}

		/** Starts an iteration's sums at zero. */
		@Setup(Level.Iteration)
		public void startIteration() {
			this.invocations = 0;
			this.bareNanos = 0;
			this.boundNanos = 0;
		}

		/**
		 * Prints the iteration's ratio, and keeps it when the iteration was measured.
		 * @param iteration what JMH says of the iteration that ended
		 */
		@TearDown(Level.Iteration)
		public void endIteration(IterationParams iteration) {
			// Each invocation forked BLOCK times bound and BLOCK times bare.
			double forks = Math.max(1, this.invocations) * (double) BLOCK;
			double ratio = (double) this.boundNanos / this.bareNanos;
			System.out.printf("bound/bare %.4f (bare %.3f us, bound %.3f us per fork) ", ratio,
					this.bareNanos / 1e3 / forks, this.boundNanos / 1e3 / forks);
			if (iteration.getType() == IterationType.MEASUREMENT) {
				this.ratios.add(ratio);
			}
		}

		/** Prints the median ratio of the measured iterations and frees the executor. */
		@TearDown(Level.Trial)
		public void tearDown() {
			double[] sorted = this.ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
			if (sorted.length > 0) {
				int k = sorted.length;
				System.out.printf("%nbound/bare over %d measured iterations: median %.4f, min %.4f, max %.4f%n", k,
						(sorted[(k - 1) / 2] + sorted[k / 2]) / 2, sorted[0], sorted[k - 1]);
				System.out.println("bound/bare ratios: " + Arrays.toString(sorted));
			}
			this.registry.close();
			this.gpus.close();
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
