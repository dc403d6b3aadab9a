package io.uform.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Applies {@code ROCR_VISIBLE_DEVICES}, then {@code HIP_VISIBLE_DEVICES}, to the list of AMD GPUs,
 * the way ROCm's runtime does (native-interfaces.md 3.6):
 * <ul>
 * <li>{@code ROCR_VISIBLE_DEVICES}: comma-separated tokens, trimmed and upper-cased. A token starting
 * with {@code G} is a UUID ({@code GPU-} + 16 hex digits) or a unique prefix of one, at least 5
 * characters; any other token is an index into the GPU list ({@code strtol} base 0: decimal,
 * {@code 0x} hex, leading-0 octal). The list order becomes the new order. The first token that is
 * invalid, out of range, ambiguous or repeated ends the list. Set but empty exposes nothing.</li>
 * <li>{@code HIP_VISIBLE_DEVICES}: indices into what ROCR left, with the same stopping rules.</li>
 * </ul>
 * {@code CUDA_VISIBLE_DEVICES} (which HIP also honours) is deliberately not applied to AMD devices:
 * in a process that uses both vendors it is meant for CUDA. {@code GPU_DEVICE_ORDINAL} (OpenCL and
 * HIP) is not applied either; use the two variables above.
 */
final class AmdVisibility {

	/** Variable name of the ROCr filter. */
	static final String ROCR = "ROCR_VISIBLE_DEVICES";

	/** Variable name of the HIP filter. */
	static final String HIP = "HIP_VISIBLE_DEVICES";

	private AmdVisibility() {
	}

	/**
	 * The visible GPUs.
	 * @param environment the process environment (a map, so tests need not change the real one)
	 * @param uuids each GPU's UUID in KFD order, {@code null} where the GPU has none
	 * @return indices into {@code uuids}, in the order the runtime numbers them
	 */
	static List<Integer> visible(Map<String, String> environment, List<String> uuids) {
		List<Integer> all = new ArrayList<>();
		for (int i = 0; i < uuids.size(); i++) {
			all.add(i);
		}
		List<Integer> rocr = filter(environment.get(ROCR), all, uuids, true);
		return filter(environment.get(HIP), rocr, uuids, false);
	}

	private static List<Integer> filter(String variable, List<Integer> candidates, List<String> uuids,
			boolean uuidTokens) {
		if (variable == null) {
			return candidates;
		}
		List<Integer> chosen = new ArrayList<>();
		for (String raw : variable.split(",", -1)) {
			String token = raw.trim().toUpperCase(Locale.ROOT);
			int pick = token.startsWith("G") ? (uuidTokens ? byUuid(token, candidates, uuids) : -1) : byIndex(token,
					candidates.size());
			if (pick < 0) {
				break;
			}
			Integer gpu = uuidTokens && token.startsWith("G") ? pick : candidates.get(pick);
			if (chosen.contains(gpu)) {
				break;
			}
			chosen.add(gpu);
		}
		return chosen;
	}

	/** The one GPU whose UUID starts with the token, or -1 when none or several do. */
	private static int byUuid(String token, List<Integer> candidates, List<String> uuids) {
		if (token.length() < 5) {
			return -1;
		}
		int found = -1;
		for (int gpu : candidates) {
			String uuid = uuids.get(gpu);
			if (uuid != null && uuid.toUpperCase(Locale.ROOT).startsWith(token)) {
				if (found >= 0) {
					return -1;
				}
				found = gpu;
			}
		}
		return found;
	}

	/** The index a token names, as {@code strtol(token, &end, 0)} with a fully consumed token, or -1. */
	private static int byIndex(String token, int size) {
		long value;
		try {
			if (token.startsWith("0X")) {
				value = Long.parseLong(token.substring(2), 16);
			}
			else if (token.length() > 1 && token.startsWith("0")) {
				value = Long.parseLong(token.substring(1), 8);
			}
			else {
				value = Long.parseLong(token);
			}
		}
		catch (NumberFormatException ex) {
			return -1;
		}
		return value >= 0 && value < size ? (int) value : -1;
	}
}
