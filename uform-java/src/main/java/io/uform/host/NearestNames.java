package io.uform.host;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The "did you mean" of uform's messages: which names of a vocabulary a mistyped one is nearest,
 * by Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions
 * and swaps of two neighbouring characters each count 1), ignoring case. uform's vocabularies are
 * spelled {@code vendor-name}, so a name given without its vendor or with another vendor's counts
 * as one edit more than its part after the vendor: {@code haswell} and {@code amd-haswell} are
 * each 1 from {@code intel-haswell}, {@code hoper} is 2 from {@code nvidia-hopper}.
 *
 * <p>Not part of uform's API: it is public only so that the class vocabularies in
 * {@code io.uform}, {@code io.uform.host} and {@code io.uform.gpu} share one distance; others (the
 * Spring Boot starter's unknown-property warnings) ask {@code Uform.nearestNames}.
 */
public final class NearestNames {

	private NearestNames() {
	}

	/**
	 * The names nearest a mistyped one: all those at the smallest distance found, if that distance
	 * is close enough to be a typo (at most a third of the shorter name's length, and never less than
	 * 2), in the order given, so a caller lists the names it prefers first.
	 * @param typed the name that matched none
	 * @param names the vocabulary
	 * @return the nearest names, empty when none is close
	 */
	public static List<String> nearest(String typed, Collection<String> names) {
		List<String> nearest = new ArrayList<>();
		if (typed == null) {
			return nearest;
		}
		int best = Integer.MAX_VALUE;
		for (String name : names) {
			int distance = Math.min(distance(typed, name), 1 + distance(unprefixed(typed), unprefixed(name)));
			if (distance > Math.max(2, Math.min(typed.length(), name.length()) / 3) || distance > best) {
				continue;
			}
			if (distance < best) {
				best = distance;
				nearest.clear();
			}
			nearest.add(name);
		}
		return nearest;
	}

	/**
	 * Names joined as a person lists alternatives: {@code a}, {@code a or b}, {@code a, b or c}.
	 * @param names at least one name
	 * @return the list as text
	 */
	public static String either(List<String> names) {
		int last = names.size() - 1;
		return (last == 0) ? names.get(0) : String.join(", ", names.subList(0, last)) + " or " + names.get(last);
	}

	/** A name without its vendor: what follows the first {@code -}, or the whole name. */
	private static String unprefixed(String name) {
		return name.substring(name.indexOf('-') + 1);
	}

	/**
	 * The optimal-string-alignment distance between two names, ignoring case.
	 * @param a one name
	 * @param b the other
	 * @return the number of edits that turn one into the other
	 */
	public static int distance(String a, String b) {
		String s = a.toLowerCase(Locale.ROOT);
		String t = b.toLowerCase(Locale.ROOT);
		int[][] d = new int[s.length() + 1][t.length() + 1];
		for (int i = 0; i <= s.length(); i++) {
			d[i][0] = i;
		}
		for (int j = 0; j <= t.length(); j++) {
			d[0][j] = j;
		}
		for (int i = 1; i <= s.length(); i++) {
			for (int j = 1; j <= t.length(); j++) {
				int cost = (s.charAt(i - 1) == t.charAt(j - 1)) ? 0 : 1;
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
				if (i > 1 && j > 1 && s.charAt(i - 1) == t.charAt(j - 2) && s.charAt(i - 2) == t.charAt(j - 1)) {
					d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
				}
			}
		}
		return d[s.length()][t.length()];
	}
}
