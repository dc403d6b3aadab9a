package io.uform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a VRAM executor decides before it opens anything: host threads near the devices' NUMA
 * nodes (read from a sysfs fixture), which GPU classes run on which devices, each device's backend
 * ordinal, and which scratch limits, device ordinals and borrowed streams it accepts.
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
		assertThat(plan(ExecutorForVramConfig.defaults(), Gpus.devices(this.simulated.devices()).get(0)).hostConfig.memoryDomains())
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
		// Even where the device's node says otherwise.
		ExecutorForVramConfig elsewhere = new ExecutorForVramConfig(null, null, List.of(1), null, null, null, null);
		assertThat(plan(elsewhere, H100).hostConfig.memoryDomains()).containsExactly(1);
	}

	@Test
	void aSimulatedDeviceIsNeverChosenInPlaceOfARealGpu() {
		List<GpuDevice> both = List.of(H100, Gpus.devices(this.simulated.devices()).get(0));
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
		GpuDevice simulatedDevice = Gpus.devices(this.simulated.devices()).get(0);
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

	private static final GpuDevice A100 = new GpuDevice(GpuVendor.NVIDIA, 1, "nvidia-ampere", 108, 40L << 30,
			"NVIDIA A100-SXM4-40GB", "GPU-2", "0000:3b:00.0");

	private static final GpuDevice MI300X = new GpuDevice(GpuVendor.AMD, 0, "amd-cdna3", 304, 192L << 30,
			"AMD Instinct MI300X", null, "0000:0c:00.0");

	private UformException invalid(ExecutorForVramConfig config, GpuDevice... all) {
		return assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> VramPlan.of(config, List.of(all), this.sysfs, (gpu, ordinal) -> this.simulated))
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT))
			.actual();
	}

	@Test
	void aScratchLimitFromOneByteUpToTheDevicesMemoryIsKept() {
		assertThat(plan(ExecutorForVramConfig.defaults().withScratchLimit(1L), H100).scratchLimit).isEqualTo(1);
		assertThat(plan(ExecutorForVramConfig.defaults().withScratchLimit(80L << 30), H100).scratchLimit)
			.isEqualTo(80L << 30);
		assertThat(plan(ExecutorForVramConfig.defaults(), H100).scratchLimit).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void aScratchLimitPastTheDevicesMemoryNamesTheDeviceAndItsSize() {
		UformException ex = invalid(ExecutorForVramConfig.defaults().withScratchLimit((80L << 30) + 1), H100);
		assertThat(ex.field()).isEqualTo("scratchLimit");
		assertThat(ex.fix()).startsWith("device 0 (NVIDIA H100 80GB HBM3) has 85899345920 bytes (81920 MiB); use at most that");
	}

	@Test
	void eachDeviceGetsItsOrdinalAmongItsOwnVendorsDevices() {
		// CUDA numbers only the NVIDIA GPUs: the H100 listed after an AMD GPU is CUDA device 0.
		VramPlan plan = VramPlan.of(ExecutorForVramConfig.defaults().withDevices(List.of(3, 1)),
				List.of(MI300X, H100, MI300X, A100), this.sysfs, (gpu, ordinal) -> this.simulated);
		assertThat(plan.runtimeOrdinals).containsExactly(1, 0);
	}

	@Test
	void aNegativeOrNullDeviceOrdinalIsRefusedByName() {
		assertThat(invalid(ExecutorForVramConfig.defaults().withDevices(List.of(-1)), H100).fix())
			.startsWith("device -1 does not exist; devices here: [0 = NVIDIA H100 80GB HBM3]");
		assertThat(invalid(ExecutorForVramConfig.defaults().withDevices(java.util.Arrays.asList(0, null)), H100).fix())
			.startsWith("device null does not exist");
	}

	@Test
	void borrowedStreamsMayBeTheDefaultStreamButNotNegativeOrMissing() {
		ExecutorForVramConfig defaultStream = new ExecutorForVramConfig(List.of(0), null, null, null, List.of(0L), null, null);
		assertThat(plan(defaultStream, H100).streams).containsExactly(0L);
		assertThat(invalid(new ExecutorForVramConfig(List.of(0), null, null, null, List.of(-1L), null, null), H100).fix())
			.startsWith("a stream address is a CUstream pointer, 0 or more");
		assertThat(invalid(new ExecutorForVramConfig(List.of(0), null, null, null, java.util.Arrays.asList((Long) null),
				null, null), H100).field()).isEqualTo("streams");
	}

	@Test
	void aNewerNvidiaClassIsRefusedOnAnOlderDeviceAndAnNvidiaClassOnAnAmdOne() {
		assertThat(invalid(ExecutorForVramConfig.defaults().withGpuClass("nvidia-hopper"), A100).fix())
			.isEqualTo("device 0 (NVIDIA A100-SXM4-40GB) is nvidia-ampere, which cannot run nvidia-hopper kernels; "
					+ "leave it absent to use each device's own class");
		assertThat(invalid(ExecutorForVramConfig.defaults().withGpuClass("nvidia-kepler"), MI300X).fix())
			.startsWith("device 0 (AMD Instinct MI300X) is amd-cdna3, which cannot run nvidia-kepler kernels");
		assertThat(plan(ExecutorForVramConfig.defaults().withGpuClass("nvidia-kepler"), H100).gpuClass)
			.isEqualTo("nvidia-kepler");
	}

	@Test
	void theSystemRuntimeOfAnAmdGpuIsUnsupportedNamingTheDeviceAndTheFallback() {
		assertThatExceptionOfType(UformException.class).isThrownBy(() -> VramPlan.systemRuntime(MI300X, 2))
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.UNSUPPORTED))
			.withMessageStartingWith("Device 2 (AMD Instinct MI300X) is amd: ")
			.withMessageContaining("Executor.forRam()");
	}
}
