package io.uform.mesh;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.uform.mesh.MemberRecord.MemberDevice;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A member record's file: a process recognises its own record by its bytes, so one record must give
 * the same bytes every time, and every value must read back as it was written.
 */
class MemberRecordTest {

	@Test
	void oneRecordGivesTheSameBytesEveryTimeWithNoDateInThem() {
		MemberRecord record = FileRendezvous.announce("bytes", 0, 2, 1, false, Duration.ofSeconds(20), List.of());
		byte[] first = record.toBytes();
		assertThat(record.toBytes()).isEqualTo(first);
		// Properties.store wrote a "#<date>" line, to the second: two writes a second apart differed. Only
		// the fixed comment is left, so no clock can change the bytes (checked here without waiting a second).
		List<String> comments = Arrays.stream(new String(first, StandardCharsets.ISO_8859_1).split("\n"))
			.filter((line) -> line.startsWith("#") || line.startsWith("!"))
			.toList();
		assertThat(comments).containsExactly("# uform mesh member record (see io.uform.mesh.FileRendezvous)");
	}

	@Test
	void everyValueReadsBackAsWrittenAndTheFileIsAscii() {
		Instant when = Instant.parse("2025-01-02T03:04:05.123456789Z");
		MemberRecord record = new MemberRecord(FileRendezvous.PROTOCOL, "run-ü 42", 3, 4, 8, true, "inc",
				" node=a:b#c!d\\e\tf\ng\rh\fi", "boot/pid:[1]", 42, when, when, Duration.ofMinutes(2), when,
				List.of(new MemberDevice("NVIDIA", "H100 中文 \u0001", "GPU-1", "", 80L << 30, true)));
		byte[] bytes = record.toBytes();
		assertThat(MemberRecord.parse(bytes)).isEqualTo(record);
		for (byte b : bytes) {
			assertThat(b).as("every byte printable ASCII or a line end").matches((c) -> c == '\n' || (c >= 0x20 && c <= 0x7e));
		}
	}
}
