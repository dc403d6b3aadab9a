package io.uform.mesh;

/**
 * Writes and reads the names of a job directory's files: {@code member-<index>.properties},
 * {@code ready-<index>.properties}, {@code left-<index>.properties} (an index of 1 to 10 ASCII
 * digits) and {@code abort-<incarnation>.properties} (1 to 64 of {@code 0-9}, {@code a-f} and
 * {@code -}).
 *
 * <p>By hand rather than with regular expressions: the last process to arrive is the first of its
 * JVM to read these names, on the critical path of every join, where compiling and first running the
 * patterns would come first. {@code FileNamesTest} checks that these
 * methods accept exactly what the patterns {@code <kind>-(\d{1,10})\.properties} and
 * {@code abort-([0-9a-f-]{1,64})\.properties} match.
 */
final class FileNames {

	static final String MEMBER = "member-";

	static final String READY = "ready-";

	static final String LEFT = "left-";

	static final String ABORT = "abort-";

	/** A member's heartbeat, rewritten in place every refresh ({@code Liveness}). */
	static final String ALIVE = "alive-";

	/** A member found dead, by the member that found it ({@code Liveness}). */
	static final String DEAD = "dead-";

	/** The first death of a joined run: every member reads this one name every refresh. */
	static final String BROKEN = "broken.properties";

	private static final String SUFFIX = ".properties";

	private FileNames() {
	}

	/**
	 * A file's name.
	 * @param kind {@link #MEMBER}, {@link #READY}, {@link #LEFT} or {@link #ABORT}
	 * @param id the index (or, for an abort file, the incarnation)
	 * @return {@code <kind><id>.properties}
	 */
	static String name(String kind, Object id) {
		return kind + id + SUFFIX;
	}

	/**
	 * The digits of an indexed file's name.
	 * @param name a file name
	 * @param kind {@link #MEMBER}, {@link #READY} or {@link #LEFT}
	 * @return the index as written (leading zeros kept), or {@code null} when the name is not of that kind
	 */
	static String digits(String name, String kind) {
		int end = middleEnd(name, kind, 10);
		if (end < 0) {
			return null;
		}
		for (int i = kind.length(); i < end; i++) {
			char c = name.charAt(i);
			if (c < '0' || c > '9') {
				return null;
			}
		}
		return name.substring(kind.length(), end);
	}

	/**
	 * The index of an indexed file.
	 * @param name a file name
	 * @param kind {@link #MEMBER}, {@link #READY} or {@link #LEFT}
	 * @return the index; {@link Integer#MAX_VALUE} for ten digits beyond an {@code int}; {@code -1} when
	 *         the name is not of that kind
	 */
	static int index(String name, String kind) {
		String digits = digits(name, kind);
		if (digits == null) {
			return -1;
		}
		long value = Long.parseLong(digits);
		return (value > Integer.MAX_VALUE) ? Integer.MAX_VALUE : (int) value;
	}

	/**
	 * Whether a name is of an indexed kind.
	 * @param name a file name
	 * @param kind {@link #MEMBER}, {@link #READY} or {@link #LEFT}
	 * @return whether {@link #digits} reads it
	 */
	static boolean is(String name, String kind) {
		return digits(name, kind) != null;
	}

	/**
	 * The incarnation an abort file names.
	 * @param name a file name
	 * @return the incarnation, or {@code null} when the name is not an abort file's
	 */
	static String abortIncarnation(String name) {
		int end = middleEnd(name, ABORT, 64);
		if (end < 0) {
			return null;
		}
		for (int i = ABORT.length(); i < end; i++) {
			char c = name.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-')) {
				return null;
			}
		}
		return name.substring(ABORT.length(), end);
	}

	/**
	 * Where the part between {@code prefix} and {@code .properties} ends, when the name has both and
	 * 1 to {@code longest} characters between them; else {@code -1}.
	 */
	private static int middleEnd(String name, String prefix, int longest) {
		int middle = name.length() - prefix.length() - SUFFIX.length();
		if (middle < 1 || middle > longest || !name.startsWith(prefix) || !name.endsWith(SUFFIX)) {
			return -1;
		}
		return name.length() - SUFFIX.length();
	}
}
