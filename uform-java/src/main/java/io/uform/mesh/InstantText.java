package io.uform.mesh;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Reads back the instants that records and markers hold, as {@link Instant#toString()} wrote them
 * ({@code 2026-12-01T21:07:54.124012636Z}), without {@link Instant#parse}: that goes through the
 * {@code java.time.format} parser, which in a cold JVM was a fifth of the CPU time of the bootstrap of
 * the process that arrives last (it reads every other record and marker, three instants a record),
 * and that bootstrap is most of how long a mesh takes to close. Text of any other shape that
 * {@code Instant.parse} accepts (a year past 9999, a leap second, other fraction lengths) goes to it
 * still, and so does text that is not an instant, so that the error is {@code Instant.parse}'s.
 */
final class InstantText {

	/** {@code yyyy-MM-ddTHH:mm:ssZ}, the shortest text {@code toString} writes. */
	private static final int WITHOUT_FRACTION = 20;

	private InstantText() {
	}

	/**
	 * The instant {@code text} names.
	 * @param text an ISO-8601 instant, as {@link Instant#toString()} writes it
	 * @return the instant
	 * @throws java.time.format.DateTimeParseException when it is not one
	 */
	static Instant parse(String text) {
		Instant fast = asWritten(text);
		return (fast != null) ? fast : Instant.parse(text);
	}

	/** The instant, when {@code text} has exactly the shape {@code toString} writes; else null. */
	private static Instant asWritten(String text) {
		int length = text.length();
		if (length < WITHOUT_FRACTION || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
				|| text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(length - 1) != 'Z') {
			return null;
		}
		int nanos = 0;
		if (length != WITHOUT_FRACTION) {
			// toString writes 3, 6 or 9 digits of fraction.
			int digits = length - WITHOUT_FRACTION - 1;
			if (text.charAt(19) != '.' || (digits != 3 && digits != 6 && digits != 9)) {
				return null;
			}
			int fraction = digits(text, 20, 20 + digits);
			if (fraction < 0) {
				return null;
			}
			nanos = fraction * ((digits == 3) ? 1_000_000 : (digits == 6) ? 1_000 : 1);
		}
		int year = digits(text, 0, 4);
		int month = digits(text, 5, 7);
		int day = digits(text, 8, 10);
		int hour = digits(text, 11, 13);
		int minute = digits(text, 14, 16);
		int second = digits(text, 17, 19);
		// A leap second (:60) is Instant.parse's to resolve.
		if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0
				|| second > 59) {
			return null;
		}
		long epochDay;
		try {
			epochDay = LocalDate.of(year, month, day).toEpochDay();
		}
		catch (DateTimeException ex) {
			// No such date (month 13, February 30): Instant.parse says so in its own words.
			return null;
		}
		return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
	}

	/** The decimal value of {@code text[from, to)}, or -1 where a character there is not an ASCII digit. */
	private static int digits(String text, int from, int to) {
		int value = 0;
		for (int i = from; i < to; i++) {
			char c = text.charAt(i);
			if (c < '0' || c > '9') {
				return -1;
			}
			value = value * 10 + (c - '0');
		}
		return value;
	}
}
