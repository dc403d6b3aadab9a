package io.uform.host;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Parses and prints the Linux cpulist syntax used by {@code /sys/devices/system/node/nodeN/cpulist},
 * {@code /sys/devices/system/cpu/online} and {@code Cpus_allowed_list}: comma-separated items, each
 * a number {@code N} or an inclusive range {@code A-B}, for example {@code 0-3,8-11}.
 */
public final class CpuList {

	/**
	 * One more than the largest CPU id accepted: Linux's NR_CPUS is at most 8192 today; a larger id is
	 * a corrupt file, which would otherwise overflow a range's end or allocate a set of that size.
	 */
	static final int MAX_CPUS = 1 << 20;

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
					cpus.set(cpuId(part, part, trimmed));
				}
				else {
					int from = cpuId(part.substring(0, dash), part, trimmed);
					int to = cpuId(part.substring(dash + 1), part, trimmed);
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

	/** A CPU id of an item, 0 to {@link #MAX_CPUS} - 1. */
	private static int cpuId(String id, String item, String list) {
		int cpu = Integer.parseInt(id);
		if (cpu < 0 || cpu >= MAX_CPUS) {
			throw new IllegalArgumentException("Item '" + item + "' of cpulist '" + list + "' names CPU " + cpu
					+ ", outside 0-" + (MAX_CPUS - 1));
		}
		return cpu;
	}
}
