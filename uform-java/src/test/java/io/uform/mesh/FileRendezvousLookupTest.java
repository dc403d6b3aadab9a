package io.uform.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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
		// The join times out having read index 1's record (the message says so).
		long elapsed = timesOutBesideASilentPeer(observed, "stale", Duration.ofSeconds(2));
		// One early poll per awaited file a lookup found (index 1's record): a few more, never one per lookup.
		assertListingsAboutOnePerPoll(files, elapsed);
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

	/**
	 * A run of 50 processes or more looks up every {@link FileRendezvous#POLL_INTERVAL}: each lookup
	 * came at the end of the wait, just before the poll that lists the directory anyway. It was
	 * wasted, and it made "at most about 2000 lookups a second for a whole run" false: 40 a second per
	 * process, 4000 for a run of 100.
	 */
	@Test
	void aLargeRunMakesNoLookupThatThePollMakesAnyway() {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		MemberRecord self = FileRendezvous.announce("large", 0, 60, 1, false, Duration.ofMillis(300), List.of());
		assertThatThrownBy(() -> FileRendezvous.join(observed, self)).isInstanceOf(UformException.class)
			.hasMessageContaining("timed out");
		assertThat(files.lookups("member-")).isZero();
	}

	/**
	 * Where the lookup interval does not divide the poll interval (20 ms for 40 processes), the last,
	 * shorter sleep of a wait ended in a lookup too, just before the poll: two lookups a poll instead of
	 * one, 80 a second per process, 3200 for the run instead of at most 2000.
	 */
	@Test
	void noLookupComesJustBeforeThePoll() {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		MemberRecord self = FileRendezvous.announce("forty", 0, 40, 1, false, Duration.ofMillis(500), List.of());
		assertThat(FileRendezvous.probeInterval(40)).isEqualTo(Duration.ofMillis(20));
		assertThatThrownBy(() -> FileRendezvous.join(observed, self)).isInstanceOf(UformException.class)
			.hasMessageContaining("timed out");
		// At most one lookup between two listings: 20 ms into the 25 ms wait.
		assertThat(files.lookups("member-")).isLessThanOrEqualTo(files.listings());
	}

	/**
	 * Once a process has read every record it writes its own ready file, and that is the lowest ready
	 * not read yet when its index is the lowest: awaited, it was looked up and found 2 ms later, an
	 * early poll (a listing and reads) that waited for nothing. It counts as read once written.
	 */
	@Test
	void aProcessNeverLooksUpTheReadyFileItWroteItself() throws Exception {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		// The join times out, having waited for index 1's ready file alone.
		timesOutBesideASilentPeer(observed, "own-ready", Duration.ofMillis(400));
		assertThat(files.lookups("ready-0")).as("lookups of its own ready file").isZero();
		assertThat(files.lookups("ready-1")).as("lookups of the ready file it waits for").isPositive();
	}

	/**
	 * The listing before a process writes its ready file predates the reading of the records since: a
	 * peer's ready file written meanwhile (the last process to arrive reads every other record, in cold
	 * code, long enough for most of its peers to answer) is seen by a poll at once. It was seen by a
	 * lookup a probe interval later, then a poll: the join waited for nothing.
	 */
	@Test
	void aReadyFileWrittenWhileItReadTheRecordsIsSeenWithoutALookup() throws Exception {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		Path job = Files.createDirectories(this.directory.resolve("answered"));
		MemberRecord peer = FileRendezvous.announce("answered", 1, 2, 1, false, Duration.ofSeconds(20), List.of());
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", peer.toBytes());
		MemberRecord self = FileRendezvous.announce("answered", 0, 2, 1, false, Duration.ofSeconds(20), List.of());
		// Index 1 answers after index 0 listed the directory, just before index 0's own ready file goes in.
		files.beforeMovingInto((name) -> name.equals("ready-0.properties"),
				() -> PeerFiles.writeAsAPeerDoes(job, "ready-1.properties", ready(peer)));
		FileRendezvous joined = FileRendezvous.join(observed, self);
		assertThat(joined.members()).extracting(MemberRecord::incarnation)
			.containsExactly(self.incarnation(), peer.incarnation());
		assertThat(files.lookups("ready-1")).as("lookups of index 1's ready file").isZero();
	}

	/**
	 * The poll at once follows the first ready file a process writes, not each time it writes it
	 * again: a listing that lags (NFS) and leaves it out has it written again at every poll, and a poll
	 * at once after each of those ran the loop as fast as it could, writing and listing, for as long
	 * as the listing lagged.
	 */
	@Test
	void aReadyFileTheListingLeavesOutIsWrittenAgainAtThePollsOnly() throws Exception {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		files.hideFromListings((name) -> name.equals("ready-0.properties"));
		long elapsed = timesOutBesideASilentPeer(observed, "lagging", Duration.ofMillis(500));
		assertListingsAboutOnePerPoll(files, elapsed);
	}

	/**
	 * A listing that fails while it reads the directory (NFS: a stale handle, a server that went away)
	 * is a hiccup, as one that fails to open it: the join goes on polling (every poll, no lookups: it
	 * does not know what it awaits) and, should it last, times out naming it, removes its record and
	 * tells its peers. The failure came as an unchecked DirectoryIteratorException, which left join
	 * without giving up: its record stayed for the next run to report, and its peers waited out
	 * their timeout.
	 */
	@Test
	void aListingThatFailsWhileReadingTheDirectoryIsAHiccupNotACrash() throws Exception {
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		// The first look lists once; every poll's listing fails.
		files.failListingsFrom(2);
		MemberRecord self = FileRendezvous.announce("failing", 0, 2, 1, false, Duration.ofMillis(500), List.of());
		assertThatThrownBy(() -> FileRendezvous.join(observed, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
			.hasMessageContaining("Listing " + this.directory.resolve("failing") + " failed")
			.hasMessageContaining("Stale file handle");
		Path job = this.directory.resolve("failing");
		assertThat(job.resolve("member-0.properties")).as("its record, removed as it gave up").doesNotExist();
		assertThat(job.resolve("abort-" + self.incarnation() + ".properties")).as("its peers are told").exists();
		assertThat(files.lookups("member-")).isZero();
	}

	/**
	 * Index 0 joins {@code job} through {@code observed} beside index 1, whose record is there but
	 * which never writes its ready file: the join times out, saying that index 1 alone is not ready.
	 * @return how long the join took, in nanoseconds
	 */
	private long timesOutBesideASilentPeer(Path observed, String job, Duration timeout) throws Exception {
		Path files = Files.createDirectories(this.directory.resolve(job));
		PeerFiles.writeAsAPeerDoes(files, "member-1.properties",
				FileRendezvous.announce(job, 1, 2, 1, false, Duration.ofSeconds(20), List.of()).toBytes());
		MemberRecord self = FileRendezvous.announce(job, 0, 2, 1, false, timeout, List.of());
		long started = System.nanoTime();
		assertThatThrownBy(() -> FileRendezvous.join(observed, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
			.hasMessageContaining("every index joined, but index 1");
		return System.nanoTime() - started;
	}

	/** One listing per poll, a poll every {@code POLL_INTERVAL}, and a few more: never one per lookup or loop. */
	private static void assertListingsAboutOnePerPoll(ObservedFileSystem files, long elapsedNanos) {
		long polls = elapsedNanos / FileRendezvous.POLL_INTERVAL.toNanos();
		assertThat(files.listings()).as("listings in %d ms", TimeUnit.NANOSECONDS.toMillis(elapsedNanos))
			.isLessThanOrEqualTo((int) polls + 8);
	}

	/** The ready file {@code writer} writes once it has read every record. */
	private static byte[] ready(MemberRecord writer) {
		return ("marker.kind=ready\nmarker.index=" + writer.index() + "\nmarker.count=" + writer.count()
				+ "\nmarker.incarnation=" + writer.incarnation() + "\nmarker.host=" + writer.host() + "\nmarker.pid="
				+ writer.pid() + "\nmarker.written=" + ChronoUnit.NANOS.between(Instant.EPOCH, Instant.now()) + "\n")
			.getBytes(StandardCharsets.ISO_8859_1);
	}
}
