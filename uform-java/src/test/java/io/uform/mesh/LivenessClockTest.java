package io.uform.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Liveness never reads a clock of another host: a "peer" played by this test, on a host whose clock is
 * an hour ahead or behind (its record's times say so), is judged by whether its heartbeat's counter
 * moves, measured by this process's monotonic clock alone. A peer whose counter stands still is dead
 * within the liveness timeout whatever its clock says; one whose counter moves lives, however far its
 * clock is off.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LivenessClockTest {

	private static final Duration LIVENESS = Duration.ofMillis(800);

	@TempDir
	Path directory;

	/** The record of a peer on {@code skewed-host}, whose clock is {@code skew} off this host's. */
	private static MemberRecord skewedPeer(Duration skew) {
		Instant there = Instant.now().plus(skew);
		return new MemberRecord(FileRendezvous.PROTOCOL, "job", 1, 2, 1, false, "skewed-incarnation", "skewed-host",
				"other-boot/pid:[1]", 4242, there.minusSeconds(60), there, Duration.ofSeconds(30), there, List.of(), "",
				LIVENESS);
	}

	@Test
	void aPeerWhoseClockIsAnHourAheadAndWhoseHeartbeatStandsStillIsDeadWithinTheLivenessTimeout() {
		Path job = this.directory.resolve("job");
		MemberRecord peer = skewedPeer(Duration.ofHours(1));
		PeerFiles.writeAsAPeerDoes(mkdirs(job), "member-1.properties", peer.toBytes());
		// Its last beat: fresh to the eye (written just now), but it never moves.
		PeerFiles.writeAsAPeerDoes(job, "alive-1.properties", Liveness.heartbeat(peer.incarnation(), 7));
		// And half a file it was writing when it died, which its finder removes too.
		PeerFiles.writeAsAPeerDoes(job, JobFiles.temporaryPrefix(peer.incarnation()) + "ready-1.properties",
				"# uform mesh".getBytes(StandardCharsets.ISO_8859_1));
		MemberRecord self = FileRendezvous.announce("job", 0, 2, 1, false, Duration.ofSeconds(30), LIVENESS, List.of());
		long start = System.nanoTime();
		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.hasMessageContaining("index 1 (host skewed-host, pid 4242) died before every process joined")
			.hasMessageContaining("stood still for more than the liveness timeout (0.8 s)")
			.hasMessageContaining("restart the run");
		long tookMs = (System.nanoTime() - start) / 1_000_000;
		assertThat(tookMs).as("the liveness timeout, not the join's 30 s").isBetween(LIVENESS.toMillis(), 5_000L);
		// The dead peer's files went with the giving up: the directory is gone, abort file and all.
		assertThat(job).doesNotExist();
	}

	@Test
	void aPeerWhoseClockIsAnHourBehindLivesWhileItsHeartbeatMovesAndIsDeadOnceItStops() throws Exception {
		Path job = mkdirs(this.directory.resolve("job"));
		MemberRecord self = FileRendezvous.announce("job", 0, 2, 1, false, Duration.ofSeconds(30), LIVENESS, List.of());
		CompletableFuture<FileRendezvous> joining = CompletableFuture.supplyAsync(() -> FileRendezvous.join(this.directory,
				self));
		awaitFile(job.resolve("member-0.properties"));
		// Written after this process's first look, as a peer that arrives second: an hour behind, it
		// would otherwise be taken for an earlier run's by the first look's age rule.
		MemberRecord peer = skewedPeer(Duration.ofHours(-1));
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties", peer.toBytes());
		long beat = 0;
		PeerFiles.writeAsAPeerDoes(job, "alive-1.properties", Liveness.heartbeat(peer.incarnation(), ++beat));
		PeerFiles.writeAsAPeerDoes(job, "ready-1.properties", Marker.toBytes("ready", peer, null, null));
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * LIVENESS.toMillis());
		FileRendezvous joined = null;
		while (System.nanoTime() < until || joined == null) {
			PeerFiles.writeAsAPeerDoes(job, "alive-1.properties", Liveness.heartbeat(peer.incarnation(), ++beat));
			if (joined == null && joining.isDone()) {
				joined = joining.get();
			}
			Thread.sleep(50);
		}
		assertThat(joined.death()).as("a moving heartbeat, an hour behind").isNull();
		long stopped = System.nanoTime();
		while (joined.death() == null) {
			assertThat((System.nanoTime() - stopped) / 1_000_000).as("noticed").isLessThan(5_000);
			Thread.sleep(20);
		}
		assertThat((System.nanoTime() - stopped) / 1_000_000).isGreaterThanOrEqualTo(LIVENESS.toMillis() - 100);
		assertThat(joined.death().who()).isEqualTo("index 1 (host skewed-host, pid 4242)");
		assertThat(joined.death().expelled()).isFalse();
		assertThat(job.resolve("broken.properties")).exists();
		assertThat(Death.parse(Files.readAllBytes(job.resolve("dead-1.properties"))).incarnation())
			.isEqualTo(peer.incarnation());
		joined.leave();
		assertThat(job).as("the dead peer's file stands for its left file: the last one out removes the job")
			.doesNotExist();
	}

	private static Path mkdirs(Path directory) {
		try {
			return Files.createDirectories(directory);
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static void awaitFile(Path file) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!Files.exists(file)) {
			assertThat(System.nanoTime() - deadline).as("%s never appeared", file).isNegative();
			Thread.sleep(10);
		}
	}
}
