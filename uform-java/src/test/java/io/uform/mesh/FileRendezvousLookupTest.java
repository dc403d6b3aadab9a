package io.uform.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException;
import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lookups a waiting process makes between two polls, on a file system that shows them
 * ({@link ObservedFileSystem}): what a lookup finds counts even where the listing lags, as an NFS
 * client's cached listing does, and the lookups stay within the rate the class comment promises. No
 * assertion here depends on how fast the machine is: counts are bounded by the time the test measured
 * itself, which a slow machine only lengthens.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileRendezvousLookupTest {

	@TempDir
	Path directory;

	/**
	 * A peer's record that lookups find but listings leave out (an NFS client's listing is cached for
	 * up to {@code acdirmax}, 60 s by default, while each lookup of a missing name asks the server).
	 * The lookup found it, the poll it triggered did not list it, so it was awaited again, found again
	 * at the next lookup: the process listed the directory and read its files every 2 ms instead of
	 * every 25, as long as the listing lagged, and never read the record it knew was there.
	 */
	@Test
	void aRecordALookupFindsIsReadWhileTheListingStillLacksIt() throws Exception {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		files.hideFromListings((name) -> name.equals("member-1.properties"));
		Path job = Files.createDirectories(this.directory.resolve("stale"));
		writeAsAPeerDoes(job, "member-1.properties", FileRendezvous.announce("stale", 1, 2, 1, false,
				Duration.ofSeconds(20), List.of()).toBytes());
		MemberRecord self = FileRendezvous.announce("stale", 0, 2, 1, false, Duration.ofSeconds(2), List.of());

		long started = System.nanoTime();
		// Index 1 never writes its ready file: the join times out, having read index 1's record.
		assertThatThrownBy(() -> FileRendezvous.join(observed, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
			.hasMessageContaining("every index joined, but index 1");
		long elapsed = System.nanoTime() - started;
		// One listing per poll, a poll every POLL_INTERVAL, and one early poll per awaited file a lookup
		// found (index 1's record, this process's own ready file): a few more, never one per lookup.
		long polls = elapsed / FileRendezvous.POLL_INTERVAL.toNanos();
		assertThat(files.listings()).as("listings in %d ms", TimeUnit.NANOSECONDS.toMillis(elapsed))
			.isLessThanOrEqualTo((int) polls + 8);
	}

	/** The same, all through: two processes join though one's listings never show the other's files. */
	@Test
	void processesJoinThoughOnesListingsNeverShowTheOthersFiles() throws Exception {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem.of(observed).hideFromListings((name) -> name.endsWith("-1.properties"));
		MemberRecord zero = FileRendezvous.announce("hidden", 0, 2, 1, false, Duration.ofSeconds(20), List.of());
		MemberRecord one = FileRendezvous.announce("hidden", 1, 2, 1, false, Duration.ofSeconds(20), List.of());
		CompletableFuture<FileRendezvous> first = CompletableFuture.supplyAsync(() -> FileRendezvous.join(observed, zero),
				(task) -> new Thread(task, "mesh-0").start());
		CompletableFuture<FileRendezvous> second = CompletableFuture.supplyAsync(
				() -> FileRendezvous.join(this.directory, one), (task) -> new Thread(task, "mesh-1").start());
		FileRendezvous joinedZero = first.get(30, TimeUnit.SECONDS);
		FileRendezvous joinedOne = second.get(30, TimeUnit.SECONDS);
		assertThat(joinedZero.members()).extracting(MemberRecord::incarnation)
			.containsExactly(zero.incarnation(), one.incarnation());
		assertThat(joinedOne.members()).extracting(MemberRecord::incarnation)
			.containsExactly(zero.incarnation(), one.incarnation());
		joinedOne.leave();
		joinedZero.leave();
	}

	/** Writes a file whole and renames it into place, as every process does. */
	private static void writeAsAPeerDoes(Path job, String name, byte[] bytes) throws Exception {
		Path temp = job.resolve(".tmp-test-" + name);
		Files.write(temp, bytes);
		Files.move(temp, job.resolve(name), StandardCopyOption.ATOMIC_MOVE);
	}
}
