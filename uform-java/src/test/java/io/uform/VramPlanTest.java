package io.uform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a VRAM executor decides before it opens anything: host threads near the devices' NUMA
 * nodes (read from a sysfs fixture), and which GPU classes run on which devices.
 */
class VramPlanTest {

	private static final GpuDevice H100 = new GpuDevice(GpuVendor.NVIDIA, 0, "nvidia-hopper", 132, 80L << 30,
			"NVIDIA H100 80GB HBM3", "GPU-1", "0000:1b:00.0");

	private final SimulatedRuntime simulated = new SimulatedRuntime(1, 64L << 20);

	@TempDir
	Path sysfs;

	private VramPlan plan(ExecutorForVramConfig config, GpuDevice device) {
		return VramPlan.of(config, List.of(device), this.sysfs, (gpu, ordinal) -> this.simulated);
	}

	private void numaNode(String pciBusId, String node) throws IOException {
		Path dir = Files.createDirectories(this.sysfs.resolve("sys/bus/pci/devices").resolve(pciBusId));
		Files.writeString(dir.resolve("numa_node"), node + "\n");
	}

	@Test
	void hostThreadsGoToTheNumaNodeTheSystemGivesForTheDevice() throws IOException {
		numaNode("0000:1b:00.0", "0");
		VramPlan plan = plan(ExecutorForVramConfig.defaults(), H100);
		assertThat(plan.hostConfig.memoryDomains()).containsExactly(0);
		assertThat(plan.hostConfig.threads()).isEqualTo(1);
	}

	@Test
	void anUnknownNodeOrNoPciAddressMeansEveryNode() throws IOException {
		numaNode("0000:1b:00.0", "-1");
		assertThat(plan(ExecutorForVramConfig.defaults(), H100).hostConfig.memoryDomains()).isNull();
		assertThat(plan(ExecutorForVramConfig.defaults(), this.simulated.devices().get(0)).hostConfig.memoryDomains())
			.isNull();
		numaNode("0000:1b:00.0", "999");
		assertThat(plan(ExecutorForVramConfig.defaults(), H100).hostConfig.memoryDomains())
			.as("a node with no CPU this process may use").isNull();
	}

	@Test
	void memoryDomainsGivenInTheConfigWin() throws IOException {
		numaNode("0000:1b:00.0", "0");
		ExecutorForVramConfig config = new ExecutorForVramConfig(null, null, List.of(0), null, null, null, 16);
		VramPlan plan = plan(config, H100);
		assertThat(plan.hostConfig.memoryDomains()).containsExactly(0);
		assertThat(plan.hostConfig.deferredLimit()).isEqualTo(16);
	}

	@Test
	void aSimulatedDeviceIsNeverChosenInPlaceOfARealGpu() {
		List<GpuDevice> both = List.of(H100, this.simulated.devices().get(0));
		VramPlan first = VramPlan.of(ExecutorForVramConfig.defaults(), both, this.sysfs, (gpu, ordinal) -> this.simulated);
		first.hold();
		try {
			VramPlan second = VramPlan.of(ExecutorForVramConfig.defaults(), both, this.sysfs,
					(gpu, ordinal) -> this.simulated);
			assertThat(first.ordinals).containsExactly(0);
			assertThat(second.ordinals).as("the real GPU, shared, rather than the idle simulated device").containsExactly(0);
			assertThat(VramPlan.of(ExecutorForVramConfig.defaults().withDevices(List.of(1)), both, this.sysfs,
					(gpu, ordinal) -> this.simulated).ordinals).as("unless asked for by ordinal").containsExactly(1);
		}
		finally {
			first.letGo();
		}
	}

	@Test
	void anAmdGpuIsNeverChosenInPlaceOfOneAVramExecutorRunsOn() {
		GpuDevice mi300x = new GpuDevice(GpuVendor.AMD, 0, "amd-cdna3", 304, 192L << 30, "AMD Instinct MI300X", null,
				"0000:0c:00.0");
		GpuDevice simulatedDevice = this.simulated.devices().get(0);
		assertThat(VramPlan.of(ExecutorForVramConfig.defaults(), List.of(mi300x, H100), this.sysfs,
				(gpu, ordinal) -> this.simulated).ordinals).as("the NVIDIA GPU, not the AMD one listed first")
			.containsExactly(1);
		assertThat(VramPlan.of(ExecutorForVramConfig.defaults(), List.of(mi300x, simulatedDevice), this.sysfs,
				(gpu, ordinal) -> this.simulated).ordinals).as("opted-in simulated devices where only AMD GPUs are real")
			.containsExactly(1);
	}

	@Test
	void olderNvidiaClassesRunOnNewerDevicesAndNothingCrossesVendors() {
		assertThat(VramPlan.runsOn("nvidia-ampere", "nvidia-hopper")).isTrue();
		assertThat(VramPlan.runsOn("nvidia-hopper", "nvidia-hopper")).isTrue();
		assertThat(VramPlan.runsOn("nvidia-blackwell", "nvidia-hopper")).isFalse();
		assertThat(VramPlan.runsOn("amd-cdna2", "amd-cdna3")).isFalse();
		assertThat(VramPlan.runsOn("nvidia-ampere", "amd-cdna3")).isFalse();
		assertThat(VramPlan.runsOn("simulated", "simulated")).isTrue();
		assertThat(VramPlan.runsOn("nvidia-ampere", null)).isFalse();
	}
}
