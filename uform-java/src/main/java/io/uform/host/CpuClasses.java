package io.uform.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.uform.UformException;

/**
 * uform's vocabulary of CPU classes, spelled {@code vendor-name}, and which of them this CPU offers.
 * A class names the instruction sets its kernels use; it is available when every flag it needs is
 * in {@code /proc/cpuinfo} ({@code flags} on x86, {@code Features} on aarch64), whoever made the
 * CPU: an AMD Zen 4 offers {@code intel-icelake} too.
 *
 * <p>Each class includes the flags of the classes before it in its family (x86 or arm), so "best"
 * is the last available one. {@code serial} (plain Java, no SIMD) is always available.
 */
public final class CpuClasses {

	/** The class every CPU has: portable code with no SIMD dispatch. */
	public static final String SERIAL = "serial";

	private static final Map<String, Set<String>> REQUIRED = vocabulary();

	private static volatile CpuClasses system;

	private final Set<String> flags;

	private final List<String> available;

	private CpuClasses(Set<String> flags) {
		this.flags = Collections.unmodifiableSet(new TreeSet<>(flags));
		List<String> offered = new ArrayList<>();
		REQUIRED.forEach((name, needs) -> {
			if (flags.containsAll(needs)) {
				offered.add(name);
			}
		});
		this.available = List.copyOf(offered);
	}

	private static Map<String, Set<String>> vocabulary() {
		Map<String, Set<String>> classes = new LinkedHashMap<>();
		classes.put(SERIAL, Set.of());
		// x86, each class a superset of the one before it.
		List<String> x86 = new ArrayList<>(List.of("avx2", "f16c", "fma"));
		classes.put("intel-haswell", Set.copyOf(x86));
		x86.addAll(List.of("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"));
		classes.put("intel-skylake", Set.copyOf(x86));
		x86.addAll(List.of("avx512_vnni", "avx512ifma", "avx512_bitalg", "avx512_vbmi2", "avx512_vpopcntdq",
				"avx512vbmi"));
		classes.put("intel-icelake", Set.copyOf(x86));
		x86.add("avx512_bf16");
		classes.put("amd-genoa", Set.copyOf(x86));
		List<String> sapphire = new ArrayList<>(x86);
		sapphire.add("avx512_fp16");
		classes.put("intel-sapphirerapids", Set.copyOf(sapphire));
		x86.add("avx512_vp2intersect");
		classes.put("amd-turin", Set.copyOf(x86));
		// aarch64, by the hwcap names of the Features line.
		List<String> arm = new ArrayList<>(List.of("asimd"));
		classes.put("arm-neon", Set.copyOf(arm));
		arm.addAll(List.of("asimdhp", "asimddp", "sve"));
		classes.put("arm-sve", Set.copyOf(arm));
		arm.add("sve2");
		classes.put("arm-sve2", Set.copyOf(arm));
		return Collections.unmodifiableMap(classes);
	}

	/**
	 * The classes of the CPU this JVM runs on, read once from {@code /proc/cpuinfo}.
	 * @return the classes; only {@code serial} where the file is missing or unreadable
	 */
	public static CpuClasses system() {
		CpuClasses classes = system;
		if (classes == null) {
			String text = "";
			try {
				Path cpuinfo = Path.of("/proc/cpuinfo");
				if (Files.isReadable(cpuinfo)) {
					text = Files.readString(cpuinfo);
				}
			}
			catch (IOException ex) {
				// No cpuinfo (not Linux, or a sandbox): only serial is safe to dispatch.
			}
			classes = fromCpuinfo(text);
			system = classes;
		}
		return classes;
	}

	/**
	 * The classes a {@code /proc/cpuinfo} text offers, judged by its first processor's flags (the
	 * kernel prints the same flags for every CPU of a machine).
	 * @param cpuinfo the file's text
	 * @return the classes
	 */
	public static CpuClasses fromCpuinfo(String cpuinfo) {
		Set<String> flags = new TreeSet<>();
		for (String line : cpuinfo.split("\n")) {
			int colon = line.indexOf(':');
			if (colon < 0) {
				continue;
			}
			String key = line.substring(0, colon).trim();
			if (key.equals("flags") || key.equals("Features")) {
				flags.addAll(Arrays.asList(line.substring(colon + 1).trim().split("\\s+")));
				break;
			}
		}
		flags.remove("");
		return new CpuClasses(flags);
	}

	/**
	 * Every class uform knows, in order from plainest to richest within each family.
	 * @return the vocabulary
	 */
	public static List<String> known() {
		return List.copyOf(REQUIRED.keySet());
	}

	/**
	 * The flags a class needs.
	 * @param cpuClass a known class
	 * @return its flags, empty for {@code serial}
	 */
	public static Set<String> requiredFlags(String cpuClass) {
		Set<String> needs = REQUIRED.get(cpuClass);
		if (needs == null) {
			throw unknown("cpuClass", cpuClass);
		}
		return needs;
	}

	/**
	 * The classes this CPU offers, plainest first.
	 * @return at least {@code serial}
	 */
	public List<String> available() {
		return this.available;
	}

	/**
	 * The richest class this CPU offers: the one an absent {@code cpuClass} derives.
	 * @return a class name
	 */
	public String best() {
		return this.available.get(this.available.size() - 1);
	}

	/**
	 * The CPU flags the classes were judged by.
	 * @return the flags of the first processor
	 */
	public Set<String> flags() {
		return this.flags;
	}

	/**
	 * Checks a requested class: known, and offered by this CPU.
	 * @param field the config field, as the user spells it, for the message
	 * @param requested the class, or {@code null} for the CPU's best
	 * @return the class to dispatch as
	 * @throws UformException {@code INVALID_ARGUMENT} listing the known or the available classes
	 */
	public String resolve(String field, String requested) {
		if (requested == null) {
			return best();
		}
		if (!REQUIRED.containsKey(requested)) {
			throw unknown(field, requested);
		}
		if (!this.available.contains(requested)) {
			Set<String> missing = new TreeSet<>(REQUIRED.get(requested));
			missing.removeAll(this.flags);
			throw UformException.invalid(field, requested, "this CPU lacks " + String.join(" ", missing)
					+ "; use one of the classes it offers: " + String.join(", ", this.available)
					+ " (or leave it unset for " + best() + ")");
		}
		return requested;
	}

	private static UformException unknown(String field, String requested) {
		return UformException.invalid(field, "'" + requested + "'",
				"not a CPU class uform knows; known classes: " + String.join(", ", REQUIRED.keySet()));
	}
}
