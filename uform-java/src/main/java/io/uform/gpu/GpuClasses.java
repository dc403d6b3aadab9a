package io.uform.gpu;

import java.util.List;

/**
 * uform's vocabulary of GPU classes, spelled {@code vendor-architecture}, and the rules that map a
 * device to one: NVIDIA by CUDA compute capability, AMD by the {@code gfx} target KFD reports.
 *
 * <p>A class names the architecture family kernels are built for. A device whose architecture is
 * not in the tables (older than the oldest row, or newer than this build) gets no class
 * ({@code null}): guessing "the newest class we know" for a future GPU would promise kernels that
 * may not run there, so uform says plainly that it has none.
 */
public final class GpuClasses {

	/** NVIDIA classes, oldest first. */
	private static final List<String> NVIDIA = List.of("nvidia-kepler", "nvidia-maxwell", "nvidia-pascal",
			"nvidia-volta", "nvidia-turing", "nvidia-ampere", "nvidia-ada", "nvidia-hopper", "nvidia-blackwell");

	/** AMD classes, GCN/CDNA line then RDNA line, oldest first. */
	private static final List<String> AMD = List.of("amd-gcn5", "amd-cdna", "amd-cdna2", "amd-cdna3", "amd-cdna4",
			"amd-rdna1", "amd-rdna2", "amd-rdna3", "amd-rdna4");

	private GpuClasses() {
	}

	/**
	 * Every GPU class uform knows, NVIDIA first, then AMD.
	 * @return the vocabulary
	 */
	public static List<String> known() {
		List<String> all = new java.util.ArrayList<>(NVIDIA);
		all.addAll(AMD);
		return List.copyOf(all);
	}

	/**
	 * The class of an NVIDIA device by compute capability (native-interfaces.md section 4.1).
	 * 7.5 is Turing although its major is 7; 8.9 is Ada although its major is 8; every 10.x, 11.x
	 * and 12.x part is a Blackwell (datacenter, Jetson Thor, workstation/consumer, GB10).
	 * @param major compute capability major
	 * @param minor compute capability minor
	 * @return the class, or {@code null} for capabilities older than Kepler or newer than Blackwell
	 */
	public static String nvidia(int major, int minor) {
		return switch (major) {
			case 3 -> "nvidia-kepler";
			case 5 -> "nvidia-maxwell";
			case 6 -> "nvidia-pascal";
			case 7 -> minor >= 5 ? "nvidia-turing" : "nvidia-volta";
			case 8 -> minor == 9 ? "nvidia-ada" : "nvidia-ampere";
			case 9 -> "nvidia-hopper";
			case 10, 11, 12 -> "nvidia-blackwell";
			default -> null;
		};
	}

	/**
	 * The class of an AMD device by its KFD {@code gfx_target_version} (section 4.2): gfx908, gfx90a,
	 * gfx940-942 and gfx950 are CDNA 1 to 4; the other gfx9 targets are GCN 5 (Vega); gfx101x, 103x,
	 * 11xx and 120x are RDNA 1, 2, 3 and 4. The RDNA 3.5 APUs (gfx115x) share the gfx11 ISA family and
	 * are counted as {@code amd-rdna3}.
	 * @param gfxTargetVersion major*10000 + minor*100 + stepping, as KFD prints it
	 * @return the class, or {@code null} for a target not in the table
	 */
	public static String amd(int gfxTargetVersion) {
		int major = gfxTargetVersion / 10000;
		int minor = (gfxTargetVersion / 100) % 100;
		int stepping = gfxTargetVersion % 100;
		if (major == 9) {
			if (minor == 0 && stepping == 8) {
				return "amd-cdna";
			}
			if (minor == 0 && stepping == 10) {
				return "amd-cdna2";
			}
			if (minor == 4) {
				return "amd-cdna3";
			}
			if (minor == 5) {
				return "amd-cdna4";
			}
			return minor == 0 ? "amd-gcn5" : null;
		}
		if (major == 10) {
			return switch (minor) {
				case 1 -> "amd-rdna1";
				case 3 -> "amd-rdna2";
				default -> null;
			};
		}
		if (major == 11) {
			return "amd-rdna3";
		}
		if (major == 12 && minor == 0) {
			return "amd-rdna4";
		}
		return null;
	}

	/**
	 * The LLVM target name of a {@code gfx_target_version}: {@code gfx} then major and minor in
	 * decimal and the stepping in hex, so 90010 is {@code gfx90a} and 110000 is {@code gfx1100}.
	 * @param gfxTargetVersion the encoded version
	 * @return the name, like {@code gfx942}
	 */
	public static String gfxName(int gfxTargetVersion) {
		int major = gfxTargetVersion / 10000;
		int minor = (gfxTargetVersion / 100) % 100;
		int stepping = gfxTargetVersion % 100;
		return "gfx" + major + minor + Integer.toHexString(stepping);
	}
}
