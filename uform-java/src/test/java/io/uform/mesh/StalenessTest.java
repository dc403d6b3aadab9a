package io.uform.mesh;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The host-name rules of {@link FileRendezvous#staleness}: a record found at the first look whose host
 * name is this process's. Kubernetes names an Indexed Job's pods {@code <job>-<index>}, so a Job
 * re-created under the same name meets records whose host name is its own pod's, written on another
 * node: the boot id, not the host name, tells that record from a live peer's.
 */
class StalenessTest {

	private static final Duration TIMEOUT = Duration.ofMinutes(2);

	/** This process's record, with a host key of a made-up boot id and pid namespace. */
	private static MemberRecord self(String host, String hostKey) {
		Instant now = Instant.now();
		return new MemberRecord(FileRendezvous.PROTOCOL, "run", 2, 4, 1, true, "self-incarnation", host, hostKey,
				ProcessHandle.current().pid(), now, now, TIMEOUT, now, List.of());
	}

	/** A record written a moment ago, well inside the timeout, so that the age rule does not decide. */
	private static MemberRecord recent(String host, String hostKey) {
		Instant moments = Instant.now().minusSeconds(5);
		return new MemberRecord(FileRendezvous.PROTOCOL, "run", 2, 4, 1, true, "old-incarnation", host, hostKey, 4242,
				moments, moments, TIMEOUT, moments, List.of());
	}

	@Test
	void aRecordOfThisHostNameUnderAnotherBootIdIsStaleAndTheReasonSaysAnotherPodMayHaveTheName() {
		String reason = Leftovers.staleness(recent("uform-train-2", "boot-b/pid:[4026531836]"),
				self("uform-train-2", "boot-a/pid:[4026531836]"));
		assertThat(reason).contains("host uform-train-2", "another boot id", "rebooted",
				"another machine or pod of the same host name", "Kubernetes Job");
	}

	@Test
	void aRecentRecordOfAnotherHostNameMayBeALivePeer() {
		assertThat(Leftovers.staleness(recent("uform-train-1", "boot-b/pid:[4026531836]"),
				self("uform-train-2", "boot-a/pid:[4026531836]"))).isNull();
	}

	@Test
	void withoutAHostKeyOnEitherSideOnlyTheAgeDecides() {
		assertThat(Leftovers.staleness(recent("uform-train-2", ""), self("uform-train-2", "boot-a/pid:[1]")))
			.isNull();
		assertThat(Leftovers.staleness(recent("uform-train-2", "boot-b/pid:[1]"), self("uform-train-2", "")))
			.isNull();
	}
}
