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
 * One record's protocol is judged the same whether the first look read it or a poll did: the first
 * poll reuses what the first look parsed, and checked the parsed number, while a record read at a poll
 * is checked by its text, as it always was.
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
}
