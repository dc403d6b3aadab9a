package io.uform.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.uform.UformException;
import io.uform.mesh.FileRendezvous;
import io.uform.mesh.MemberRecord;

/**
 * What the mesh protocol asks of the file system per joining process as the run grows: one real
 * process joins (and leaves) through {@link FileRendezvous} while the harness plays the other N−1
 * members' files in the same JVM, and a {@link FileSystemCounter} under the real process counts its
 * directory listings (and the names they return), file reads and writes, lookups, renames, links and
 * deletions.
 *
 * <h2>Method</h2>
 * Per round, a fresh directory on local disk and job name. The played members write what their
 * processes would, whole to a temp file and renamed into place: a member record each (as from other
 * hosts, {@code sim-node-<j>}, so that no local pid check runs for them), then, once the real
 * process's record is there too, their {@code ready} files; after the real process returns they
 * leave ({@code left-<j>}, their record removed) so that the real one is the last out and removes the
 * directory. Two scenarios:
 * <ul>
 * <li>{@code together}: every process arrives at once. The harness starts writing the N−1 records
 *     as the real process starts its join, so the join sees them arrive over several polls.</li>
 * <li>{@code last}: the real process arrives last: the N−1 records are there before it starts.</li>
 * </ul>
 * The join's wall time is from the call to {@link FileRendezvous#join} until it returns, printed with
 * the joining thread's CPU time meanwhile (the protocol's own work; the rest is waiting) and when the
 * last played {@code ready} file was in place (the harness writes one file after another, so at large
 * N that, not the protocol, bounds the join). The leave's is the call to {@link FileRendezvous#leave()}
 * of the last process out. The JVM is warmed by one untimed round; a real process joins once, cold
 * (see {@link MeshJoinBenchmark} for that).
 *
 * <p>Target: per-process work O(N) (each record read once, listings bounded independently of N)
 * and a run of 1024 joined in under {@value #TARGET_SECONDS} s. Exits 1 if a round failed or left its
 * directory behind, 2 if the time target was missed; the last line's verdict speaks only of the rounds
 * of 1024 that joined.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.uform.bench.MeshScaleBenchmark [counts] [rounds]
 * [directory]}, defaults {@code 2,8,64,256,1024}, {@code 5} and {@code java.io.tmpdir}.
 */
public final class MeshScaleBenchmark {

	private static final int TARGET_COUNT = 1024;

	private static final long TARGET_SECONDS = 5;

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private static final List<String> SCENARIOS = List.of("together", "last");

	private MeshScaleBenchmark() {
	}

	/**
	 * Runs every round of every scenario and count; prints one line per round and a summary table.
	 * @param args optional counts, rounds and parent directory
	 * @throws Exception if the harness cannot write its files
	 */
	public static void main(String[] args) throws Exception {
		int[] counts = Arrays.stream(((args.length > 0) ? args[0] : "2,8,64,256,1024").split(","))
			.mapToInt((count) -> Integer.parseInt(count.trim()))
			.toArray();
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
		Path root = Path.of((args.length > 2) ? args[2] : System.getProperty("java.io.tmpdir"));
		System.out.printf(Locale.ROOT, "MeshScaleBenchmark: members %s, %d rounds, directory under %s, %s %s, %d cores%n",
				Arrays.toString(counts), rounds, root, System.getProperty("java.vm.name"), System.getProperty("java.version"),
				Runtime.getRuntime().availableProcessors());
		runRound(root, "together", 8, -1);

		List<String> summary = new ArrayList<>();
		boolean failed = false;
		boolean missed = false;
		// Rounds of the target's size that joined: the verdict speaks only of those.
		int targetRounds = 0;
		for (String scenario : SCENARIOS) {
			for (int count : counts) {
				List<Round> results = new ArrayList<>();
				for (int round = 0; round < rounds; round++) {
					Round result = runRound(root, scenario, count, round);
					System.out.println(result.line(scenario, count, round));
					if (result.failure != null || !result.leftClean) {
						failed = true;
						continue;
					}
					results.add(result);
				}
				if (results.isEmpty()) {
					summary.add(String.format(Locale.ROOT, "| %s | %d | failed |", scenario, count));
					continue;
				}
				double join = median(results, (r) -> r.joinNanos) / 1e6;
				double joinMax = results.stream().mapToLong((r) -> r.joinNanos).max().orElse(0) / 1e6;
				if (count == TARGET_COUNT) {
					targetRounds += results.size();
					missed |= joinMax >= TARGET_SECONDS * 1000.0;
				}
				long listings = median(results, (r) -> r.join.listings());
				long names = median(results, (r) -> r.join.listedNames());
				long reads = median(results, (r) -> r.join.reads());
				summary.add(String.format(Locale.ROOT,
						"| %s | %d | %.1f | %.1f | %.1f | %.1f | %d | %d | %d | %.2f | %d | %d | %d | %.1f | %d | %d | %d |",
						scenario, count, join, joinMax, median(results, (r) -> r.joinCpuNanos) / 1e6,
						median(results, (r) -> r.playedNanos) / 1e6, listings, names, reads, (count > 1) ? reads / (double) (count - 1) : 0.0,
						median(results, (r) -> r.join.writes()),
						median(results, (r) -> r.join.renames() + r.join.links()),
						median(results, (r) -> r.join.lookups()), median(results, (r) -> r.leaveNanos) / 1e6,
						median(results, (r) -> r.leave.listings()), median(results, (r) -> r.leave.reads()),
						median(results, (r) -> r.leave.deletes())));
			}
		}
		System.out.println();
		System.out.println("Per joining process (medians over the rounds); times in ms: join = its wall time, join CPU = "
				+ "its thread's CPU time meanwhile, played = when the last played ready file was in place (from the join's "
				+ "start); the real process is the last out, so its leave removes the directory");
		System.out.println("| scenario | members | join | join max | join CPU | played | listings | names listed | reads "
				+ "| reads per peer | writes | renames + links | lookups | leave | leave listings | leave reads "
				+ "| leave deletes |");
		System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
		summary.forEach(System.out::println);
		System.out.println(verdict(counts, rounds, targetRounds, missed));
		if (failed) {
			System.exit(1);
		}
		if (missed) {
			System.exit(2);
		}
	}

	/** The time target's verdict, saying how many rounds of its size it rests on, if any. */
	private static String verdict(int[] counts, int rounds, int targetRounds, boolean missed) {
		String target = String.format(Locale.ROOT, "target (%d members joined in under %d s): ", TARGET_COUNT, TARGET_SECONDS);
		if (Arrays.stream(counts).noneMatch((count) -> count == TARGET_COUNT)) {
			return target + "not measured, no run of " + TARGET_COUNT + " members was asked for";
		}
		if (targetRounds == 0) {
			return target + "not measured, every round of " + TARGET_COUNT + " members failed";
		}
		int asked = rounds * SCENARIOS.size();
		String over = (targetRounds == asked) ? "all " + asked + " rounds"
				: "the " + targetRounds + " of " + asked + " rounds that joined (the others failed)";
		return target + (missed ? "MISSED, a join took " + TARGET_SECONDS + " s or more in " : "met in ") + over;
	}

	private static long median(List<Round> rounds, ToLongFunction<Round> value) {
		long[] values = rounds.stream().mapToLong(value).sorted().toArray();
		return values[(values.length - 1) / 2];
	}

	/** One round's figures for the real process. */
	private static final class Round {

		long joinNanos;

		/** CPU time of the joining thread during the join: the protocol's own work, without the waits. */
		long joinCpuNanos;

		/** From the join's start until the last played member's ready file was in place. */
		long playedNanos;

		long leaveNanos;

		FileSystemCounter.Counts join;

		FileSystemCounter.Counts leave;

		boolean leftClean;

		String failure;

		String line(String scenario, int count, int round) {
			if (this.failure != null) {
				return String.format(Locale.ROOT, "%s N=%d round %d: FAILED: %s", scenario, count, round, this.failure);
			}
			return String.format(Locale.ROOT, "%s N=%d round %d: join %.1f ms (CPU %.1f ms, played files in place at %.1f ms) "
					+ "%s; leave %.1f ms %s%s", scenario, count, round, this.joinNanos / 1e6, this.joinCpuNanos / 1e6,
					this.playedNanos / 1e6, this.join, this.leaveNanos / 1e6, this.leave,
					this.leftClean ? "" : "  JOB DIRECTORY LEFT BEHIND");
		}
	}

	private static Round runRound(Path root, String scenario, int count, int round) throws Exception {
		Path parent = Files.createTempDirectory(root, "uform-mesh-scale-");
		String job = String.format(Locale.ROOT, "scale-%s-n%d-r%d", scenario, count, round);
		Round result = new Round();
		try {
			FileSystemCounter files = new FileSystemCounter();
			Path counted = files.counting(parent);
			MemberRecord self = FileRendezvous.announce(job, 0, count, 1, false, TIMEOUT, List.of());
			PlayedMembers played = new PlayedMembers(parent.resolve(job), self);
			if (scenario.equals("last")) {
				played.arrive();
			}
			Thread harness = new Thread(() -> {
				if (scenario.equals("together")) {
					played.arrive();
				}
				played.getReadyOnceTheRealRecordIsThere();
			}, "played-members");
			harness.setDaemon(true);
			ThreadMXBean threads = ManagementFactory.getThreadMXBean();
			long started = System.nanoTime();
			played.started = started;
			long cpuBefore = threads.getCurrentThreadCpuTime();
			harness.start();
			FileRendezvous joined;
			try {
				joined = FileRendezvous.join(counted, self);
			}
			catch (UformException ex) {
				result.failure = ex.getMessage();
				return result;
			}
			result.joinNanos = System.nanoTime() - started;
			result.joinCpuNanos = threads.getCurrentThreadCpuTime() - cpuBefore;
			result.join = files.counts();
			harness.join(TimeUnit.SECONDS.toMillis(30));
			result.playedNanos = played.readyNanos;
			if (played.failure != null) {
				result.failure = "the harness failed: " + played.failure;
				return result;
			}
			played.leave();
			FileSystemCounter.Counts before = files.counts();
			started = System.nanoTime();
			joined.leave();
			result.leaveNanos = System.nanoTime() - started;
			result.leave = files.counts().minus(before);
			result.leftClean = !Files.exists(parent.resolve(job));
			return result;
		}
		finally {
			JobDirectories.deleteRecursively(parent);
		}
	}

	/**
	 * The other N−1 members of a run, played by writing their files as their processes would: each whole
	 * to a temp file, then renamed into place. Their records claim other hosts.
	 */
	private static final class PlayedMembers {

		private final Path job;

		private final MemberRecord self;

		private final List<MemberRecord> records = new ArrayList<>();

		volatile Throwable failure;

		/** When the join started, by {@link System#nanoTime()}. */
		volatile long started;

		/** How long after {@link #started} the last ready file was in place. */
		volatile long readyNanos;

		PlayedMembers(Path job, MemberRecord self) {
			this.job = job;
			this.self = self;
			Instant now = Instant.now();
			for (int index = 0; index < self.count(); index++) {
				if (index == self.index()) {
					continue;
				}
				ThreadLocalRandom random = ThreadLocalRandom.current();
				this.records.add(new MemberRecord(FileRendezvous.PROTOCOL, self.job(), index, self.count(), 1, false,
						new UUID(random.nextLong(), random.nextLong()).toString(), "sim-node-" + index, "", 1000 + index,
						null, now, TIMEOUT, now, List.of()));
			}
		}

		/** Every played member writes its record. */
		void arrive() {
			try {
				Files.createDirectories(this.job);
				for (MemberRecord record : this.records) {
					write("member-" + record.index() + ".properties", record.toBytes());
				}
			}
			catch (IOException | RuntimeException ex) {
				this.failure = ex;
			}
		}

		/**
		 * Once the real process's record is there, every played member has read every record: each
		 * writes its {@code ready} file.
		 */
		void getReadyOnceTheRealRecordIsThere() {
			try {
				Path real = this.job.resolve("member-" + this.self.index() + ".properties");
				long deadline = System.nanoTime() + TIMEOUT.toNanos();
				while (!Files.exists(real)) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException(real + " never appeared");
					}
					Thread.sleep(0, 200_000);
				}
				for (MemberRecord record : this.records) {
					write("ready-" + record.index() + ".properties", marker("ready", record));
				}
				this.readyNanos = System.nanoTime() - this.started;
			}
			catch (IOException | InterruptedException | RuntimeException ex) {
				this.failure = ex;
			}
		}

		/** Every played member leaves before the real one, which is then the last out. */
		void leave() throws IOException {
			for (MemberRecord record : this.records) {
				write("left-" + record.index() + ".properties", marker("left", record));
				Files.delete(this.job.resolve("member-" + record.index() + ".properties"));
			}
		}

		private void write(String name, byte[] bytes) throws IOException {
			Path temp = this.job.resolve(".tmp-played-" + name);
			Files.write(temp, bytes);
			Files.move(temp, this.job.resolve(name), StandardCopyOption.ATOMIC_MOVE);
		}

		/**
		 * A {@code ready} or {@code left} file, with the keys the package's description lists. Written by
		 * hand because the engine's writer is package-private: should the two differ, the real process
		 * takes no played member for ready, and every round fails.
		 */
		private static byte[] marker(String kind, MemberRecord writer) {
			Instant now = Instant.now();
			return ("uform.mesh.protocol=" + FileRendezvous.PROTOCOL + "\nmarker.kind=" + kind + "\nmarker.index="
					+ writer.index() + "\nmarker.count=" + writer.count() + "\nmarker.incarnation=" + writer.incarnation()
					+ "\nmarker.host=" + writer.host() + "\nmarker.pid=" + writer.pid() + "\nmarker.written="
					+ (now.getEpochSecond() * 1_000_000_000L + now.getNano()) + "\n").getBytes(StandardCharsets.ISO_8859_1);
		}
	}
}
