package io.uform.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the first look read, the first poll takes without reading it again: each peer's record is
 * read once by a joining process. Unless a lookup finds another file under the name: a record
 * replaced between the two (a restarted peer's) is read again, so that the join goes on with the
 * record that is there, not with the one it replaced.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileRendezvousFirstLookTest {

	@TempDir
	Path directory;

	@Test
	void aPeersRecordThereAtTheFirstLookIsReadOnce() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("once"));
		// Index 1 is there first (written by this live process, so not stale), and ready once index 0 is.
		MemberRecord peer = FileRendezvous.announce("once", 1, 2, 1, false, Duration.ofMinutes(1), List.of());
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", peer.toBytes());
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		files.beforeMovingInto((name) -> name.equals("member-0.properties"),
				() -> PeerFiles.writeAsAPeerDoes(job, "ready-1.properties", Marker.toBytes("ready", peer, null, null)));
		MemberRecord self = FileRendezvous.announce("once", 0, 2, 1, false, Duration.ofSeconds(10), List.of());

		FileRendezvous joined = FileRendezvous.join(observed, self);

		assertThat(joined.members()).extracting(MemberRecord::incarnation)
			.containsExactly(self.incarnation(), peer.incarnation());
		assertThat(files.reads("member-1.properties")).as("reads of the peer's record").isEqualTo(1);
		assertThat(files.reads("ready-1.properties")).as("reads of the peer's ready file").isEqualTo(1);
		joined.leave();
	}

	@Test
	void aRecordReplacedBetweenTheFirstLookAndTheFirstPollIsReadAgain() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("restarted"));
		MemberRecord before = FileRendezvous.announce("restarted", 1, 2, 1, false, Duration.ofMinutes(1), List.of());
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", before.toBytes());
		// Index 1 restarts while this process claims its index: after its first look, before its first
		// poll. Its new incarnation writes its record, then (having read index 0's) its ready file.
		MemberRecord after = FileRendezvous.announce("restarted", 1, 2, 1, false, Duration.ofMinutes(1), List.of());
		Path observed = ObservedFileSystem.observe(this.directory);
		ObservedFileSystem files = ObservedFileSystem.of(observed);
		files.beforeMovingInto((name) -> name.equals("member-0.properties"), () -> {
			PeerFiles.writeAsAPeerDoes(job, "member-1.properties", after.toBytes());
			PeerFiles.writeAsAPeerDoes(job, "ready-1.properties", Marker.toBytes("ready", after, null, null));
		});
		MemberRecord self = FileRendezvous.announce("restarted", 0, 2, 1, false, Duration.ofSeconds(5), List.of());

		// Joined with the record it had read at the first look, it would wait for that incarnation's ready
		// file, which never comes, and time out.
		FileRendezvous joined = FileRendezvous.join(observed, self);

		assertThat(joined.members()).extracting(MemberRecord::incarnation)
			.containsExactly(self.incarnation(), after.incarnation());
		assertThat(files.reads("member-1.properties")).as("reads of index 1's record").isEqualTo(2);
		joined.leave();
	}
}
