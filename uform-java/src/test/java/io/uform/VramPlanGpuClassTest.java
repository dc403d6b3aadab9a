package io.uform;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An unknown {@code gpuClass} is answered with the nearest known names, those the chosen devices
 * run first, and with the classes those devices run.
 */
class VramPlanGpuClassTest {

	private static final GpuDevice H100 = new GpuDevice(GpuVendor.NVIDIA, 0, "nvidia-hopper", 132, 80L << 30,
			"NVIDIA H100 80GB HBM3", "GPU-1", "0000:1b:00.0");

	private static final GpuDevice A100 = new GpuDevice(GpuVendor.NVIDIA, 1, "nvidia-ampere", 108, 40L << 30,
			"NVIDIA A100-SXM4-40GB", "GPU-2", "0000:3b:00.0");

	private static final GpuDevice MI300X = new GpuDevice(GpuVendor.AMD, 0, "amd-cdna3", 304, 192L << 30,
			"AMD Instinct MI300X", "GPU-3", "0000:5b:00.0");

	private static final String HOPPER_RUNS = "nvidia-kepler, nvidia-maxwell, nvidia-pascal, nvidia-volta, "
			+ "nvidia-turing, nvidia-ampere, nvidia-ada, nvidia-hopper";

	private final SimulatedRuntime simulated = new SimulatedRuntime(1, 64L << 20);

	@TempDir
	Path sysfs;

	private UformException failure(String gpuClass, List<Integer> devices, GpuDevice... all) {
		ExecutorForVramConfig config = ExecutorForVramConfig.defaults().withDevices(devices).withGpuClass(gpuClass);
		return assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> VramPlan.of(config, List.of(all), this.sysfs, (gpu, ordinal) -> this.simulated))
			.actual();
	}

	@Test
	void typoSuggestsTheNearestClassAndListsTheClassesTheDeviceRuns() {
		UformException ex = failure("nvidia-hoper", List.of(0), H100);
		assertThat(ex.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT);
		assertThat(ex.field()).isEqualTo("gpuClass");
		assertThat(ex.value()).isEqualTo("'nvidia-hoper'");
		assertThat(ex.fix()).isEqualTo("not a GPU class uform knows; did you mean nvidia-hopper? The classes device 0 "
				+ "can run are " + HOPPER_RUNS + " (or leave it absent for each device's own class)");
		assertThat(ex).hasMessageStartingWith("Invalid gpuClass = 'nvidia-hoper': not a GPU class uform knows; ");
	}

	@Test
	void aNameWithoutItsVendorIsNearItsClass() {
		assertThat(failure("hopper", List.of(0), H100).fix())
			.startsWith("not a GPU class uform knows; did you mean nvidia-hopper? ");
		assertThat(failure("cdna3", List.of(0), MI300X).fix())
			.isEqualTo("not a GPU class uform knows; did you mean amd-cdna3? The classes device 0 can run are amd-cdna3 "
					+ "(or leave it absent for each device's own class)");
	}

	@Test
	void theDevicesOwnClassesAreSuggestedFirst() {
		// 'amd-cdna5' is one edit from every CDNA class; the one an MI300X runs comes first.
		assertThat(failure("amd-cdna5", List.of(0), MI300X).fix())
			.startsWith("not a GPU class uform knows; did you mean amd-cdna3, amd-cdna, amd-cdna2 or amd-cdna4? ");
		assertThat(failure("amd-cdna5", List.of(0), H100).fix())
			.startsWith("not a GPU class uform knows; did you mean amd-cdna, amd-cdna2, amd-cdna3 or amd-cdna4? ");
	}

	@Test
	void classesEveryChosenDeviceRunsAreListed() {
		assertThat(failure("nvidia-amperre", List.of(0, 1), H100, A100).fix())
			.isEqualTo("not a GPU class uform knows; did you mean nvidia-ampere? The classes devices [0, 1] can run are "
					+ "nvidia-kepler, nvidia-maxwell, nvidia-pascal, nvidia-volta, nvidia-turing, nvidia-ampere "
					+ "(or leave it absent for each device's own class)");
	}

	@Test
	void garbageSuggestsNothingAndListsTheClassesTheDeviceRuns() {
		assertThat(failure("nvidia-h100", List.of(0), H100).fix())
			.isEqualTo("not a GPU class uform knows, nor close to one; the classes device 0 can run are " + HOPPER_RUNS
					+ " (or leave it absent for each device's own class)");
		assertThat(failure("fastest", List.of(0), Gpus.devices(this.simulated.devices()).get(0)).fix())
			.isEqualTo("not a GPU class uform knows, nor close to one; the classes device 0 can run are simulated "
					+ "(or leave it absent for each device's own class)");
	}

	@Test
	void aDeviceWithNoClassListsEveryKnownClass() {
		GpuDevice future = new GpuDevice(GpuVendor.NVIDIA, 0, null, 200, 96L << 30, "NVIDIA Future", "GPU-4", null);
		assertThat(failure("fastest", List.of(0), future).fix())
			.startsWith("not a GPU class uform knows, nor close to one; the known classes are nvidia-kepler, ")
			.endsWith("amd-rdna4, simulated");
	}
}
