package io.uform.mesh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Races between processes of a job (threads here, through the same files): two claims of one index
 * at the same moment, and a new run of a job starting while the last process of the previous run
 * removes its directory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FileRendezvousRaceTest {

	@TempDir
	Path directory;

	@Test
	void aMemberRecordIsClaimedExclusivelySoOfTwoClaimsAtOnceOneLoses() throws IOException {
		// A rename replaced the first claimer's record with the second's, and the second could join while
		// the first found out only at its next poll, after the run had joined.
		Path job = Files.createDirectories(this.directory.resolve("job"));
		new JobFiles(job, "first").claim("member-0.properties", "first".getBytes(StandardCharsets.UTF_8));
		assertThatThrownBy(() -> new JobFiles(job, "second").claim("member-0.properties",
				"second".getBytes(StandardCharsets.UTF_8)))
			.isInstanceOf(FileAlreadyExistsException.class);
		assertThat(job.resolve("member-0.properties")).hasContent("first");
		try (Stream<Path> files = Files.list(job)) {
			assertThat(files.map((file) -> file.getFileName().toString())).containsExactly("member-0.properties");
		}
	}

	/**
	 * The last process out of a run has seen every left file and decided to remove the directory, and
	 * is delayed (a GC pause, an NFS stall) while a new run of the job starts; it goes on at a point that
	 * differs by trial: at once, once both new processes wrote their records, once one wrote its ready
	 * file, or once the new run joined. Whatever the point, both new processes must join. Before, the
	 * rename took the new run's files: a process's record went (it writes it again), its ready file went
	 * (it did not), and a process that had returned kept its peer waiting for a ready file that never
	 * came back. This test counted only failures saying "cannot use", and started the new run when the
	 * old one had mostly removed its directory already, so it could hardly fail.
	 */
	@Test
	void aNewRunStartingWhileTheLastOneOutRemovesTheDirectoryJoins() throws Exception {
		List<String> failures = new ArrayList<>();
		Path job = this.directory.resolve("job");
		List<Predicate<Set<String>>> points = List.of((names) -> true,
				(names) -> names.containsAll(Set.of("member-0.properties", "member-1.properties")),
				(names) -> names.contains("ready-0.properties") || names.contains("ready-1.properties"),
				(names) -> names.containsAll(Set.of("ready-0.properties", "ready-1.properties")));
		for (int trial = 0; trial < 4 * points.size(); trial++) {
			Predicate<Set<String>> resume = points.get(trial % points.size());
			// The old run sees the directory through an observed file system, which holds its last one out
			// just before it renames the directory away: after it decided, from its listing, to remove it.
			Path observed = ObservedFileSystem.observe(this.directory);
			List<CompletableFuture<FileRendezvous>> old = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				MemberRecord self = FileRendezvous.announce("job", i, 2, 1, false, Duration.ofSeconds(10), List.of());
				old.add(CompletableFuture.supplyAsync(() -> FileRendezvous.join(observed, self),
						FileRendezvousRaceTest::thread));
			}
			FileRendezvous a = old.get(0).get(20, TimeUnit.SECONDS);
			FileRendezvous b = old.get(1).get(20, TimeUnit.SECONDS);
			CountDownLatch decided = new CountDownLatch(1);
			CountDownLatch goOn = new CountDownLatch(1);
			a.leave();
			ObservedFileSystem.of(observed).beforeMovingInto((name) -> name.startsWith(".job.removed-"), () -> {
				decided.countDown();
				await(goOn);
			});
			CompletableFuture<Void> leaving = CompletableFuture.runAsync(b::leave, FileRendezvousRaceTest::thread);
			assertThat(decided.await(20, TimeUnit.SECONDS)).as("the last one out decided to remove the directory").isTrue();

			CyclicBarrier go = new CyclicBarrier(2);
			List<CompletableFuture<FileRendezvous>> fresh = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				MemberRecord self = FileRendezvous.announce("job", i, 2, 1, false, Duration.ofSeconds(5), List.of());
				fresh.add(at(go, () -> FileRendezvous.join(this.directory, self)));
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (!resume.test(names(job)) && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			goOn.countDown();
			leaving.get(20, TimeUnit.SECONDS);
			List<FileRendezvous> joined = new ArrayList<>();
			for (CompletableFuture<FileRendezvous> f : fresh) {
				try {
					joined.add(f.get(20, TimeUnit.SECONDS));
				}
				catch (ExecutionException ex) {
					failures.add("trial " + trial + ": " + ex.getCause());
				}
			}
			joined.forEach(FileRendezvous::leave);
			Set<String> left = names(this.directory);
			if (joined.size() == 2 && !left.isEmpty()) {
				// Both runs ended cleanly: neither a job directory nor a remover's grave may be left.
				failures.add("trial " + trial + ": left behind " + left);
			}
			try (Stream<Path> walk = Files.walk(this.directory)) {
				walk.sorted(Comparator.reverseOrder()).filter((p) -> !p.equals(this.directory)).forEach((p) -> p.toFile().delete());
			}
		}
		assertThat(failures).as("new processes that failed to join").isEmpty();
	}

	private static Set<String> names(Path directory) {
		try (Stream<Path> files = Files.list(directory)) {
			return files.map((file) -> file.getFileName().toString()).collect(Collectors.toSet());
		}
		catch (IOException ex) {
			// Renamed away at this moment: nothing there.
			return Set.of();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static <T> CompletableFuture<T> at(CyclicBarrier go, java.util.function.Supplier<T> what) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				go.await();
			}
			catch (Exception ex) {
				throw new RuntimeException(ex);
			}
			return what.get();
		}, FileRendezvousRaceTest::thread);
	}

	/** Runs a task on a thread of its own: a process of the race. */
	private static void thread(Runnable task) {
		new Thread(task).start();
	}
}
