package io.uform.host;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Parses and prints the Linux cpulist syntax used by {@code /sys/devices/system/node/nodeN/cpulist},
 * {@code /sys/devices/system/cpu/online} and {@code Cpus_allowed_list}: comma-separated items, each
 * a number {@code N} or an inclusive range {@code A-B}, for example {@code 0-3,8-11}.
 */
public final class CpuList {

	private CpuList() {
	}

	/**
	 * Parses a cpulist.
	 * @param text the list; blank means no CPUs
	 * @return the CPU ids, ascending, without duplicates
	 * @throws IllegalArgumentException naming the item that is not a number or range
	 */
	public static int[] parse(String text) {
		BitSet cpus = new BitSet();
		String trimmed = (text != null) ? text.trim() : "";
		if (trimmed.isEmpty()) {
			return new int[0];
		}
		for (String item : trimmed.split(",")) {
			String part = item.trim();
			if (part.isEmpty()) {
				continue;
			}
			int dash = part.indexOf('-');
			try {
				if (dash < 0) {
					cpus.set(Integer.parseInt(part));
				}
				else {
					int from = Integer.parseInt(part.substring(0, dash));
					int to = Integer.parseInt(part.substring(dash + 1));
					if (to < from) {
						throw new IllegalArgumentException("Descending range '" + part + "' in cpulist '" + trimmed + "'");
					}
					cpus.set(from, to + 1);
				}
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException("Item '" + part + "' of cpulist '" + trimmed + "' is not N or A-B", ex);
			}
		}
		return cpus.stream().toArray();
	}

	/**
	 * Prints CPU ids as a compact cpulist.
	 * @param cpus ascending CPU ids
	 * @return a list like {@code 0-3,8}
	 */
	public static String format(int[] cpus) {
		int[] sorted = cpus.clone();
		Arrays.sort(sorted);
		StringBuilder out = new StringBuilder();
		int i = 0;
		while (i < sorted.length) {
			int j = i;
			while (j + 1 < sorted.length && sorted[j + 1] == sorted[j] + 1) {
				j++;
			}
			if (out.length() > 0) {
				out.append(',');
			}
			out.append(sorted[i]);
			if (j > i) {
				out.append('-').append(sorted[j]);
			}
			i = j + 1;
		}
		return out.toString();
	}
}
