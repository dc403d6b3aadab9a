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
		Files.writeString(job.resolve("member-1.properties"), "uform.mesh.protocol=2\nmember.slot=1\nmember.of=2\n",
				StandardCharsets.ISO_8859_1);
		MemberRecord self = FileRendezvous.announce("other", 0, 2, 1, false, Duration.ofSeconds(3), List.of());

		assertThatThrownBy(() -> FileRendezvous.join(this.directory, self)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("disagree on the mesh protocol")
			.hasMessageContaining("member-1.properties speaks protocol 2")
			.hasMessageContaining("run one uform version on every host")
			.hasMessageNotContaining("holds files left by an earlier run");
		// It wrote nothing: the other version's run finds its directory as it was.
		try (var files = Files.list(job)) {
			assertThat(files.map((path) -> path.getFileName().toString())).containsExactly("member-1.properties");
		}
	}
}
