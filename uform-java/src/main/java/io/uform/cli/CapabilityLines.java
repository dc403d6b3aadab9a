package io.uform.cli;

import java.util.ArrayList;
import java.util.List;

import io.uform.Capabilities;
import io.uform.GpuDevice;
import io.uform.GpuVendor;
import io.uform.gpu.GpuClasses;
import io.uform.host.CpuClasses;
import io.uform.host.NumaTopology;

/**
 * The report's capability section: the available tokens in full, since programs and the C ABI read
 * them, and the compiled vocabulary by group, since listing 35 tokens on every machine hides the few
 * that matter. Every compiled token that is not available is named with the reason, so that
 * {@code numa} or {@code cuda} missing from the available line never looks like a fault.
 */
final class CapabilityLines {

	private CapabilityLines() {
	}

	/**
	 * The section, without its heading.
	 * @param snapshot what the machine offers
	 * @return lines ending in {@code \n}, each indented by two spaces
	 */
	static String of(UformInfo.Snapshot snapshot) {
		StringBuilder text = new StringBuilder();
		text.append("  available: ").append(Capabilities.join(snapshot.available())).append('\n');
		text.append("  compiled:  ").append(compiled(snapshot.compiled())).append('\n');
		List<String> missing = notAvailable(snapshot);
		if (!missing.isEmpty()) {
			text.append("  not available here:\n");
			for (String line : missing) {
				text.append("    ").append(line).append('\n');
			}
		}
		return text.toString();
	}

	/** The compiled tokens, the two class vocabularies counted rather than listed. */
	private static String compiled(List<String> compiled) {
		List<String> cpu = within(compiled, CpuClasses.known());
		List<String> gpu = within(compiled, GpuClasses.known());
		List<String> parts = new ArrayList<>();
		if (!cpu.isEmpty()) {
			parts.add(group(cpu, "CPU class"));
		}
		for (String token : compiled) {
			if (!cpu.contains(token) && !gpu.contains(token)) {
				parts.add(token);
			}
		}
		if (!gpu.isEmpty()) {
			parts.add(group(gpu, "GPU class"));
		}
		return String.join(", ", parts);
	}

	private static String group(List<String> tokens, String noun) {
		if (tokens.size() == 1) {
			return "1 " + noun + " (" + tokens.get(0) + ")";
		}
		return tokens.size() + " " + noun + "es (" + tokens.get(0) + " … " + tokens.get(tokens.size() - 1) + ")";
	}

	private static List<String> within(List<String> tokens, List<String> vocabulary) {
		return tokens.stream().filter(vocabulary::contains).toList();
	}

	/** Each compiled token that is not available, beyond the CPU classes, with why. */
	private static List<String> notAvailable(UformInfo.Snapshot snapshot) {
		List<String> available = snapshot.available();
		List<String> missing = new ArrayList<>();
		if (snapshot.compiled().contains(Capabilities.NUMA) && !available.contains(Capabilities.NUMA)) {
			missing.add(Capabilities.NUMA + ": " + numaDomains(snapshot.numa()) + ", needs 2 or more");
		}
		if (snapshot.compiled().contains(Capabilities.CUDA) && !available.contains(Capabilities.CUDA)) {
			missing.add(Capabilities.CUDA + ": no NVIDIA GPU visible");
		}
		if (snapshot.compiled().contains(Capabilities.ROCM) && !available.contains(Capabilities.ROCM)) {
			missing.add(Capabilities.ROCM + ": no AMD GPU visible");
		}
		List<String> gpuClasses = within(snapshot.compiled(), GpuClasses.known());
		long offered = gpuClasses.stream().filter(available::contains).count();
		if (offered == 0 && !gpuClasses.isEmpty()) {
			missing.add("GPU classes: " + (hasGpu(snapshot.devices()) ? "no visible GPU has a known class" : "no GPU visible"));
		}
		else if (offered < gpuClasses.size()) {
			missing.add("the other " + (gpuClasses.size() - offered) + " GPU classes: no visible GPU of those classes");
		}
		return missing;
	}

	/** Why {@code numa} is missing, in full, for the NUMA section above the capabilities. */
	static String numaReason(NumaTopology numa) {
		return "this process may use " + numaDomains(numa) + "; placing work across domains needs 2 or more";
	}

	/** The domains this process may use, and the machine's where it has more (a cpuset confines it). */
	private static String numaDomains(NumaTopology numa) {
		int usable = numa.domains().size();
		String machine = (numa.machineNodes() > usable) ? " of the machine's " + numa.machineNodes() : "";
		return usable + " NUMA domain" + (usable == 1 ? "" : "s") + machine;
	}

	private static boolean hasGpu(List<GpuDevice> devices) {
		return devices.stream().anyMatch((gpu) -> gpu.vendor() != GpuVendor.SIMULATED);
	}
}
