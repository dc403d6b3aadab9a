package io.uform.mesh;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.uform.mesh.MemberRecord.MemberDevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A member record's file: a process recognises its own record by its bytes, so one record must give
 * the same bytes every time, and every value must read back as it was written (an absent process
 * start time included); a file with a key missing or a number out of range is refused naming the key.
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

	private static MemberRecord record(int index, Instant processStarted) {
		Instant when = Instant.parse("2025-01-02T03:04:05Z");
		return new MemberRecord(FileRendezvous.PROTOCOL, "run", index, 4, 8, false, "inc", "node-a", "boot", 42,
				processStarted, when, Duration.ofMinutes(2), when, List.of());
	}

	private static byte[] replace(byte[] bytes, String line, String with) {
		String text = new String(bytes, StandardCharsets.ISO_8859_1);
		assertThat(text).contains(line);
		return text.replace(line, with).getBytes(StandardCharsets.ISO_8859_1);
	}

	@Test
	void aRecordWithoutAProcessStartTimeReadsBackWithoutOne() {
		MemberRecord record = record(0, null);
		assertThat(MemberRecord.parse(record.toBytes())).isEqualTo(record);
		assertThat(MemberRecord.parse(record.toBytes()).processStarted()).isNull();
	}

	@Test
	void aMissingKeyIsRefusedNamingIt() {
		byte[] bytes = replace(record(0, null).toBytes(), "member.host=node-a\n", "");
		assertThatIllegalArgumentException().isThrownBy(() -> MemberRecord.parse(bytes))
			.withMessage("key member.host is missing");
	}

	@Test
	void aWholeNumberPastAnIntIsRefusedAsOutOfRangeAndTheLargestIntIsKept() {
		byte[] largest = replace(record(0, null).toBytes(), "member.index=0\n", "member.index=" + Integer.MAX_VALUE + "\n");
		assertThat(MemberRecord.parse(largest).index()).isEqualTo(Integer.MAX_VALUE);
		byte[] smallest = replace(record(0, null).toBytes(), "member.index=0\n", "member.index=" + Integer.MIN_VALUE + "\n");
		assertThat(MemberRecord.parse(smallest).index()).isEqualTo(Integer.MIN_VALUE);
		byte[] past = replace(record(0, null).toBytes(), "member.index=0\n", "member.index=4294967296\n");
		assertThatIllegalArgumentException().isThrownBy(() -> MemberRecord.parse(past))
			.withMessage("key member.index = 4294967296 is out of range");
		byte[] below = replace(record(0, null).toBytes(), "member.index=0\n", "member.index=-2147483649\n");
		assertThatIllegalArgumentException().isThrownBy(() -> MemberRecord.parse(below))
			.withMessage("key member.index = -2147483649 is out of range");
	}

	@Test
	void instantsAreWrittenAsNanosecondsSinceTheEpochAndTextIsRefusedNamingTheKey() {
		MemberRecord record = record(0, Instant.parse("2025-01-02T03:04:05.000000007Z"));
		String text = new String(record.toBytes(), StandardCharsets.ISO_8859_1);
		assertThat(text).contains("member.processStarted=1735787045000000007\n",
				"member.bootstrapStarted=1735787045000000000\n", "member.written=1735787045000000000\n");
		byte[] iso = replace(record.toBytes(), "member.written=1735787045000000000\n",
				"member.written=2025-01-02T03:04:05Z\n");
		assertThatIllegalArgumentException().isThrownBy(() -> MemberRecord.parse(iso))
			.withMessage("key member.written = 2025-01-02T03:04:05Z is not an instant in nanoseconds since the epoch");
	}
}
