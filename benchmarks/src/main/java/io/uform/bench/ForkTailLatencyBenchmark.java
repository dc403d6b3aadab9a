package io.uform.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicLong;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Mood;

/**
 * The latency of every single fork, not of batches: N forks timed one by one with
 * {@link System#nanoTime()}, reported as p50, p90, p99, p99.9 and max.
 *
 * <p>Why not JMH's sample mode: it times batches of calls when a call is shorter than its timer
 * granularity, and its percentiles then describe batches. A fork's tail is a property of single
 * forks (one late pick-up, one preempted thread), so each fork here gets its own two clock reads
 * (tens of nanoseconds apiece) and its own slot in a preallocated array.
 *
 * <p>Cases, each on the same pool of {@code threads} threads (the caller included):
 * <ul>
 * <li>{@code forThreads}, {@code forN} (n = threads) and {@code forSlices} (n = threads), so every
 * thread runs exactly one share; each {@code busy} (one {@link Work#burn} slice of
 * {@code iterations} steps per share) and {@code empty} (a share that stores one long), each with the
 * idle workers {@link Mood#PARKED} and {@link Mood#GRINDING};</li>
 * <li>{@code forkJoin}: the JDK's {@link ForkJoinPool} of {@code threads - 1} workers on the same
 * shares, the caller running share 0 and joining the rest ({@code ForkJoinTask}s are single-use, so
 * one is made per fork, as any user would);</li>
 * <li>{@code serial}: one busy share on the calling thread alone: the machine's own preemption floor,
 * which no pool can beat;</li>
 * <li>{@code serialPair}: the slower of each two consecutive {@code serial} slices (half as many
 * samples): a perfect pool's fork of two threads, whose p99 / p50 is the lowest a two-thread fork's
 * can be on this machine;</li>
 * <li>{@code pingpong}: a value bounced between the caller and one spinning partner thread, no pool:
 * the machine's own cross-CPU round trip, the floor of an empty fork. Where it moves between rounds
 * (a hypervisor placing the two vCPUs nearer or farther apart), empty forks move with it, whatever
 * the build.</li>
 * </ul>
 * Back to back, as a model's layers fork one after another; {@code gapMicros} inserts a busy pause
 * between forks to model a caller that does other work between them.
 *
 * <p>Before timing, each case runs untimed forks for at least {@code warmupMillis} (2000) and at least
 * {@code forks}, so the JIT has compiled the fork path and its compiler threads are done: while they
 * run they take a CPU from the pool's two threads. Each row ends with the CPU that other processes
 * used while the case was timed, in percent of one core (Linux only), so that a round disturbed by
 * the machine shows as such. Both clocks behind it tick in 10 ms steps, so for a case timed in well
 * under a second (empty forks, {@code pingpong}) the column is only a rough hint.
 *
 * <p>It uses only uform's public API, so the same class runs against any build's
 * {@code uform-java} jar: {@code benchmarks/fork-tail.sh} compares two commits with it, rounds
 * interleaved.
 *
 * <p>Usage: {@code java -cp <classes>:<uform-java.jar>:<jna.jar> io.uform.bench.ForkTailLatencyBenchmark
 * [key=value...]} with keys {@code forks} (200000), {@code threads} (2), {@code iterations} (3100,
 * about 5 us on this project's machines; 0 calibrates to 5 us), {@code cases} (a comma list of case
 * name prefixes, default all), {@code gapMicros} (0), {@code warmupMillis} (2000), {@code label}
 * (printed in every row). Output: one tab-separated row per case,
 * {@code label case p50 p90 p99 p99.9 max others} in microseconds, others in percent of a core.
 */
public final class ForkTailLatencyBenchmark {

	/** Longs between two shares' sink slots: 128 bytes, two cache lines (adjacent-line prefetch). */
	private static final int PAD = 16;

	private static final double[] PERCENTILES = { 50, 90, 99, 99.9 };

	private final int threads;

	private final int forks;

	private final long iterations;

	private final long gapNanos;

	private final long warmupNanos;

	private final long[] sink;

	private final long[] latencies;

	/** Other processes' CPU while the last case was timed, percent of one core; NaN where unknown. */
	private double othersPercent;

	private ForkTailLatencyBenchmark(int threads, int forks, long iterations, long gapNanos, long warmupNanos) {
		this.threads = threads;
		this.forks = forks;
		this.iterations = iterations;
		this.gapNanos = gapNanos;
		this.warmupNanos = warmupNanos;
		this.sink = new long[(threads + 1) * PAD];
		this.latencies = new long[forks];
	}

	/**
	 * Runs the cases and prints one row each.
	 * @param args {@code key=value} settings, see the class comment
	 */
	public static void main(String[] args) {
		Settings settings = Settings.parse(args);
		long iterations = (settings.iterations > 0) ? settings.iterations : Work.calibrate(5_000);
		ForkTailLatencyBenchmark bench = new ForkTailLatencyBenchmark(settings.threads, settings.forks, iterations,
				settings.gapMicros * 1_000L, settings.warmupMillis * 1_000_000L);
		System.out.printf(Locale.ROOT, "# forks=%d threads=%d iterations=%d gapMicros=%d java=%s cpus=%d%n", settings.forks,
				settings.threads, iterations, settings.gapMicros, System.getProperty("java.version"),
				Runtime.getRuntime().availableProcessors());
		System.out.println("# label\tcase\tp50\tp90\tp99\tp99.9\tmax (microseconds)\tothers (% of a core)");
		for (String name : bench.caseNames()) {
			if (settings.selects(name)) {
				bench.report(settings.label, name, bench.run(name), bench.othersPercent);
			}
		}
	}

	private List<String> caseNames() {
		List<String> names = new ArrayList<>();
		names.add("serial-busy");
		names.add("serialPair-busy");
		names.add("pingpong-empty");
		for (String api : new String[] { "forThreads", "forN", "forSlices" }) {
			for (String work : new String[] { "busy", "empty" }) {
				for (Mood mood : new Mood[] { Mood.PARKED, Mood.GRINDING }) {
					names.add(api + "-" + work + "-" + mood.name().toLowerCase(Locale.ROOT));
				}
			}
		}
		names.add("forkJoin-busy");
		names.add("forkJoin-empty");
		return names;
	}

	/** Times {@link #forks} forks of one case (after as many unrecorded ones) into {@link #latencies}. */
	private long[] run(String name) {
		String[] parts = name.split("-");
		boolean busy = parts[1].equals("busy");
		Share share = busy ? this::burn : this::touch;
		if (parts[0].equals("serial")) {
			return time(() -> share.run(0));
		}
		if (parts[0].equals("serialPair")) {
			return slowerOfTwo(time(() -> share.run(0)));
		}
		if (parts[0].equals("pingpong")) {
			return pingPong();
		}
		if (parts[0].equals("forkJoin")) {
			ForkJoinPool pool = new ForkJoinPool(Math.max(1, this.threads - 1));
			try {
				return time(() -> forkJoin(pool, share));
			}
			finally {
				pool.shutdownNow();
			}
		}
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(this.threads))) {
			executor.drain(Mood.valueOf(parts[2].toUpperCase(Locale.ROOT)));
			int n = this.threads;
			return switch (parts[0]) {
				case "forThreads" -> time(() -> executor.forThreads((thread, colocation) -> share.run(thread)));
				case "forN" -> time(() -> executor.forN(n, (index, thread, colocation) -> share.run(index)));
				case "forSlices" -> time(() -> executor.forSlices(n, (first, length, thread, colocation) -> share.run(first)));
				default -> throw new IllegalArgumentException("unknown case " + name);
			};
		}
	}

	/**
	 * The slower of each two consecutive serial slices: what a perfect pool's fork of two threads, one
	 * slice each, would take if each thread met the machine's preemptions independently. Its p99 is
	 * a single slice's p99.5, the floor of a two-thread fork's p99 here.
	 */
	private static long[] slowerOfTwo(long[] slices) {
		long[] pairs = new long[slices.length / 2];
		for (int i = 0; i < pairs.length; i++) {
			pairs[i] = Math.max(slices[2 * i], slices[2 * i + 1]);
		}
		return pairs;
	}

	/** Times round trips of a value between this thread and a partner that spins for it. */
	private long[] pingPong() {
		AtomicLong ball = new AtomicLong();
		Thread partner = new Thread(() -> CrossCpuLevels.bounce(ball), "pingpong-partner");
		partner.setDaemon(true);
		partner.start();
		long[] next = { 1 };
		try {
			return time(() -> {
				long serve = next[0];
				ball.set(serve);
				while (ball.get() != serve + 1) {
					Thread.onSpinWait();
				}
				next[0] = serve + 2;
			});
		}
		finally {
			ball.set(-1);
		}
	}

	private void forkJoin(ForkJoinPool pool, Share share) {
		ForkJoinTask<?>[] rest = new ForkJoinTask<?>[this.threads - 1];
		for (int t = 1; t < this.threads; t++) {
			int index = t;
			rest[t - 1] = pool.submit(() -> share.run(index));
		}
		share.run(0);
		for (ForkJoinTask<?> task : rest) {
			task.join();
		}
	}

	private long[] time(Runnable fork) {
		long[] out = this.latencies;
		// Untimed forks first: the JIT compiles the fork path and the share, and its threads go quiet.
		long warmUntil = System.nanoTime() + this.warmupNanos;
		for (int i = 0; i < out.length || System.nanoTime() - warmUntil < 0; i++) {
			fork.run();
			pause();
		}
		OthersCpu others = OthersCpu.start();
		for (int i = 0; i < out.length; i++) {
			long start = System.nanoTime();
			fork.run();
			out[i] = System.nanoTime() - start;
			pause();
		}
		this.othersPercent = others.percent();
		return out;
	}

	/** A busy gap between forks (not a sleep: a sleep measures the timer, not the pool). */
	private void pause() {
		if (this.gapNanos > 0) {
			long until = System.nanoTime() + this.gapNanos;
			while (System.nanoTime() - until < 0) {
				Thread.onSpinWait();
			}
		}
	}

	private void burn(int share) {
		this.sink[(share + 1) * PAD] = Work.burn(this.iterations, share);
	}

	private void touch(int share) {
		this.sink[(share + 1) * PAD]++;
	}

	private void report(String label, String name, long[] nanos, double others) {
		Arrays.sort(nanos);
		StringBuilder row = new StringBuilder(label).append('\t').append(name);
		for (double p : PERCENTILES) {
			row.append('\t').append(micros(nanos[(int) Math.min(nanos.length - 1, Math.ceil(p / 100 * nanos.length) - 1)]));
		}
		row.append('\t').append(micros(nanos[nanos.length - 1]));
		row.append('\t').append(Double.isNaN(others) ? "-" : String.format(Locale.ROOT, "%.1f", others));
		System.out.println(row);
	}

	private static String micros(long nanos) {
		return String.format(Locale.ROOT, "%.3f", nanos / 1000.0);
	}

	/** One thread's share of a fork. */
	@FunctionalInterface
	private interface Share {

		void run(int share);

	}

	/**
	 * The CPU time the whole machine spent outside this JVM over an interval: busy time from
	 * {@code /proc/stat} less this process's own CPU time.
	 */
	private record OthersCpu(long machineJiffies, long processNanos, long wallNanos) {

		/** Linux's USER_HZ, the unit of /proc/stat, on every architecture the JDK runs on. */
		private static final double NANOS_PER_JIFFY = 10_000_000.0;

		static OthersCpu start() {
			return new OthersCpu(machineBusyJiffies(), processCpuNanos(), System.nanoTime());
		}

		double percent() {
			long machine = machineBusyJiffies();
			if (machine < 0 || this.machineJiffies < 0) {
				return Double.NaN;
			}
			double others = (machine - this.machineJiffies) * NANOS_PER_JIFFY - (processCpuNanos() - this.processNanos);
			return Math.max(0, 100 * others / (System.nanoTime() - this.wallNanos));
		}

		/** Busy jiffies of all CPUs (every field of the "cpu" line but idle and iowait); -1 off Linux. */
		private static long machineBusyJiffies() {
			try {
				String[] fields = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0).trim().split("\\s+");
				long busy = 0;
				for (int i = 1; i < fields.length; i++) {
					if (i != 4 && i != 5) {
						busy += Long.parseLong(fields[i]);
					}
				}
				return busy;
			}
			catch (java.io.IOException | RuntimeException ex) {
				return -1;
			}
		}

		private static long processCpuNanos() {
			return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
				.getProcessCpuTime();
		}

	}

	/** The command line's {@code key=value} settings. */
	private record Settings(int forks, int threads, long iterations, List<String> cases, long gapMicros, long warmupMillis,
			String label) {

		private static final String KEYS = "forks, threads, iterations, cases, gapMicros, warmupMillis, label";

		static Settings parse(String[] args) {
			int forks = 200_000;
			int threads = 2;
			long iterations = 3_100;
			List<String> cases = List.of();
			long gap = 0;
			long warmup = 2_000;
			String label = "uform";
			for (String arg : args) {
				int eq = arg.indexOf('=');
				if (eq < 1) {
					throw new IllegalArgumentException("'" + arg + "' is not key=value; keys: " + KEYS);
				}
				String key = arg.substring(0, eq);
				String value = arg.substring(eq + 1);
				switch (key) {
					case "forks" -> forks = Integer.parseInt(value);
					case "threads" -> threads = Integer.parseInt(value);
					case "iterations" -> iterations = Long.parseLong(value);
					case "cases" -> cases = List.of(value.split(","));
					case "gapMicros" -> gap = Long.parseLong(value);
					case "warmupMillis" -> warmup = Long.parseLong(value);
					case "label" -> label = value;
					default -> throw new IllegalArgumentException("unknown key '" + key + "'; keys: " + KEYS);
				}
			}
			if (forks < 1 || threads < 2) {
				throw new IllegalArgumentException("forks must be at least 1 and threads at least 2 (a fork of one thread has no tail)");
			}
			return new Settings(forks, threads, iterations, cases, gap, warmup, label);
		}

		boolean selects(String name) {
			return this.cases.isEmpty() || this.cases.stream().anyMatch(name::startsWith);
		}

	}

}
