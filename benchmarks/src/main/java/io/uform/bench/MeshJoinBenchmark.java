package io.uform.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.uform.Executor;
import io.uform.ExecutorForVramConfig;
import io.uform.GpuDevice;
import io.uform.GpuVendor;
import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshOptions;
import io.uform.Uform;

/**
 * How long a mesh takes to close once its last process has arrived: for N local processes
 * (separate JVMs, one simulated device each) meeting in a directory on local disk, the time from
 * the last process's arrival until every process has returned from {@link Mesh#bootstrap}.
 *
 * <h2>Method</h2>
 * Per round, the parent makes a fresh temporary directory and job name and starts N child JVMs
 * ({@link Member}), each with {@code -Duform.devices.simulated=1}. Each child makes a VRAM executor
 * on its simulated device, then reads the wall clock ({@link Instant#now()}, in epoch
 * microseconds) just before {@code Mesh.bootstrap} ("arrival") and just after it returns
 * ("returned"), prints both, frees the mesh and the executor and exits. All children run on this
 * machine, so their clocks are one clock. The round's join time is
 * {@code max(returned) - max(arrival)}: the children start at different moments (JVM start-up,
 * class loading), and that spread is not the mesh's; what is the mesh's is how long the others
 * take to notice the last one, and the last one to see them all. Printed beside it for context:
 * the last arrival's own bootstrap ({@code returned - arrival} of the process that arrived last: a
 * lower bound of the join, the part no polling interval can shorten), the CPU time its
 * bootstrapping thread used meanwhile (the rest of that time it slept between polls or waited for a
 * core) and the arrival spread ({@code max(arrival) - min(arrival)}).
 *
 * <p>Every child is bounded: one that has not exited {@code timeout + 30 s} after the round started
 * is killed (by its own process handle) and the round counts as failed. After each round the parent
 * checks that the job directory is gone (the last process out removes it) and deletes the temporary
 * directory.
 *
 * <p>With {@code -Duform.bench.warm=true} on the parent, each child first exercises the JDK
 * facilities a bootstrap uses (properties text, {@code java.time} formatting, file writes, atomic
 * renames and listings in a scratch directory of its own, and this process's own handle, which
 * Spring Boot's start reads the pid from for its first log line), as an application's own start-up has
 * long done by the time it joins a mesh: the join then measures the rendezvous, not the loading and
 * first compilation of JDK classes in a JVM that has done nothing else. Nothing of uform's mesh
 * code is warmed.
 *
 * <p>Target: median join time under {@value #TARGET_MILLIS} ms at 8 processes on local disk. Exits
 * 1 if a round failed, 2 if the target was missed.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.uform.bench.MeshJoinBenchmark [counts] [rounds]
 * [directory]}, defaults {@code 2,4,8}, {@code 10} and {@code java.io.tmpdir}.
 */
public final class MeshJoinBenchmark {

	private static final double TARGET_MILLIS = 100;

	private static final int TARGET_COUNT = 8;

	/** The mesh's own timeout in each child. */
	private static final Duration MESH_TIMEOUT = Duration.ofSeconds(60);

	/** How long past the mesh's timeout a child may live before it is killed. */
	private static final Duration GRACE = Duration.ofSeconds(30);

	private MeshJoinBenchmark() {
	}

	/**
	 * Runs every round for every count and prints one line per round and a summary table.
	 * @param args optional counts ({@code 2,4,8}), rounds ({@code 10}) and parent directory
	 * @throws Exception if a child cannot be started or its output read
	 */
	public static void main(String[] args) throws Exception {
		int[] counts = Arrays.stream(((args.length > 0) ? args[0] : "2,4,8").split(","))
			.mapToInt(count -> Integer.parseInt(count.trim()))
			.toArray();
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 10;
		Path parent = Path.of((args.length > 2) ? args[2] : System.getProperty("java.io.tmpdir"));
		System.out.printf(Locale.ROOT, "MeshJoinBenchmark: processes %s, %d rounds, directory under %s, %s %s, %d cores%n",
				Arrays.toString(counts), rounds, parent, System.getProperty("java.vm.name"),
				System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());

		List<String> summary = new ArrayList<>();
		boolean failed = false;
		Double medianAtTarget = null;
		for (int count : counts) {
			List<Double> joins = new ArrayList<>();
			List<Double> spreads = new ArrayList<>();
			List<Double> lastOwns = new ArrayList<>();
			List<Double> lastOwnCpus = new ArrayList<>();
			int failures = 0;
			for (int round = 0; round < rounds; round++) {
				Round result = runRound(parent, count, round);
				if (result.failure != null) {
					failures++;
					System.out.printf(Locale.ROOT, "N=%d round %2d: FAILED: %s%n", count, round, result.failure);
					continue;
				}
				joins.add(result.joinMillis);
				spreads.add(result.spreadMillis);
				lastOwns.add(result.lastOwnMillis);
				lastOwnCpus.add(result.lastOwnCpuMillis);
				System.out.printf(Locale.ROOT, "N=%d round %2d: join %8.2f ms  (last arrival's own bootstrap %8.2f ms, "
						+ "of which CPU %7.2f ms, arrival spread %8.1f ms)%s%n", count, round, result.joinMillis,
						result.lastOwnMillis, result.lastOwnCpuMillis,
						result.spreadMillis, result.leftClean ? "" : "  JOB DIRECTORY LEFT BEHIND");
				if (!result.leftClean) {
					failures++;
				}
			}
			failed |= failures > 0;
			if (joins.isEmpty()) {
				summary.add(String.format(Locale.ROOT, "| %d | %d | - | - | - | - | - | - | %d |", count, rounds, failures));
				continue;
			}
			Collections.sort(joins);
			Collections.sort(spreads);
			Collections.sort(lastOwns);
			Collections.sort(lastOwnCpus);
			double median = percentile(joins, 50);
			if (count == TARGET_COUNT) {
				medianAtTarget = median;
			}
			summary.add(String.format(Locale.ROOT, "| %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %d |",
					count, joins.size(), median, percentile(joins, 90), joins.get(joins.size() - 1),
					percentile(lastOwns, 50), percentile(lastOwnCpus, 50), percentile(spreads, 50), failures));
		}

		System.out.println();
		System.out.println("join = max(returned) - max(arrival); last's own = returned - arrival of the last to arrive; "
				+ "its CPU = CPU time of its bootstrapping thread meanwhile; spread = max(arrival) - min(arrival); all ms");
		System.out.println("| processes | rounds | join median | join p90 | join max | last's own, median "
				+ "| its CPU, median | arrival spread, median | failed rounds |");
		System.out.println("|---|---|---|---|---|---|---|---|---|");
		summary.forEach(System.out::println);
		if (medianAtTarget != null) {
			System.out.printf(Locale.ROOT, "target: median at %d processes < %.0f ms: %.1f ms, %s%n", TARGET_COUNT,
					TARGET_MILLIS, medianAtTarget, (medianAtTarget < TARGET_MILLIS) ? "met" : "MISSED");
		}
		if (failed) {
			System.exit(1);
		}
		if (medianAtTarget != null && medianAtTarget >= TARGET_MILLIS) {
			System.exit(2);
		}
	}

	/** Nearest-rank percentile of sorted values. */
	private static double percentile(List<Double> sorted, int percent) {
		int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
		return sorted.get(Math.max(0, rank - 1));
	}

	private static final class Round {
		double joinMillis;
		double spreadMillis;
		double lastOwnMillis;
		/** CPU time of the last arrival's bootstrapping thread during its bootstrap. */
		double lastOwnCpuMillis;
		boolean leftClean;
		String failure;
	}

	private static Round runRound(Path parent, int count, int round) throws IOException, InterruptedException {
		Path directory = Files.createTempDirectory(parent, "uform-mesh-bench-");
		String job = String.format(Locale.ROOT, "bench-n%d-r%d-%d", count, round, ProcessHandle.current().pid());
		Round result = new Round();
		List<Process> children = new ArrayList<>();
		try {
			String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
			for (int index = 0; index < count; index++) {
				// C1 only: N JVMs start at once on a few cores, and bootstrap runs once, cold, anyway.
				List<String> command = new ArrayList<>(List.of(java, "-Duform.devices.simulated=1",
						"-Duform.bench.warm=" + Boolean.getBoolean("uform.bench.warm"),
						"-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-cp",
						System.getProperty("java.class.path")));
				command.addAll(List.of(Member.class.getName(), Integer.toString(index), Integer.toString(count),
						directory.toString(), job, Long.toString(MESH_TIMEOUT.toSeconds())));
				ProcessBuilder builder = new ProcessBuilder(command)
					.redirectOutput(directory.resolve("member-" + index + ".out").toFile())
					.redirectError(directory.resolve("member-" + index + ".err").toFile());
				children.add(builder.start());
			}
			long deadline = System.nanoTime() + MESH_TIMEOUT.plus(GRACE).toNanos();
			for (int index = 0; index < count; index++) {
				Process child = children.get(index);
				long left = deadline - System.nanoTime();
				if (!child.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
					result.failure = "member " + index + " (pid " + child.pid() + ") still running after "
							+ MESH_TIMEOUT.plus(GRACE).toSeconds() + " s; killed";
					break;
				}
				if (child.exitValue() != 0) {
					result.failure = "member " + index + " exited " + child.exitValue() + ": "
							+ tail(directory.resolve("member-" + index + ".err"));
					break;
				}
			}
			if (result.failure != null) {
				return result;
			}
			long lastArrival = Long.MIN_VALUE;
			long firstArrival = Long.MAX_VALUE;
			long lastReturn = Long.MIN_VALUE;
			long lastOwn = 0;
			long lastOwnCpu = 0;
			for (int index = 0; index < count; index++) {
				long[] times = readTimes(directory.resolve("member-" + index + ".out"));
				if (times == null) {
					result.failure = "member " + index + " printed no times: "
							+ tail(directory.resolve("member-" + index + ".out"));
					return result;
				}
				if (times[0] > lastArrival) {
					lastOwn = times[1] - times[0];
					lastOwnCpu = times[2];
				}
				lastArrival = Math.max(lastArrival, times[0]);
				firstArrival = Math.min(firstArrival, times[0]);
				lastReturn = Math.max(lastReturn, times[1]);
			}
			result.joinMillis = (lastReturn - lastArrival) / 1000.0;
			result.spreadMillis = (lastArrival - firstArrival) / 1000.0;
			result.lastOwnMillis = lastOwn / 1000.0;
			result.lastOwnCpuMillis = lastOwnCpu / 1000.0;
			result.leftClean = !Files.exists(directory.resolve(job));
			return result;
		}
		finally {
			for (Process child : children) {
				if (child.isAlive()) {
					child.destroyForcibly();
					child.waitFor(10, TimeUnit.SECONDS);
				}
			}
			JobDirectories.deleteRecursively(directory);
		}
	}

	/**
	 * The {@code arrival} and {@code returned} epoch microseconds and the bootstrap's {@code cpu}
	 * microseconds a member printed, or null.
	 */
	private static long[] readTimes(Path output) throws IOException {
		for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
			String[] words = line.trim().split("\\s+");
			if (words.length >= 6 && words[0].equals("arrival") && words[2].equals("returned")
					&& words[4].equals("cpu")) {
				return new long[] { Long.parseLong(words[1]), Long.parseLong(words[3]), Long.parseLong(words[5]) };
			}
		}
		return null;
	}

	private static String tail(Path file) throws IOException {
		String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).strip() : "";
		return (text.length() > 2000) ? "..." + text.substring(text.length() - 2000) : text;
	}

	private static long epochMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	/**
	 * One process of the mesh: {@code index count directory job timeoutSeconds}. Prints
	 * {@code arrival <epoch us> returned <epoch us>} and the mesh's description.
	 */
	public static final class Member {

		private Member() {
		}

		/**
		 * Joins the mesh once and leaves.
		 * @param args index, count, directory, job, timeout in seconds
		 */
		public static void main(String[] args) {
			int index = Integer.parseInt(args[0]);
			int count = Integer.parseInt(args[1]);
			MeshOptions options = new MeshOptions(index, count, null, Path.of(args[2]), args[3],
					Duration.ofSeconds(Long.parseLong(args[4])));
			if (Boolean.getBoolean("uform.bench.warm")) {
				warmTheJdk();
			}
			try (Executor vram = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(simulatedDevice())))) {
				ThreadMXBean threads = ManagementFactory.getThreadMXBean();
				long arrival = epochMicros();
				long cpuBefore = threads.getCurrentThreadCpuTime();
				Mesh mesh = Mesh.bootstrap(vram, options);
				long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
				long returned = epochMicros();
				try {
					System.out.println("arrival " + arrival + " returned " + returned + " cpu " + cpu / 1000);
					MeshDescription description = mesh.describe();
					System.out.println(description);
					if (description.hostDomainIndex() != index || description.hostDomainCount() != count) {
						System.err.println("member " + index + ": the mesh describes itself as " + description);
						System.exit(3);
					}
				}
				finally {
					mesh.free();
				}
			}
		}

		/**
		 * Uses, once, the JDK facilities a bootstrap uses, in a scratch directory of this process's own
		 * (see the class comment); none of uform's code.
		 */
		private static void warmTheJdk() {
			// Spring Boot's ApplicationPid, for "Starting ... with PID": the JDK's process handles are
			// set up (their reaper's executor, a native library) once a process first asks.
			ProcessHandle.current().pid();
			try {
				java.util.Properties properties = new java.util.Properties();
				Instant now = Instant.now();
				properties.setProperty("written", Long.toString(now.getEpochSecond() * 1_000_000_000L + now.getNano()));
				java.io.StringWriter text = new java.io.StringWriter();
				properties.store(text, null);
				properties.load(new java.io.StringReader(text.toString()));
				Long.parseLong(properties.getProperty("written"));
				Path scratch = java.nio.file.Files.createTempDirectory("uform-warm");
				Path file = scratch.resolve(".tmp-a");
				java.nio.file.Files.write(file, text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
				java.nio.file.Files.move(file, scratch.resolve("a"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
				try (java.nio.file.DirectoryStream<Path> names = java.nio.file.Files.newDirectoryStream(scratch)) {
					for (Path name : names) {
						java.nio.file.Files.readAllBytes(name);
						java.nio.file.Files.delete(name);
					}
				}
				java.nio.file.Files.delete(scratch);
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		}

		/** The first simulated device's ordinal (real GPUs, if any, come first). */
		private static int simulatedDevice() {
			List<GpuDevice> devices = Uform.gpuDevices();
			for (int ordinal = 0; ordinal < devices.size(); ordinal++) {
				if (devices.get(ordinal).vendor() == GpuVendor.SIMULATED) {
					return ordinal;
				}
			}
			throw new IllegalStateException("no simulated device: run with -Duform.devices.simulated=1");
		}
	}
}
