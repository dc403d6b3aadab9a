package io.uform.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.uform.Capabilities;
import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.GpuVendor;
import io.uform.host.CpuClasses;
import io.uform.host.NumaTopology;

class UformInfoTest {

	private static final long GIB = 1L << 30;

	private final ByteArrayOutputStream out = new ByteArrayOutputStream();

	private final ByteArrayOutputStream err = new ByteArrayOutputStream();

	private int run(String... args) {
		return UformInfo.run(args, new PrintStream(this.out, true, StandardCharsets.UTF_8),
				new PrintStream(this.err, true, StandardCharsets.UTF_8));
	}

	private static UformInfo.Snapshot snapshot() {
		List<GpuDevice> devices = List.of(
				new GpuDevice(GpuVendor.NVIDIA, 3, "nvidia-hopper", 132, 141 * GIB, "NVIDIA H200",
						"GPU-00112233-4455-6677-8899-aabbccddeeff", "0000:1b:00.0"),
				new GpuDevice(GpuVendor.AMD, 0, null, 96, 24 * GIB, "AMD gfx1100, rev \"A\"", null, null));
		List<GpuReadings> readings = List.of(new GpuReadings(GIB, 141 * GIB, 7, 120.5, 33.0),
				new GpuReadings(null, 24 * GIB, null, null, null));
		return new UformInfo.Snapshot(devices, readings, CpuClasses.fromCpuinfo("flags : avx2 fma f16c\n"),
				NumaTopology.system(), Capabilities.compiled(), List.of("serial", "cuda"), List.of("NVML unavailable"),
				List.of("NVIDIA: CUDA driver 12.6"));
	}

	@Test
	void printsEverySectionForThisMachine() {
		assertThat(run()).isZero();

		assertThat(this.out.toString(StandardCharsets.UTF_8)).contains("GPUs: ", "CPU class: ", "NUMA domains: ",
				"Capabilities", "compiled:  ", "available: serial", "Problems: ");
	}

	@Test
	void printsDevicesWithReadingsAndProblems() {
		String report = UformInfo.report(snapshot());

		assertThat(report).contains("GPUs: 2")
			.contains("  0: nvidia #3  nvidia-hopper  132 SMs  141.0 GiB  NVIDIA H200  uuid GPU-00112233-4455-6677-8899-aabbccddeeff  pci 0000:1b:00.0")
			.contains("now: memory 1.0 / 141.0 GiB, utilisation 7 %, power 120.5 W, temperature 33 C")
			.contains("  1: amd #0  (no class)  96 CUs  24.0 GiB")
			.contains("now: memory ? / 24.0 GiB")
			.contains("  - NVIDIA: CUDA driver 12.6")
			.contains("CPU class: intel-haswell\n  also satisfies the instruction-set levels: serial\n")
			.contains("available: serial,cuda")
			.contains("Problems: 1", "  ! NVML unavailable");
	}

	@Test
	void printsCsvForScripts() {
		String csv = UformInfo.csv(snapshot());

		assertThat(csv.split("\n")).containsExactly(
				"ordinal,vendor,vendor_ordinal,gpu_class,compute_units,memory_bytes,name,uuid,pci_bus_id",
				"0,nvidia,3,nvidia-hopper,132,151397597184,NVIDIA H200,GPU-00112233-4455-6677-8899-aabbccddeeff,0000:1b:00.0",
				"1,amd,0,,96,25769803776,\"AMD gfx1100, rev \"\"A\"\"\",,");
	}

	@Test
	void csvLeavesAVendorOrdinalNobodyKnowsEmpty() {
		UformInfo.Snapshot real = snapshot();
		GpuDevice withoutNvml = new GpuDevice(GpuVendor.NVIDIA, -1, "nvidia-hopper", 132, 141 * GIB, "NVIDIA H200",
				"GPU-bbbcbdbe-bfc0-c1c2-c3c4-c5c6c7c8c9ca", "0000:1b:00.0");
		UformInfo.Snapshot snapshot = new UformInfo.Snapshot(List.of(withoutNvml), List.of(GpuReadings.NONE), real.cpu(),
				real.numa(), real.compiled(), real.available(), real.problems(), real.notes());
		assertThat(UformInfo.csv(snapshot).split("\n")[1]).startsWith("0,nvidia,,nvidia-hopper,");
	}

	@Test
	void marksSimulatedDevicesInTheReportAndNamesThemInTheCsv() {
		UformInfo.Snapshot real = snapshot();
		List<GpuDevice> devices = new ArrayList<>(real.devices());
		devices.add(new GpuDevice(GpuVendor.SIMULATED, 0, "simulated", 1, GIB, "Simulated GPU 0 (host memory)",
				"GPU-SIMULATED-0", null));
		List<GpuReadings> readings = new ArrayList<>(real.readings());
		readings.add(new GpuReadings(0L, GIB, null, null, null));
		UformInfo.Snapshot snapshot = new UformInfo.Snapshot(devices, readings, real.cpu(), real.numa(), real.compiled(),
				real.available(), real.problems(), real.notes());

		assertThat(UformInfo.report(snapshot)).contains("GPUs: 3 (1 simulated)")
			.contains("  2: simulated #0  simulated  1 CUs  1.0 GiB  Simulated GPU 0 (host memory)  uuid GPU-SIMULATED-0  "
					+ "pci -  (simulated: host memory, not a GPU)\n")
			.doesNotContain("0000:1b:00.0  (simulated");
		assertThat(UformInfo.csv(snapshot).split("\n"))
			.endsWith("2,simulated,0,simulated,1,1073741824,Simulated GPU 0 (host memory),GPU-SIMULATED-0,");
	}

	@Test
	void csvOnThisMachineStartsWithTheHeader() {
		assertThat(run("--csv")).isZero();

		assertThat(this.out.toString(StandardCharsets.UTF_8)).startsWith("ordinal,vendor,vendor_ordinal,");
	}

	@Test
	void rejectsUnknownOptions() {
		assertThat(run("--bogus")).isEqualTo(2);

		assertThat(this.err.toString(StandardCharsets.UTF_8)).contains("Unknown option: --bogus", "Usage:");
		assertThat(this.out.toString(StandardCharsets.UTF_8)).isEmpty();
	}
}
