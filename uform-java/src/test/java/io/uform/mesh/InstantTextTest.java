package io.uform.mesh;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link InstantText#parse} reads what {@link Instant#toString()} writes, and on any text at all
 * behaves as {@link Instant#parse} does: the same instant, or the same exception.
 */
class InstantTextTest {

	/** 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z, the years toString writes with four digits. */
	private static final long FIRST = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();

	private static final long LAST = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();

	@Test
	void readsBackWhatToStringWroteAtEveryPrecision() {
		Random random = new Random(42);
		for (int i = 0; i < 200_000; i++) {
			long second = FIRST + (long) (random.nextDouble() * (LAST - FIRST));
			int nanos = switch (i % 4) {
				case 0 -> 0; // no fraction
				case 1 -> random.nextInt(1_000) * 1_000_000; // milliseconds: 3 digits
				case 2 -> random.nextInt(1_000_000) * 1_000; // microseconds: 6 digits
				default -> random.nextInt(1_000_000_000); // 9 digits
			};
			Instant instant = Instant.ofEpochSecond(second, nanos);
			assertThat(InstantText.parse(instant.toString())).as(instant.toString()).isEqualTo(instant);
		}
	}

	@Test
	void readsTheEdgesOfTheCalendar() {
		for (String text : List.of("0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z",
				"1969-12-31T23:59:59.999Z", "2024-02-29T12:00:00Z", "2000-02-29T00:00:00.000001Z",
				"1900-03-01T00:00:00Z", "2026-12-01T21:07:54.124012636Z")) {
			assertThat(InstantText.parse(text)).as(text).isEqualTo(Instant.parse(text));
		}
	}

	@Test
	void leavesOtherShapesToInstantParse() {
		// Shapes toString writes only outside 0000-9999, or never, that Instant.parse reads all the same
		// (a leap second, an end of day at 24:00, a fraction of another length or none after the point).
		for (String text : List.of("+10000-01-01T00:00:00Z", "-0001-12-31T23:59:59Z", "2016-12-31T23:59:60Z",
				"2026-12-01T21:07:54.1Z", "2026-12-01T21:07:54.12345Z", "2026-12-01T21:07:54.Z",
				"2026-12-01T24:00:00Z")) {
			assertThat(InstantText.parse(text)).as(text).isEqualTo(Instant.parse(text));
		}
	}

	@Test
	void rejectsWhatInstantParseRejects() {
		for (String text : List.of("", "Z", "garbage", "2026-12-01", "2026-12-01T21:07:54", "2026-12-01T21:07Z",
				"2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-12-32T00:00:00Z",
				"2026-12-01T23:60:00Z", "2026-12-01T23:59:61Z", "2026-12-01 21:07:54Z",
				"2026-12-01T21:07:54.1234567890Z", "2026-12-01T21:07:54,123Z", "2026-12-01T21:07:54.12aZ",
				"2026/12/01T21:07:54Z", "20x6-12-01T21:07:54Z", "2026-12-01T21:07:54Z ")) {
			assertSameOutcome(text);
			assertThatExceptionOfType(DateTimeParseException.class).as(text).isThrownBy(() -> InstantText.parse(text));
		}
	}

	@Test
	void behavesAsInstantParseOnMutatedText() {
		// Every one-character change of written instants: the fast path must never accept what
		// Instant.parse rejects, nor read a different instant than it does.
		Random random = new Random(7);
		String alphabet = "0123456789-:.TZz+ x";
		for (int i = 0; i < 20_000; i++) {
			long second = FIRST + (long) (random.nextDouble() * (LAST - FIRST));
			String text = Instant.ofEpochSecond(second, (i % 2 == 0) ? 0 : random.nextInt(1_000_000_000)).toString();
			StringBuilder mutated = new StringBuilder(text);
			int at = random.nextInt(text.length());
			switch (random.nextInt(3)) {
				case 0 -> mutated.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
				case 1 -> mutated.deleteCharAt(at);
				default -> mutated.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
			}
			assertSameOutcome(mutated.toString());
		}
	}

	private static void assertSameOutcome(String text) {
		Instant expected;
		try {
			expected = Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			assertThatExceptionOfType(DateTimeParseException.class).as(text).isThrownBy(() -> InstantText.parse(text));
			return;
		}
		assertThat(InstantText.parse(text)).as(text).isEqualTo(expected);
	}
}
