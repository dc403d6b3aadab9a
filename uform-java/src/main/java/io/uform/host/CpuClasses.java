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

import io.uform.failure.FailureFactory;

/**
 * uform's vocabulary of CPU classes, spelled {@code vendor-name}, and which of them this CPU offers.
 * A class names the instruction sets its kernels use; it is available when every flag it needs is
 * in {@code /proc/cpuinfo} ({@code flags} on x86, {@code Features} on aarch64), whoever made the
 * CPU: an AMD Zen 4 offers {@code intel-icelake} too, and an Intel Sapphire Rapids offers
 * {@code amd-genoa}. The vendor in a name says where the instruction mix first appeared, not who
 * may run it.
 *
 * <h2>The vocabulary</h2>
 * The flag sets follow what the runtime probes of NumKong 7 / SimSIMD 6 test for their dispatch
 * classes of the same names (the table is in {@code docs/executors.md}), with three deliberate differences:
 * <ul>
 * <li>Classes are cumulative along a chain: each needs the flags of the class it extends, so a
 * kernel for a class may use everything below it, and "available" stays a plain superset test.</li>
 * <li>{@code intel-skylake} needs the whole x86-64-v4 set ({@code avx512f bw cd dq vl}), not
 * {@code avx512f} alone: Xeon Phi (Knights Landing) has AVX-512F without BW/DQ/VL, and Skylake
 * kernels use byte and word masks.</li>
 * <li>Classes whose flags Linux does not print in {@code /proc/cpuinfo} are left out, because a
 * class that can never be detected would only mislead: Granite Rapids AMX-FP16 ({@code amx_fp16}
 * is hidden on ~6.8 kernels), Sierra Forest AVX-VNNI-INT8 (a KVM-only definition) and AVX10.2
 * (flag name unverified).</li>
 * </ul>
 *
 * <table>
 * <caption>Classes, each with the class it extends and the flags it adds</caption>
 * <tr><th>class</th><th>extends</th><th>adds</th></tr>
 * <tr><td>{@code serial}</td><td>-</td><td>nothing: plain Java, every CPU</td></tr>
 * <tr><td>{@code intel-haswell}</td><td>-</td><td>avx2 f16c fma</td></tr>
 * <tr><td>{@code intel-alderlake}</td><td>intel-haswell</td><td>avx_vnni (AVX2-width int8 dot
 * products, for CPUs without AVX-512: Alder Lake and later client chips, Sierra Forest; Zen 5
 * and Sapphire Rapids have it too)</td></tr>
 * <tr><td>{@code intel-skylake}</td><td>intel-haswell</td><td>avx512f avx512bw avx512cd
 * avx512dq avx512vl</td></tr>
 * <tr><td>{@code intel-icelake}</td><td>intel-skylake</td><td>avx512_vnni avx512ifma
 * avx512_bitalg avx512_vbmi2 avx512_vpopcntdq avx512vbmi</td></tr>
 * <tr><td>{@code amd-genoa}</td><td>intel-icelake</td><td>avx512_bf16</td></tr>
 * <tr><td>{@code amd-turin}</td><td>amd-genoa</td><td>avx512_vp2intersect</td></tr>
 * <tr><td>{@code intel-sapphirerapids}</td><td>amd-genoa</td><td>avx512_fp16</td></tr>
 * <tr><td>{@code intel-sapphireamx}</td><td>intel-sapphirerapids</td><td>amx_tile amx_bf16
 * amx_int8 (kernels must still ask Linux for AMX state with {@code arch_prctl} before first
 * use)</td></tr>
 * <tr><td>{@code arm-neon}</td><td>-</td><td>asimd (every AArch64 CPU)</td></tr>
 * <tr><td>{@code arm-neonhalf}</td><td>arm-neon</td><td>asimdhp (FP16 arithmetic)</td></tr>
 * <tr><td>{@code arm-neonsdot}</td><td>arm-neonhalf</td><td>asimddp i8mm (int8 dot products
 * and matrix multiply)</td></tr>
 * <tr><td>{@code arm-sve}</td><td>arm-neonhalf</td><td>sve</td></tr>
 * <tr><td>{@code arm-sve2}</td><td>arm-sve</td><td>sve2</td></tr>
 * </table>
 *
 * <p>The chains branch ({@code intel-alderlake} beside {@code intel-skylake}, {@code amd-turin}
 * beside {@code intel-sapphirerapids}, {@code arm-neonsdot} beside {@code arm-sve}), so "best" is
 * not simply the longest chain: {@link #known()} lists the classes in order of preference and
 * {@link #best()} is the last available one in that order. {@code arm-sve} does not need
 * {@code i8mm}, so Fujitsu A64FX (SVE without dot products) still gets SVE kernels.
 * {@code serial} is always available.
 *
 * <h2>Architectures</h2>
 * The {@code intel-*} and {@code amd-*} classes are for x86-64 CPUs, the {@code arm-*} classes
 * for aarch64 ones, and {@code serial} for every CPU. The architecture is read from the same file:
 * x86-64 where {@code /proc/cpuinfo} has {@code flags} lines, aarch64 where it has
 * {@code Features} lines, and from the JVM's {@code os.arch} where it has neither. An unknown class
 * name is answered with the nearest known names and the classes of this architecture only.
 */
public final class CpuClasses {

	/** The class every CPU has: portable code with no SIMD dispatch. */
	public static final String SERIAL = "serial";

	/** The architecture of the {@code intel-*} and {@code amd-*} classes, as messages name it. */
	static final String X86_64 = "x86-64";

	/** The architecture of the {@code arm-*} classes, as messages name it. */
	static final String AARCH64 = "aarch64";

	private static final Map<String, Set<String>> REQUIRED = vocabulary();

	private static volatile CpuClasses system;

	private final Set<String> flags;

	private final List<String> available;

	private final String architecture;

	private CpuClasses(Set<String> flags, String architecture) {
		this.flags = Collections.unmodifiableSet(new TreeSet<>(flags));
		this.architecture = architecture;
		List<String> offered = new ArrayList<>();
		REQUIRED.forEach((name, needs) -> {
			if (flags.containsAll(needs)) {
				offered.add(name);
			}
		});
		this.available = List.copyOf(offered);
	}

	/** The classes in order of preference; each one's flags include those of the class it extends. */
	private static Map<String, Set<String>> vocabulary() {
		Map<String, Set<String>> classes = new LinkedHashMap<>();
		classes.put(SERIAL, Set.of());
		extend(classes, null, "intel-haswell", "avx2", "f16c", "fma");
		extend(classes, "intel-haswell", "intel-alderlake", "avx_vnni");
		extend(classes, "intel-haswell", "intel-skylake", "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl");
		extend(classes, "intel-skylake", "intel-icelake", "avx512_vnni", "avx512ifma", "avx512_bitalg", "avx512_vbmi2",
				"avx512_vpopcntdq", "avx512vbmi");
		extend(classes, "intel-icelake", "amd-genoa", "avx512_bf16");
		extend(classes, "amd-genoa", "amd-turin", "avx512_vp2intersect");
		extend(classes, "amd-genoa", "intel-sapphirerapids", "avx512_fp16");
		extend(classes, "intel-sapphirerapids", "intel-sapphireamx", "amx_tile", "amx_bf16", "amx_int8");
		// aarch64, by the hwcap names of the Features line.
		extend(classes, null, "arm-neon", "asimd");
		extend(classes, "arm-neon", "arm-neonhalf", "asimdhp");
		extend(classes, "arm-neonhalf", "arm-neonsdot", "asimddp", "i8mm");
		extend(classes, "arm-neonhalf", "arm-sve", "sve");
		extend(classes, "arm-sve", "arm-sve2", "sve2");
		return Collections.unmodifiableMap(classes);
	}

	private static void extend(Map<String, Set<String>> classes, String base, String name, String... adds) {
		Set<String> flags = new TreeSet<>((base != null) ? classes.get(base) : Set.of());
		flags.addAll(Arrays.asList(adds));
		classes.put(name, Collections.unmodifiableSet(flags));
	}

	/**
	 * The classes of the CPU this JVM runs on, read once from {@code /proc/cpuinfo}.
	 * @return the classes; only {@code serial} where the file is missing or unreadable, or where it
	 *         describes another architecture than the JVM's
	 */
	public static CpuClasses system() {
		CpuClasses classes = system;
		if (classes == null) {
			classes = forThisJvm(read(Path.of("/")), System.getProperty("os.arch"));
			system = classes;
		}
		return classes;
	}

	/**
	 * The classes a JVM of architecture {@code osArch} may use from what {@code /proc/cpuinfo} says:
	 * none but {@code serial} where the file describes another architecture (an x86-64 JVM under
	 * Rosetta for Linux or qemu-user reads the ARM kernel's file; LoongArch prints {@code Features}
	 * lines as aarch64 does), since the JVM runs the other architecture's instructions, not the
	 * kernel's.
	 * @param read the classes the file gives
	 * @param osArch the JVM's {@code os.arch}
	 * @return {@code read}, or only {@code serial} on a mismatch
	 */
	static CpuClasses forThisJvm(CpuClasses read, String osArch) {
		String jvm = architectureOf(osArch);
		if (osArch == null || java.util.Objects.equals(jvm, read.architecture)) {
			return read;
		}
		return new CpuClasses(Set.of(), jvm);
	}

	/**
	 * The classes of the machine under a root directory that holds {@code proc/cpuinfo} as a Linux
	 * machine does.
	 * @param root {@code /} for the running machine, a fixture tree in tests
	 * @return the classes; only {@code serial} where the file is missing or unreadable
	 */
	public static CpuClasses read(Path root) {
		return read(root, System.getProperty("os.arch"));
	}

	/**
	 * As {@link #read(Path)}, with the {@code os.arch} to fall back on given.
	 * @param root the root directory
	 * @param osArch the architecture where the file does not say, spelled as {@code os.arch}
	 * @return the classes
	 */
	static CpuClasses read(Path root, String osArch) {
		String text = "";
		try {
			Path cpuinfo = root.resolve("proc/cpuinfo");
			if (Files.isReadable(cpuinfo)) {
				text = Files.readString(cpuinfo);
			}
		}
		catch (IOException ex) {
			// No cpuinfo (not Linux, or a sandbox): only serial is safe to dispatch.
		}
		return fromCpuinfo(text, osArch);
	}

	/**
	 * The classes a {@code /proc/cpuinfo} text offers, judged by the flags every processor in it
	 * reports. Linux prints the same flags for every CPU of a machine today; taking the common part
	 * keeps a class off a machine where some CPU might lack it.
	 * @param cpuinfo the file's text
	 * @return the classes
	 */
	public static CpuClasses fromCpuinfo(String cpuinfo) {
		return fromCpuinfo(cpuinfo, System.getProperty("os.arch"));
	}

	/**
	 * As {@link #fromCpuinfo(String)}, with the {@code os.arch} to fall back on given: the
	 * architecture is x86-64 where the text has {@code flags} lines, aarch64 where it has
	 * {@code Features} lines, and {@code osArch}'s where it has neither.
	 * @param cpuinfo the file's text
	 * @param osArch the architecture where the text does not say, spelled as {@code os.arch}
	 * @return the classes
	 */
	static CpuClasses fromCpuinfo(String cpuinfo, String osArch) {
		Set<String> flags = null;
		String architecture = null;
		for (String line : cpuinfo.split("\n")) {
			int colon = line.indexOf(':');
			if (colon < 0) {
				continue;
			}
			String key = line.substring(0, colon).trim();
			if (key.equals("flags") || key.equals("Features")) {
				architecture = key.equals("flags") ? X86_64 : AARCH64;
				Set<String> these = new TreeSet<>(Arrays.asList(line.substring(colon + 1).trim().split("\\s+")));
				these.remove("");
				if (flags == null) {
					flags = these;
				}
				else {
					flags.retainAll(these);
				}
			}
		}
		return new CpuClasses((flags != null) ? flags : Set.of(),
				(architecture != null) ? architecture : architectureOf(osArch));
	}

	/**
	 * The architecture an {@code os.arch} value names, as the classes know them.
	 * @param osArch like {@code amd64} or {@code aarch64}
	 * @return {@link #X86_64}, {@link #AARCH64}, or {@code null} for any other architecture
	 */
	static String architectureOf(String osArch) {
		if (osArch == null) {
			return null;
		}
		return switch (osArch) {
			case "amd64", "x86_64", "x86-64" -> X86_64;
			case "aarch64", "arm64" -> AARCH64;
			default -> null;
		};
	}

	/** The architecture whose CPUs a class is for: {@code null} for {@code serial}, which is for all. */
	private static String architectureOfClass(String cpuClass) {
		if (cpuClass.equals(SERIAL)) {
			return null;
		}
		return cpuClass.startsWith("arm-") ? AARCH64 : X86_64;
	}

	/**
	 * Every class uform knows, in order of preference: plainest first, and where two classes
	 * branch off the same one, the one preferred when a CPU offers both comes later.
	 * @return the vocabulary
	 */
	public static List<String> known() {
		return List.copyOf(REQUIRED.keySet());
	}

	/**
	 * The flags a class needs.
	 * @param cpuClass a known class
	 * @param errors makes the exception for an unknown class
	 * @return its flags, empty for {@code serial}
	 */
	public static Set<String> requiredFlags(String cpuClass, FailureFactory errors) {
		Set<String> needs = REQUIRED.get(cpuClass);
		if (needs == null) {
			throw unknown("cpuClass", cpuClass, architectureOf(System.getProperty("os.arch")), null, errors);
		}
		return needs;
	}

	/**
	 * The classes this CPU offers, in the order of {@link #known()}.
	 * @return at least {@code serial}
	 */
	public List<String> available() {
		return this.available;
	}

	/**
	 * The preferred class this CPU offers (the last available one in {@link #known()} order): the
	 * one an absent {@code cpuClass} derives.
	 * @return a class name
	 */
	public String best() {
		return this.available.get(this.available.size() - 1);
	}

	/**
	 * The architecture of this CPU, as the class names divide them.
	 * @return {@link #X86_64}, {@link #AARCH64}, or {@code null} when neither
	 */
	String architecture() {
		return this.architecture;
	}

	/**
	 * The CPU flags the classes were judged by.
	 * @return the flags every processor reports
	 */
	public Set<String> flags() {
		return this.flags;
	}

	/**
	 * Checks a requested class: known, and offered by this CPU.
	 * @param field the config field, as the user spells it, for the message
	 * @param requested the class, or {@code null} for the CPU's best
	 * @param errors makes the exception for a class it refuses
	 * @return the class to dispatch as
	 * @throws RuntimeException {@code INVALID_ARGUMENT} naming the nearest known classes and listing
	 *         this architecture's classes, or listing the classes this CPU offers
	 */
	public String resolve(String field, String requested, FailureFactory errors) {
		if (requested == null) {
			return best();
		}
		if (!REQUIRED.containsKey(requested)) {
			throw unknown(field, requested, this.architecture, this.available, errors);
		}
		if (!this.available.contains(requested)) {
			Set<String> missing = new TreeSet<>(REQUIRED.get(requested));
			missing.removeAll(this.flags);
			throw errors.invalid(field, requested, "this CPU lacks " + String.join(" ", missing)
					+ "; use one of the classes it offers: " + String.join(", ", this.available)
					+ " (or leave it unset for " + best() + ")");
		}
		return requested;
	}

	/**
	 * The failure for a class name uform does not know: the nearest known names, this
	 * architecture's first (the other architecture's said to be so), then the classes this CPU
	 * offers: a class of its architecture that it lacks would only fail next ({@code available} is
	 * {@code null} where there is no CPU to ask: then this architecture's classes).
	 */
	private static RuntimeException unknown(String field, String requested, String architecture,
			List<String> available, FailureFactory errors) {
		List<String> here = new ArrayList<>();
		for (String name : REQUIRED.keySet()) {
			String of = architectureOfClass(name);
			if (architecture == null || of == null || of.equals(architecture)) {
				here.add(name);
			}
		}
		List<String> candidates = new ArrayList<>(here);
		REQUIRED.keySet().stream().filter((name) -> !here.contains(name)).forEach(candidates::add);
		List<String> near = NearestNames.nearest(requested, candidates);
		List<String> foreign = near.stream().filter((name) -> !here.contains(name)).toList();
		// Without a CPU (the vocabulary asked directly), its architecture's classes.
		String classes = (available == null)
				? ((architecture != null) ? "the " + architecture + " classes are " : "the known classes are ")
						+ String.join(", ", here)
				: "this " + ((architecture != null) ? architecture + " " : "") + "CPU offers "
						+ String.join(", ", available) + " (or leave it unset for " + available.get(available.size() - 1)
						+ ")";
		String fix;
		if (near.isEmpty()) {
			fix = "not a CPU class uform knows, nor close to one; " + classes;
		}
		else if (foreign.isEmpty()) {
			fix = "not a CPU class uform knows; did you mean " + NearestNames.either(near) + "? "
					+ Character.toUpperCase(classes.charAt(0)) + classes.substring(1);
		}
		else {
			int last = foreign.size() - 1;
			String which = (foreign.size() == near.size()) ? ((last == 0) ? "It is" : "They are")
					: (last == 0) ? foreign.get(0) + " is"
							: String.join(", ", foreign.subList(0, last)) + " and " + foreign.get(last) + " are";
			fix = "not a CPU class uform knows; did you mean " + NearestNames.either(near) + "? " + which + " for "
					+ architectureOfClass(foreign.get(0)) + " CPUs; " + classes;
		}
		return errors.invalid(field, "'" + requested + "'", fix);
	}
}
