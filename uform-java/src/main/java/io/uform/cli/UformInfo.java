package io.uform.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.uform.Capabilities;
import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.GpuVendor;
import io.uform.Uform;
import io.uform.UformException;
import io.uform.gpu.GpuDiscovery;
import io.uform.host.CpuClasses;
import io.uform.host.NumaDomain;
import io.uform.host.NumaTopology;

/**
 * The first thing to run on a new machine: prints the GPUs uform sees (with live readings), the CPU
 * classes, the NUMA domains, the capabilities compiled and available, and anything discovery found
 * wrong. Run it as {@code scripts/uform-info} from a clone (after {@code ./mvnw -pl uform-java package}), or
 * as {@code java -jar uform-java-<version>-cli.jar} anywhere.
 *
 * <p>Simulated devices (opted in with {@code -Duform.devices.simulated=N} or
 * {@code UFORM_DEVICES_SIMULATED=N}) are listed after the real GPUs with vendor {@code simulated},
 * each line marked as host memory; in the CSV only the vendor column says so, so that its columns stay
 * the same.
 *
 * <p>Options: {@code --csv} prints only the GPUs, one comma-separated row each under a header, for
 * scripts (see {@code scripts/gpu-check.sh}); {@code --help} prints usage. Exit status 0, or 2 for
 * an unknown option.
 */
public final class UformInfo {

	private static final double GIB = 1024.0 * 1024 * 1024;

	/** Ends the line of a simulated device in the report. */
	static final String SIMULATED_MARKER = "(simulated: host memory, not a GPU)";

	/** Says why an Intel CPU may list {@code amd-genoa}: a level names where its instructions first shipped. */
	static final String LEVELS_NOTE = "a level is named after the first CPU with its instructions; any maker's CPU may satisfy it";

	private static final String CSV_HEADER = "ordinal,vendor,vendor_ordinal,gpu_class,compute_units,memory_bytes,name,uuid,pci_bus_id";

	private UformInfo() {
	}

	/**
	 * Runs the command.
	 * @param args {@code --csv}, {@code --help}, or nothing
	 */
	public static void main(String[] args) {
		int status = run(args, System.out, System.err);
		if (status != 0) {
			System.exit(status);
		}
	}

	/**
	 * Runs the command against given streams, so that tests need not touch the real ones.
	 * @param args the command line
	 * @param out where the report goes
	 * @param err where usage errors go
	 * @return the exit status
	 */
	public static int run(String[] args, PrintStream out, PrintStream err) {
		if (args.length == 0) {
			out.print(report(Snapshot.system()));
			return 0;
		}
		if (args.length == 1 && args[0].equals("--csv")) {
			out.print(csv(Snapshot.system()));
			return 0;
		}
		if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
			out.print(usage());
			return 0;
		}
		err.print("Unknown option: " + String.join(" ", args) + "\n" + usage());
		return 2;
	}

	private static String usage() {
		return """
				Usage: uform-info [--csv | --help]
				  (scripts/uform-info in a clone, or java -jar uform-java-<version>-cli.jar)
				  (no option)  GPUs, CPU classes, NUMA domains, capabilities and discovery problems
				  --csv        GPUs only, one comma-separated row each after a header line
				""";
	}

	/**
	 * Everything the command prints, gathered once.
	 *
	 * @param devices the GPUs in uform ordinal order
	 * @param readings a reading per device, same order
	 * @param cpu the CPU's classes
	 * @param numa the NUMA domains this process may use
	 * @param compiled capability tokens of this build
	 * @param available capability tokens of this machine
	 * @param problems what GPU discovery found wrong
	 * @param notes what GPU discovery looked at
	 */
	public record Snapshot(List<GpuDevice> devices, List<GpuReadings> readings, CpuClasses cpu, NumaTopology numa,
			List<String> compiled, List<String> available, List<String> problems, List<String> notes) {

		/**
		 * The running machine.
		 * @return a snapshot taken now
		 */
		public static Snapshot system() {
			GpuDiscovery gpus = GpuDiscovery.system();
			List<GpuDevice> devices = Uform.gpuDevices();
			List<GpuReadings> readings = new ArrayList<>();
			List<String> problems = new ArrayList<>(gpus.problems());
			for (int ordinal = 0; ordinal < devices.size(); ordinal++) {
				try {
					readings.add(Uform.gpuReadings(ordinal));
				}
				catch (UformException ex) {
					// A device lost since discovery: list it, with no readings, and say why among the problems.
					readings.add(GpuReadings.NONE);
					problems.add(ex.getMessage());
				}
			}
			CpuClasses cpu = CpuClasses.system();
			NumaTopology numa = NumaTopology.system();
			return new Snapshot(devices, readings, cpu, numa, Capabilities.compiled(),
					Capabilities.available(cpu.available(), numa.domains().size(), devices), List.copyOf(problems),
					gpus.notes());
		}
	}

	/**
	 * The human-readable report.
	 * @param snapshot what to print
	 * @return the text, lines ending in {@code \n}
	 */
	public static String report(Snapshot snapshot) {
		StringBuilder text = new StringBuilder();
		String version = UformInfo.class.getPackage().getImplementationVersion();
		text.append("uform ").append(version == null ? "(development build)" : version).append(" on ")
			.append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch"))
			.append(", Java ").append(System.getProperty("java.version")).append("\n\n");
		long simulated = snapshot.devices().stream().filter((gpu) -> gpu.vendor() == GpuVendor.SIMULATED).count();
		text.append("GPUs: ").append(snapshot.devices().isEmpty() ? "none" : snapshot.devices().size())
			.append(simulated == 0 ? "" : " (" + simulated + " simulated)").append('\n');
		for (int ordinal = 0; ordinal < snapshot.devices().size(); ordinal++) {
			text.append(device(ordinal, snapshot.devices().get(ordinal)));
			text.append("      now: ").append(readings(snapshot.readings().get(ordinal))).append('\n');
		}
		for (String note : snapshot.notes()) {
			text.append("  - ").append(note).append('\n');
		}
		text.append('\n').append(cpu(snapshot.cpu()));
		text.append('\n').append(numa(snapshot.numa(), snapshot.available()));
		text.append("\nCapabilities\n").append(CapabilityLines.of(snapshot));
		text.append("\nProblems: ").append(snapshot.problems().isEmpty() ? "none" : snapshot.problems().size())
			.append('\n');
		for (String problem : snapshot.problems()) {
			text.append("  ! ").append(problem).append('\n');
		}
		return text.toString();
	}

	/**
	 * The CPU's own class first, then the other classes it offers. Those read as vendors
	 * ({@code amd-genoa} on an Intel CPU), so the report calls them instruction-set levels and says so.
	 */
	private static String cpu(CpuClasses cpu) {
		StringBuilder text = new StringBuilder("CPU class: ").append(cpu.best()).append('\n');
		List<String> levels = cpu.available().stream().filter((level) -> !level.equals(cpu.best())).toList();
		if (!levels.isEmpty()) {
			text.append("  also satisfies the instruction-set levels: ").append(String.join(", ", levels)).append('\n');
			text.append("  (").append(LEVELS_NOTE).append(")\n");
		}
		return text.toString();
	}

	/** The domains, and whether {@code numa} is available, in the same words as the capabilities. */
	private static String numa(NumaTopology numa, List<String> available) {
		StringBuilder text = new StringBuilder("NUMA domains: ").append(numa.domains().size()).append('\n');
		for (NumaDomain domain : numa.domains()) {
			text.append("  ").append(domain).append("  ").append(domain.cpuCount()).append(" CPU(s)\n");
		}
		if (available.contains(Capabilities.NUMA)) {
			text.append("  capability numa: available, work can be placed across these domains\n");
		}
		else {
			text.append("  capability numa: not available, ").append(CapabilityLines.numaReason(numa)).append('\n');
		}
		return text.toString();
	}

	private static String device(int ordinal, GpuDevice gpu) {
		String units = gpu.vendor() == GpuVendor.NVIDIA ? "SMs" : "CUs";
		// Marked on its own line as well as by vendor, so that nobody reads a simulated device as a GPU.
		String marker = gpu.vendor() == GpuVendor.SIMULATED ? "  " + SIMULATED_MARKER : "";
		return String.format(Locale.ROOT, "  %d: %s #%s  %s  %d %s  %.1f GiB  %s  uuid %s  pci %s%s%n", ordinal,
				gpu.vendor().name().toLowerCase(Locale.ROOT), gpu.vendorOrdinal() < 0 ? "?" : gpu.vendorOrdinal(),
				gpu.gpuClass() == null ? "(no class)" : gpu.gpuClass(), gpu.computeUnits(), units,
				gpu.memoryBytes() / GIB, gpu.name(), orDash(gpu.uuid()), orDash(gpu.pciBusId()), marker);
	}

	private static String readings(GpuReadings now) {
		List<String> parts = new ArrayList<>();
		if (now.memoryUsedBytes() != null && now.memoryTotalBytes() != null) {
			parts.add(String.format(Locale.ROOT, "memory %.1f / %.1f GiB", now.memoryUsedBytes() / GIB,
					now.memoryTotalBytes() / GIB));
		}
		else if (now.memoryTotalBytes() != null) {
			parts.add(String.format(Locale.ROOT, "memory ? / %.1f GiB", now.memoryTotalBytes() / GIB));
		}
		if (now.utilizationPercent() != null) {
			parts.add("utilisation " + now.utilizationPercent() + " %");
		}
		if (now.powerWatts() != null) {
			parts.add(String.format(Locale.ROOT, "power %.1f W", now.powerWatts()));
		}
		if (now.temperatureCelsius() != null) {
			parts.add(String.format(Locale.ROOT, "temperature %.0f C", now.temperatureCelsius()));
		}
		return parts.isEmpty() ? "nothing reported" : String.join(", ", parts);
	}

	private static String orDash(String value) {
		return value == null ? "-" : value;
	}

	/**
	 * The GPUs as CSV: a header, then one row per device in uform ordinal order. Absent values are
	 * empty fields; a field holding a comma or quote is quoted (RFC 4180).
	 * @param snapshot what to print
	 * @return the text, lines ending in {@code \n}
	 */
	public static String csv(Snapshot snapshot) {
		StringBuilder text = new StringBuilder(CSV_HEADER).append('\n');
		for (int ordinal = 0; ordinal < snapshot.devices().size(); ordinal++) {
			GpuDevice gpu = snapshot.devices().get(ordinal);
			List<String> fields = List.of(Integer.toString(ordinal), gpu.vendor().name().toLowerCase(Locale.ROOT),
					// -1 is "unknown" (no NVML): an empty field, as for every other absent value.
					(gpu.vendorOrdinal() < 0) ? "" : Integer.toString(gpu.vendorOrdinal()), orEmpty(gpu.gpuClass()), Integer.toString(gpu.computeUnits()),
					Long.toString(gpu.memoryBytes()), gpu.name(), orEmpty(gpu.uuid()), orEmpty(gpu.pciBusId()));
			text.append(String.join(",", fields.stream().map(UformInfo::quoted).toList())).append('\n');
		}
		return text.toString();
	}

	private static String orEmpty(String value) {
		return value == null ? "" : value;
	}

	private static String quoted(String field) {
		if (field.contains(",") || field.contains("\"") || field.contains("\n")) {
			return '"' + field.replace("\"", "\"\"") + '"';
		}
		return field;
	}
}
