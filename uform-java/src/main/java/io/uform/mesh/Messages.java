package io.uform.mesh;

import java.time.Duration;
import java.util.List;

/** How the mesh's messages spell durations and lists that may be long. */
final class Messages {

	/** How many indices or files one message lists before it says how many more. */
	static final int LISTED = 8;

	private Messages() {
	}

	/** A duration as messages spell it: {@code 3 s}, {@code 0.5 s}, {@code 2 min}. */
	static String spell(Duration duration) {
		if (duration.getSeconds() >= Long.MAX_VALUE / 1000) {
			return duration.getSeconds() + " s";
		}
		long millis = duration.toMillis();
		if (millis % 60_000 == 0 && millis >= 60_000) {
			return (millis / 60_000) + " min";
		}
		if (millis % 1000 == 0) {
			return (millis / 1000) + " s";
		}
		return (millis / 1000.0) + " s";
	}

	/** The first {@link #LISTED} names, and how many more there are. */
	static String listed(List<String> items) {
		return listed(items, items.size());
	}

	/** The first {@link #LISTED} of {@code total} names, and how many more there are. */
	static String listed(List<String> first, int total) {
		String shown = String.join(", ", first.subList(0, Math.min(first.size(), LISTED)));
		return (total > LISTED) ? shown + " and " + (total - LISTED) + " more" : shown;
	}
}
