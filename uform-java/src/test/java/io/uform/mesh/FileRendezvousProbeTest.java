package io.uform.mesh;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a waiting process looks up between two polls ({@link FileRendezvous#awaited}), and how often
 * ({@link FileRendezvous#probeInterval}). Whether the lookups shorten the join is measured by
 * {@code MeshJoinBenchmark}, not here.
 */
class FileRendezvousProbeTest {

	@Test
	void whileRecordsAreMissingItAwaitsTheLowestMissingOne() {
		assertThat(Attempt.awaited(4, Set.of(0, 2), Set.of(), Set.of("member-0.properties", "member-2.properties")))
			.isEqualTo("member-1.properties");
		assertThat(Attempt.awaited(4, Set.of(1, 2, 3), Set.of(), Set.of())).isEqualTo("member-0.properties");
		assertThat(Attempt.awaited(8, Set.of(0, 1, 2, 3, 4, 5, 6), Set.of(), Set.of())).isEqualTo("member-7.properties");
	}

	@Test
	void onceEveryRecordWasReadItAwaitsTheLowestReadyNotReadYet() {
		Set<Integer> all = Set.of(0, 1, 2);
		assertThat(Attempt.awaited(3, all, Set.of(0), Set.of("ready-0.properties"))).isEqualTo("ready-1.properties");
		assertThat(Attempt.awaited(3, all, Set.of(0, 1), Set.of())).isEqualTo("ready-2.properties");
	}

	@Test
	void aFileThatIsListedButDidNotCountIsLeftToThePolls() {
		// Listed but not read: a rival's, or unreadable. Looking it up again would poll at every lookup.
		assertThat(Attempt.awaited(2, Set.of(0), Set.of(), Set.of("member-1.properties"))).isNull();
		assertThat(Attempt.awaited(2, Set.of(0, 1), Set.of(0), Set.of("ready-1.properties"))).isNull();
	}

	@Test
	void nothingIsAwaitedWhenAllIsThereOrTheListingFailed() {
		assertThat(Attempt.awaited(2, Set.of(0, 1), Set.of(0, 1), Set.of())).isNull();
		assertThat(Attempt.awaited(2, Set.of(0), Set.of(), null)).isNull();
	}

	@Test
	void lookupsAreHalfAMillisecondPerProcessBetweenTheBounds() {
		assertThat(FileRendezvous.probeInterval(1)).isEqualTo(FileRendezvous.PROBE_INTERVAL);
		assertThat(FileRendezvous.probeInterval(4)).isEqualTo(Duration.ofMillis(2));
		assertThat(FileRendezvous.probeInterval(8)).isEqualTo(Duration.ofMillis(4));
		assertThat(FileRendezvous.probeInterval(9)).isEqualTo(Duration.ofMillis(4).plusNanos(500_000));
		assertThat(FileRendezvous.probeInterval(50)).isEqualTo(FileRendezvous.POLL_INTERVAL);
		assertThat(FileRendezvous.probeInterval(Integer.MAX_VALUE)).isEqualTo(FileRendezvous.POLL_INTERVAL);
	}
}
