package io.uform.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.Capabilities;
import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.GpuVendor;
import io.uform.gpu.GpuClasses;
import io.uform.host.CpuClasses;
import io.uform.host.NumaTopology;

/**
 * What the report says about the CPU's classes, NUMA and the capability tokens, as a reader new to
 * uform must understand it: the CPU's own class first, every compiled token either available or
 * named with the reason it is not, and the long class vocabularies counted rather than listed.
 */
class UformInfoCapabilitiesTest {

	private static final String SAPPHIRE_RAPIDS = "vendor_id : GenuineIntel\nflags : avx2 f16c fma avx_vnni avx512f avx512bw "
			+ "avx512cd avx512dq avx512vl avx512_vnni avx512ifma avx512_bitalg avx512_vbmi2 avx512_vpopcntdq avx512vbmi "
			+ "avx512_bf16 avx512_fp16 amx_tile amx_bf16 amx_int8\n";

	@TempDir
	Path root;

	/** A snapshot whose available tokens come from uform's own rule, as on a real machine. */
	private static UformInfo.Snapshot snapshot(CpuClasses cpu, NumaTopology numa, List<GpuDevice> devices) {
		List<GpuReadings> readings = devices.stream().map((device) -> GpuReadings.NONE).toList();
		return new UformInfo.Snapshot(devices, readings, cpu, numa, Capabilities.compiled(),
				Capabilities.available(cpu.available(), numa.domains().size(), devices), List.of(), List.of());
	}

	/** A sysfs and procfs fixture: nodes with CPU lists, and the CPUs this process may use. */
	private NumaTopology numa(String allowed, String... nodeCpus) throws IOException {
		for (int node = 0; node < nodeCpus.length; node++) {
			Path dir = Files.createDirectories(this.root.resolve("sys/devices/system/node/node" + node));
			Files.writeString(dir.resolve("cpulist"), nodeCpus[node] + "\n");
		}
		Path proc = Files.createDirectories(this.root.resolve("proc/self"));
		Files.writeString(proc.resolve("status"), "Name:\tjava\nCpus_allowed_list:\t" + allowed + "\n");
		return NumaTopology.read(this.root, 1);
	}

	@Test
	void anIntelCpuShowsItsOwnClassFirstAndTheAmdNamedLevelAsALevel() throws IOException {
		String report = UformInfo.report(snapshot(CpuClasses.fromCpuinfo(SAPPHIRE_RAPIDS), numa("0-3", "0-3"), List.of()));

		assertThat(report).contains("CPU class: intel-sapphireamx\n"
				+ "  also satisfies the instruction-set levels: serial, intel-haswell, intel-alderlake, intel-skylake, "
				+ "intel-icelake, amd-genoa, intel-sapphirerapids\n"
				+ "  (" + UformInfo.LEVELS_NOTE + ")\n");
		assertThat(report).doesNotContain("best of");
	}

	@Test
	void aSerialOnlyCpuHasNoLevelsToList() throws IOException {
		String report = UformInfo.report(snapshot(CpuClasses.fromCpuinfo("flags : sse2\n"), numa("0", "0"), List.of()));

		assertThat(report).contains("CPU class: serial\n\nNUMA domains: 1").doesNotContain("instruction-set levels");
	}

	@Test
	void oneNumaDomainSaysWhyNumaIsNotAvailableInBothPlaces() throws IOException {
		String report = UformInfo.report(snapshot(CpuClasses.fromCpuinfo("flags : avx2 fma f16c\n"), numa("0-1", "0-1"),
				List.of()));

		String reason = "this process may use 1 NUMA domain; placing work across domains needs 2 or more";
		assertThat(report).contains("NUMA domains: 1\n  node0[0-1]  2 CPU(s)\n  capability numa: not available, " + reason + "\n")
			.contains("  not available here:\n    numa: 1 NUMA domain, needs 2 or more\n");
	}

	@Test
	void aProcessConfinedToOneNodeOfTwoIsToldTheMachineHasMore() throws IOException {
		String report = UformInfo.report(snapshot(CpuClasses.fromCpuinfo("flags : avx2 fma f16c\n"), numa("0-1", "0-1", "2-3"),
				List.of()));

		assertThat(report).contains("NUMA domains: 1\n")
			.contains("capability numa: not available, this process may use 1 NUMA domain of the machine's 2; ")
			.contains("    numa: 1 NUMA domain of the machine's 2, needs 2 or more\n");
	}

	@Test
	void twoNumaDomainsMakeNumaAvailableAndNotMissing() throws IOException {
		UformInfo.Snapshot snapshot = snapshot(CpuClasses.fromCpuinfo("flags : avx2 fma f16c\n"), numa("0-3", "0-1", "2-3"),
				List.of());
		String report = UformInfo.report(snapshot);

		assertThat(snapshot.available()).contains(Capabilities.NUMA);
		assertThat(report).contains("NUMA domains: 2\n  node0[0-1]  2 CPU(s)\n  node1[2-3]  2 CPU(s)\n"
				+ "  capability numa: available, work can be placed across these domains\n")
			.contains("  available: serial,intel-haswell,numa\n")
			.doesNotContain("    numa:");
	}

	@Test
	void withoutAGpuTheGpuClassesAreCountedOnceNotListed() throws IOException {
		String report = UformInfo.report(snapshot(CpuClasses.fromCpuinfo("flags : avx2 fma f16c\n"), numa("0-1", "0-1"),
				List.of()));

		List<String> cpu = CpuClasses.known();
		List<String> gpu = GpuClasses.known();
		assertThat(report).contains("  compiled:  " + cpu.size() + " CPU classes (serial … " + cpu.get(cpu.size() - 1)
				+ "), numa, cuda, rocm, " + gpu.size() + " GPU classes (" + gpu.get(0) + " … " + gpu.get(gpu.size() - 1) + ")\n")
			.contains("    cuda: no NVIDIA GPU visible\n    rocm: no AMD GPU visible\n    GPU classes: no GPU visible\n");
		for (String gpuClass : gpu.subList(1, gpu.size() - 1)) {
			assertThat(report).as("a GPU class on a machine with no GPU").doesNotContain(gpuClass);
		}
	}

	@Test
	void anNvidiaGpuMakesCudaAndItsClassAvailableAndCountsTheOthers() throws IOException {
		GpuDevice h200 = new GpuDevice(GpuVendor.NVIDIA, 0, "nvidia-hopper", 132, 141L << 30, "NVIDIA H200",
				"GPU-00112233-4455-6677-8899-aabbccddeeff", "0000:1b:00.0");
		String report = UformInfo.report(snapshot(CpuClasses.fromCpuinfo(SAPPHIRE_RAPIDS), numa("0-3", "0-3"), List.of(h200)));

		assertThat(report).contains("  available: serial,intel-haswell,intel-alderlake,intel-skylake,intel-icelake,amd-genoa,"
				+ "intel-sapphirerapids,intel-sapphireamx,cuda,nvidia-hopper\n")
			.contains("    rocm: no AMD GPU visible\n    the other " + (GpuClasses.known().size() - 1)
					+ " GPU classes: no visible GPU of those classes\n")
			.doesNotContain("    cuda:");
	}

	@Test
	void aSimulatedDeviceIsNotCountedAsAGpu() throws IOException {
		GpuDevice simulated = new GpuDevice(GpuVendor.SIMULATED, 0, "simulated", 1, 1L << 30,
				"Simulated GPU 0 (host memory)", "GPU-SIMULATED-0", null);
		String report = UformInfo.report(snapshot(CpuClasses.fromCpuinfo("flags : avx2 fma f16c\n"), numa("0-1", "0-1"),
				List.of(simulated)));

		assertThat(report).contains("    cuda: no NVIDIA GPU visible\n    rocm: no AMD GPU visible\n    GPU classes: no GPU visible\n");
	}
}
