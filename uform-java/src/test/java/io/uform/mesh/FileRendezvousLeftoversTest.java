package io.uform.mesh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException;
import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a failed run leaves in the mesh directory, and what the job's path may be: nothing of a run
 * that failed may block or puzzle the next run of the job, and a job path that is a file or a
 * symbolic link is reported as what it is, before anything is written through it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileRendezvousLeftoversTest {

	@TempDir
	Path directory;

	@Test
	void aRunThatTimedOutLeavesNothingForTheNextRunOfTheJob() throws Exception {
		MemberRecord self = FileRendezvous.announce("timed-out", 0, 2, 1, false, Duration.ofMillis(200), List.of());
		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
			.hasMessageContaining("index 1 never joined")
			.hasMessageContaining("index 0 (host " + FileRendezvous.hostName() + ", pid " + ProcessHandle.current().pid()
					+ ") removed its record, and the job directory " + this.directory.resolve("timed-out"));
		// Its abort file told nobody (no peer waited): it went with the directory.
		assertThat(this.directory.resolve("timed-out")).doesNotExist();
		assertThat(names(this.directory)).isEmpty();

		// The next run of the job joins and leaves as if the first had never been.
		List<FileRendezvous> joined = joinTogether("timed-out", 2);
		joined.forEach(FileRendezvous::leave);
		assertThat(names(this.directory)).isEmpty();
	}

	@Test
	void anAbortFileStaysWhileAPeerStillWaitsThereToTellItWhy() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("waiting"));
		// Index 1 waits: its record is there (written by this live process, so not stale), its ready is not.
		MemberRecord peer = FileRendezvous.announce("waiting", 1, 3, 1, false, Duration.ofSeconds(20), List.of());
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", peer.toBytes());
		MemberRecord self = FileRendezvous.announce("waiting", 0, 3, 1, false, Duration.ofMillis(200), List.of());
		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.hasMessageContaining("index 2 never joined")
			.hasMessageContaining("abort-" + self.incarnation() + ".properties stays to tell any that still wait why");
		assertThat(names(job)).containsExactly("abort-" + self.incarnation() + ".properties", "member-1.properties");
		assertThat(job.resolve("abort-" + self.incarnation() + ".properties")).content().contains("marker.status=TIMEOUT");
	}

	@Test
	void theLastProcessOfAFailedRunToGiveUpRemovesTheDirectoryAbortsAndAll() throws Exception {
		// Index 1 waits long; index 0 times out soon and aborts for both; index 1 fails at once, last.
		MemberRecord patient = FileRendezvous.announce("both-fail", 1, 3, 1, false, Duration.ofSeconds(20), List.of());
		CompletableFuture<Throwable> second = failureInAThread(patient);
		awaitFile(this.directory.resolve("both-fail").resolve("member-1.properties"));
		MemberRecord hasty = FileRendezvous.announce("both-fail", 0, 3, 1, false, Duration.ofMillis(200), List.of());
		assertThatThrownBy(() -> FileRendezvous.join(this.directory, hasty))
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT));
		assertThat(second.get(10, TimeUnit.SECONDS)).isInstanceOf(UformException.class)
			.hasMessageContaining("index 0 (host")
			.hasMessageContaining("gave up for every process");
		assertThat(names(this.directory)).isEmpty();
	}

	@Test
	void aJobPathThatIsAFileIsReportedAsAFileNotAsPermissions() throws Exception {
		Path file = Files.writeString(this.directory.resolve("run-1"), "someone's notes");
		MemberRecord self = FileRendezvous.announce("run-1", 0, 2, 1, false, Duration.ofSeconds(5), List.of());
		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.hasMessage("Invalid job = run-1: " + file + " is a file, not a directory, and the mesh keeps the job's files "
					+ "in a directory of that name. Move or remove that file (it is not the mesh's), or use another job name")
			.satisfies((ex) -> {
				UformException failure = (UformException) ex;
				assertThat(failure.status()).isEqualTo(Status.INVALID_ARGUMENT);
				assertThat(failure.field()).isEqualTo("job");
				assertThat(failure.getCause()).isInstanceOf(IOException.class);
				// Nothing of its give-up went wrong on the way: the file is not listed as a directory.
				assertThat(failure.getSuppressed()).isEmpty();
			});
		assertThat(file).content().isEqualTo("someone's notes");
		assertThat(names(this.directory)).containsExactly("run-1");
	}

	@Test
	void aJobDirectoryThatIsASymbolicLinkIsRefusedBeforeAnythingIsWrittenThroughIt() throws Exception {
		Path elsewhere = Files.createDirectories(this.directory.resolve("elsewhere"));
		Files.writeString(elsewhere.resolve("checkpoint.bin"), "weights");
		Path link = Files.createSymbolicLink(this.directory.resolve("linked"), elsewhere);
		MemberRecord self = FileRendezvous.announce("linked", 0, 2, 1, false, Duration.ofSeconds(5), List.of());
		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.hasMessageStartingWith("Invalid job = linked: " + link + " is a symbolic link (to " + elsewhere + "), and the "
					+ "mesh makes, renames and removes the job directory as its own")
			.hasMessageContaining("Remove the link")
			.satisfies((ex) -> assertThat(((UformException) ex).field()).isEqualTo("job"));
		// Followed, the link was renamed aside by the last one out and the directory it named emptied.
		assertThat(Files.isSymbolicLink(link)).isTrue();
		assertThat(names(elsewhere)).containsExactly("checkpoint.bin");
	}

	@Test
	void aMeshDirectoryThatIsASymbolicLinkIsFollowed() throws Exception {
		Path shared = Files.createDirectories(this.directory.resolve("shared"));
		Path link = Files.createSymbolicLink(this.directory.resolve("mesh"), shared);
		List<FileRendezvous> joined = joinTogether(link, "through-a-link", 2);
		assertThat(shared.resolve("through-a-link").resolve("member-0.properties")).exists();
		joined.forEach(FileRendezvous::leave);
		assertThat(Files.isSymbolicLink(link)).isTrue();
		assertThat(names(shared)).isEmpty();
	}

	private List<FileRendezvous> joinTogether(String job, int count) throws Exception {
		return joinTogether(this.directory, job, count);
	}

	/** Joins {@code count} processes of a run, each on a thread of its own, as separate processes would. */
	private static List<FileRendezvous> joinTogether(Path directory, String job, int count) throws Exception {
		List<CompletableFuture<FileRendezvous>> joins = new java.util.ArrayList<>();
		for (int index = 0; index < count; index++) {
			MemberRecord record = FileRendezvous.announce(job, index, count, 1, false, Duration.ofSeconds(20), List.of());
			joins.add(CompletableFuture.supplyAsync(() -> FileRendezvous.join(directory, record),
					(task) -> new Thread(task, "mesh-" + record.index()).start()));
		}
		List<FileRendezvous> joined = new java.util.ArrayList<>();
		for (CompletableFuture<FileRendezvous> join : joins) {
			joined.add(join.get(20, TimeUnit.SECONDS));
		}
		return joined;
	}

	private CompletableFuture<Throwable> failureInAThread(MemberRecord self) {
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		new Thread(() -> {
			try {
				FileRendezvous.join(this.directory, self);
				failure.complete(null);
			}
			catch (Throwable ex) {
				failure.complete(ex);
			}
		}, "mesh-" + self.index()).start();
		return failure;
	}

	private static void awaitFile(Path file) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!Files.exists(file) && System.nanoTime() < deadline) {
			Thread.sleep(1);
		}
		assertThat(file).exists();
	}

	private static List<String> names(Path directory) throws IOException {
		try (Stream<Path> files = Files.list(directory)) {
			return files.map((file) -> file.getFileName().toString()).sorted().toList();
		}
	}
}
