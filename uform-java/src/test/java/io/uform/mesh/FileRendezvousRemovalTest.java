package io.uform.mesh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Removing a finished run's directory never takes a live run's files: the last one out of a run
 * decides from a listing that its run finished, then renames the directory away, and in between a new
 * run of the job may have replaced it (see {@link FileRendezvous}, <em>Leave</em>). The tests play the
 * delayed last one out by calling {@link FileRendezvous#removeDirectory} with what it listed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileRendezvousRemovalTest {

	private static final Set<String> OLD_RUN = Set.of("old-0", "old-1");

	private static final Set<String> OLD_LISTING = Set.of("left-0.properties", "left-1.properties");

	@TempDir
	Path directory;

	/**
	 * The new run met after the old run's directory was gone, and its index 1 returned; then the old
	 * run's last one out, delayed since it saw every left file, renamed the new run's directory away
	 * and deleted it. Index 0 waited for a ready file that was gone, and timed out: one process of the
	 * run joined, the other failed. Now the files go back, and index 0 joins.
	 */
	@Test
	void aDelayedLastOneOutOfAnEarlierRunPutsTheNewRunsFilesBack() throws Exception {
		Path job = this.directory.resolve("job");
		MemberRecord zero = FileRendezvous.announce("job", 0, 2, 1, false, Duration.ofSeconds(10), List.of());
		CompletableFuture<FileRendezvous> joining = CompletableFuture.supplyAsync(
				() -> FileRendezvous.join(this.directory, zero), (task) -> new Thread(task).start());
		// Index 1 of the new run, played here: its record, then, once index 0 is ready, its own ready file.
		// Having read both, index 1 returns: from here on it never looks at the directory again.
		MemberRecord one = FileRendezvous.announce("job", 1, 2, 1, false, Duration.ofSeconds(10), List.of());
		awaitFile(job.resolve("member-0.properties"));
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", one.toBytes());
		awaitFile(job.resolve("ready-0.properties"));
		PeerFiles.writeAsAPeerDoes(job, "ready-1.properties", ready(one));

		// Now the old run's last one out carries out the removal it decided on before the new run began.
		boolean tookALiveRun = DirectoryRemoval.removeDirectory(this.directory, "job", "old-1", OLD_RUN, OLD_LISTING);

		assertThat(tookALiveRun).as("whether it saw it had taken a live run's directory").isTrue();
		// Index 1's files are back (index 0 may have written its own again meanwhile), and no grave is left.
		assertThat(names(job)).contains("member-0.properties", "member-1.properties", "ready-0.properties",
				"ready-1.properties");
		assertThat(Files.readAllBytes(job.resolve("member-1.properties"))).isEqualTo(one.toBytes());
		assertThat(names(this.directory)).containsExactly("job");
		try {
			assertThat(joining.get(20, TimeUnit.SECONDS).members()).hasSize(2);
		}
		catch (ExecutionException ex) {
			throw new AssertionError("index 1 returned joined, but index 0 failed: " + ex.getCause().getMessage(),
					ex.getCause());
		}
	}

	/** A finished run's directory goes whole: its left files, its record being removed, an earlier attempt's abort. */
	@Test
	void aFinishedRunsDirectoryIsRemovedWhole() throws IOException {
		Path job = Files.createDirectories(this.directory.resolve("job"));
		Files.writeString(job.resolve("left-0.properties"), marker(0, "old-0"));
		Files.writeString(job.resolve("left-1.properties"), marker(1, "old-1"));
		Files.writeString(job.resolve("ready-1.properties"), marker(1, "old-1"));
		Files.writeString(job.resolve("abort-earlier.properties"), marker(0, "earlier"));
		Files.writeString(job.resolve("not-uform.txt"), "?");
		Set<String> listed = Set.of("left-0.properties", "left-1.properties", "ready-1.properties",
				"abort-earlier.properties", "not-uform.txt");
		assertThat(DirectoryRemoval.removeDirectory(this.directory, "job", "old-1", OLD_RUN, listed)).isFalse();
		assertThat(names(this.directory)).isEmpty();
	}

	/**
	 * A new run's first record came in between the listing and the rename: it goes back, and nothing of
	 * the finished run with it; not its left files, which the new run would report as an earlier run's,
	 * nor an earlier attempt's abort file, which would make the new run's waiting processes give up.
	 */
	@Test
	void onlyTheLiveRunsFilesGoBack() throws IOException {
		Path job = Files.createDirectories(this.directory.resolve("job"));
		Files.writeString(job.resolve("left-0.properties"), marker(0, "old-0"));
		Files.writeString(job.resolve("left-1.properties"), marker(1, "old-1"));
		Files.writeString(job.resolve("abort-earlier.properties"), marker(0, "earlier"));
		MemberRecord fresh = FileRendezvous.announce("job", 1, 2, 1, false, Duration.ofSeconds(10), List.of());
		Files.write(job.resolve("member-1.properties"), fresh.toBytes());
		Set<String> listed = Set.of("left-0.properties", "left-1.properties", "abort-earlier.properties");
		assertThat(DirectoryRemoval.removeDirectory(this.directory, "job", "old-1", OLD_RUN, listed)).isTrue();
		assertThat(names(job)).containsExactly("member-1.properties");
		assertThat(names(this.directory)).containsExactly("job");
	}

	/**
	 * The live run made its directory again before the files came back: they are merged in, never
	 * replacing a file it wrote again meanwhile.
	 */
	@Test
	void filesGoBackIntoADirectoryMadeAgainWithoutReplacingItsFiles() throws IOException {
		Path grave = Files.createDirectories(this.directory.resolve(".job.removed-x"));
		Files.writeString(grave.resolve("member-0.properties"), "older");
		Files.writeString(grave.resolve("ready-1.properties"), "ready");
		Path job = Files.createDirectories(this.directory.resolve("job"));
		Files.writeString(job.resolve("member-0.properties"), "newer");
		DirectoryRemoval.restore(grave, job);
		assertThat(names(job)).containsExactly("member-0.properties", "ready-1.properties");
		assertThat(job.resolve("member-0.properties")).hasContent("newer");
		assertThat(job.resolve("ready-1.properties")).hasContent("ready");
		assertThat(grave).doesNotExist();
	}

	/**
	 * Both processes still wait when their directory vanishes (removed in place, or renamed away by a
	 * remover that then died): each writes its record and its ready file again, and they join. The
	 * ready file was not written again, so the join waited for it until the timeout.
	 */
	@Test
	void aProcessWhoseReadyFileVanishedWritesItAgain() throws Exception {
		Path job = this.directory.resolve("job");
		MemberRecord zero = FileRendezvous.announce("job", 0, 2, 1, false, Duration.ofSeconds(5), List.of());
		CompletableFuture<FileRendezvous> joining = CompletableFuture.supplyAsync(
				() -> FileRendezvous.join(this.directory, zero), (task) -> new Thread(task).start());
		MemberRecord one = FileRendezvous.announce("job", 1, 2, 1, false, Duration.ofSeconds(5), List.of());
		awaitFile(job.resolve("member-0.properties"));
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", one.toBytes());
		awaitFile(job.resolve("ready-0.properties"));
		// Index 0 cannot return yet: ready-1 is written only after the directory is gone.
		deleteTree(job);
		Files.createDirectories(job);
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", one.toBytes());
		PeerFiles.writeAsAPeerDoes(job, "ready-1.properties", ready(one));
		try {
			assertThat(joining.get(20, TimeUnit.SECONDS).members()).hasSize(2);
		}
		catch (ExecutionException ex) {
			throw new AssertionError("index 0 did not join: " + ex.getCause().getMessage(), ex.getCause());
		}
	}

	/**
	 * A run of 2 whose index 0 has returned (it read both ready files) while index 1 is one poll from
	 * returning; a late process of another count arrives. It sees a run that joined without it, and
	 * must fail alone having written nothing: a record or abort of it would make index 1 fail while
	 * index 0 runs on. (Not about removal, but about the same live run's files being read right.)
	 */
	@Test
	void aLateProcessWithAnotherCountNeverSplitsARunFinishingItsJoin() throws Exception {
		for (int trial = 0; trial < 20; trial++) {
			String name = "split-" + trial;
			Path job = this.directory.resolve(name);
			MemberRecord one = FileRendezvous.announce(name, 1, 2, 1, false, Duration.ofSeconds(5), List.of());
			CompletableFuture<FileRendezvous> joining = CompletableFuture.supplyAsync(
					() -> FileRendezvous.join(this.directory, one), (task) -> new Thread(task).start());
			MemberRecord zero = FileRendezvous.announce(name, 0, 2, 1, false, Duration.ofSeconds(5), List.of());
			MemberRecord late = FileRendezvous.announce(name, 2, 3, 1, false, Duration.ofSeconds(5), List.of());
			// Index 0, played here: its record, then (ready-1 seen, no stranger) its ready: it has returned.
			awaitFile(job.resolve("member-1.properties"));
			PeerFiles.writeAsAPeerDoes(job, "member-0.properties", zero.toBytes());
			awaitFile(job.resolve("ready-1.properties"));
			PeerFiles.writeAsAPeerDoes(job, "ready-0.properties", ready(zero));
			CompletableFuture<FileRendezvous> lateJoin = CompletableFuture.supplyAsync(
					() -> FileRendezvous.join(this.directory, late), (task) -> new Thread(task).start());
			try {
				joining.get(20, TimeUnit.SECONDS).leave();
			}
			catch (ExecutionException ex) {
				throw new AssertionError("trial " + trial + ": index 0 returned joined, index 1 failed: "
						+ ex.getCause().getMessage(), ex.getCause());
			}
			assertThat(lateJoin).failsWithin(Duration.ofSeconds(20))
				.withThrowableOfType(ExecutionException.class)
				.withMessageContaining("disagree on hostDomainCount")
				.withMessageContaining("gives up alone");
		}
	}

	/**
	 * While a remover merges a live run's files back into {@code <job>}, a second remover renames
	 * {@code <job>} away: the files not yet put back must go into whatever replaces it, not be deleted
	 * with the first remover's grave.
	 */
	@Test
	void aSecondRemoverTakingTheDirectoryDuringAMergeLosesNoFile() throws Exception {
		Path grave = Files.createDirectories(this.directory.resolve(".job.removed-first"));
		int count = 3000;
		for (int i = 0; i < count; i++) {
			Files.writeString(grave.resolve("ready-" + i + ".properties"), "ready " + i);
		}
		Path job = Files.createDirectories(this.directory.resolve("job"));
		Files.writeString(job.resolve("member-0.properties"), "written again meanwhile");
		Path second = this.directory.resolve(".job.removed-second");
		AtomicBoolean renamed = new AtomicBoolean();
		Thread remover = new Thread(() -> {
			// Renames <job> away as soon as the merge has put a file back into it.
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < deadline) {
				try (DirectoryStream<Path> files = Files.newDirectoryStream(job)) {
					int seen = 0;
					for (Path ignored : files) {
						if (++seen > 1) {
							break;
						}
					}
					if (seen > 1) {
						Files.move(job, second, StandardCopyOption.ATOMIC_MOVE);
						renamed.set(true);
						return;
					}
				}
				catch (IOException ex) {
					return;
				}
			}
		});
		remover.start();
		DirectoryRemoval.restore(grave, job);
		remover.join();
		assertThat(renamed).as("the second remover took the directory during the merge").isTrue();
		Set<String> kept = new TreeSet<>(names(job));
		kept.addAll(names(second));
		kept.addAll(names(grave));
		assertThat(kept).as("files in <job>, the second remover's grave, or the first's").hasSize(count + 1);
	}

	/**
	 * The directory a delayed remover took holds another run's files, but that run has finished too
	 * (a left file beside each of its ready files): it is deleted, not put back as litter that nobody
	 * is left to remove.
	 */
	@Test
	void aFinishedRunFoundInTheGraveIsNotPutBack() throws IOException {
		Path job = Files.createDirectories(this.directory.resolve("job"));
		for (int i = 0; i < 2; i++) {
			Files.writeString(job.resolve("ready-" + i + ".properties"), marker(i, "new-" + i));
			Files.writeString(job.resolve("left-" + i + ".properties"), marker(i, "new-" + i));
		}
		assertThat(DirectoryRemoval.removeDirectory(this.directory, "job", "old-1", OLD_RUN, OLD_LISTING)).isFalse();
		assertThat(names(this.directory)).isEmpty();
	}

	private static String marker(int index, String incarnation) {
		return "marker.index=" + index + "\nmarker.count=2\nmarker.incarnation=" + incarnation
				+ "\nmarker.host=node-a\nmarker.pid=7\nmarker.written=1577836800000000000\n";
	}

	private static byte[] ready(MemberRecord writer) {
		return ("marker.index=" + writer.index() + "\nmarker.count=" + writer.count() + "\nmarker.incarnation="
				+ writer.incarnation() + "\nmarker.host=" + writer.host() + "\nmarker.pid=" + writer.pid()
				+ "\nmarker.written=" + ChronoUnit.NANOS.between(Instant.EPOCH, Instant.now()) + "\n")
			.getBytes(StandardCharsets.ISO_8859_1);
	}

	private static void awaitFile(Path file) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!Files.exists(file)) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError(file + " was not written within 10 s");
			}
			Thread.sleep(1);
		}
	}

	private static void deleteTree(Path root) throws IOException {
		try (Stream<Path> walk = Files.walk(root)) {
			for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
	}

	private static List<String> names(Path directory) throws IOException {
		if (!Files.isDirectory(directory)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(directory)) {
			return files.map((file) -> file.getFileName().toString()).sorted().toList();
		}
	}
}
