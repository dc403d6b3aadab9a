package io.uform.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException;
import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One record's protocol is judged the same whether the first look read it or a poll did (the first
 * poll reuses what the first look parsed), by its text, and before the rest of the record is parsed.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileRendezvousProtocolTest {

	@TempDir
	Path directory;

	/**
	 * {@code uform.mesh.protocol=01} is not the text this version writes: read at a poll it is a
	 * disagreement, so it must be one at the first look too. The parsed number (1) passed, and the
	 * process joined the record and waited out its timeout for a ready file instead.
	 */
	@Test
	void aProtocolThatIsNotThisVersionsTextIsADisagreementAlsoAtTheFirstLook() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("zero"));
		MemberRecord peer = FileRendezvous.announce("zero", 1, 2, 1, false, Duration.ofMinutes(1), List.of());
		String text = new String(peer.toBytes(), StandardCharsets.ISO_8859_1);
		assertThat(text).contains("uform.mesh.protocol=" + FileRendezvous.PROTOCOL + "\n");
		Files.write(job.resolve("member-1.properties"), text.replace("uform.mesh.protocol=" + FileRendezvous.PROTOCOL + "\n",
				"uform.mesh.protocol=0" + FileRendezvous.PROTOCOL + "\n").getBytes(StandardCharsets.ISO_8859_1));
		MemberRecord self = FileRendezvous.announce("zero", 0, 2, 1, false, Duration.ofSeconds(3), List.of());

		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("disagree on the mesh protocol")
			.hasMessageContaining("member-1.properties speaks protocol 0" + FileRendezvous.PROTOCOL);
	}

	/**
	 * A live peer of another version whose record this version cannot parse (its keys differ), there
	 * at the first look: a disagreement on the protocol, not "left by an earlier run, remove the
	 * directory", which would tell the user to delete a live run's files.
	 */
	@Test
	void anUnparsableRecordOfAnotherProtocolIsADisagreementNotALeftover() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("other"));
		int other = FileRendezvous.PROTOCOL + 1;
		Files.writeString(job.resolve("member-1.properties"), "uform.mesh.protocol=" + other
				+ "\nmember.slot=1\nmember.of=2\n", StandardCharsets.ISO_8859_1);
		MemberRecord self = FileRendezvous.announce("other", 0, 2, 1, false, Duration.ofSeconds(3), List.of());

		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("disagree on the mesh protocol")
			.hasMessageContaining("member-1.properties speaks protocol " + other)
			.hasMessageContaining("run one uform version on every host")
			.hasMessageNotContaining("holds files left by an earlier run");
		// It wrote nothing: the other version's run finds its directory as it was.
		try (var files = Files.list(job)) {
			assertThat(files.map((path) -> path.getFileName().toString())).containsExactly("member-1.properties");
		}
	}

	/**
	 * A live peer running the version before instants were written as epoch nanoseconds (protocol 1,
	 * ISO-8601 text, which this version no longer parses): refused as a disagreement naming both
	 * versions, not as an unreadable leftover.
	 */
	@Test
	void aRecordOfProtocolOneWithTextInstantsIsRefusedNamingBothVersions() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("one"));
		MemberRecord peer = FileRendezvous.announce("one", 1, 2, 1, false, Duration.ofMinutes(1), List.of());
		String started = (peer.processStarted() == null) ? "" : peer.processStarted().toString();
		Files.writeString(job.resolve("member-1.properties"),
				"# uform mesh member record (see io.uform.mesh.FileRendezvous)\n" + "device.count=0\nmember.bootstrapStarted=" + peer.bootstrapStarted() + "\nmember.count=2\n"
				+ "member.gpusPerMultimemDomain=1\nmember.gpusPerMultimemDomain.derived=false\nmember.host=" + peer.host()
				+ "\nmember.hostKey=" + peer.hostKey().replace(":", "\\:") + "\nmember.incarnation=" + peer.incarnation()
				+ "\nmember.index=1\nmember.job=one\nmember.pid=" + peer.pid() + "\nmember.processStarted=" + started
				+ "\nmember.timeout=PT1M\nmember.written=" + peer.written() + "\nuform.mesh.protocol=1\n",
				StandardCharsets.ISO_8859_1);
		assertThat(FileRendezvous.PROTOCOL).isEqualTo(2);
		MemberRecord self = FileRendezvous.announce("one", 0, 2, 1, false, Duration.ofSeconds(3), List.of());

		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("disagree on the mesh protocol")
			.hasMessageContaining("member-1.properties speaks protocol 1, index 0 (host " + self.host() + ", pid "
					+ self.pid() + ") speaks 2")
			.hasMessageNotContaining("cannot be read")
			.hasMessageNotContaining("holds files left by an earlier run");
	}
}
