package io.uform.spring.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.uform.GpuDevice;
import io.uform.GpuVendor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code uform.vram.enabled=auto} on the machines discovery can describe: without a GPU, with GPUs a
 * VRAM executor runs on, and with only AMD GPUs, which are listed but cannot run one yet (the default
 * must start the application there, not fail it with {@code UNSUPPORTED}).
 */
class OnVramEnabledConditionTest {

	private static GpuDevice device(GpuVendor vendor, String name) {
		return new GpuDevice(vendor, 0, "any", 1, 1L << 30, name, null, null);
	}

	@Test
	void noGpuMakesNoVramExecutor() {
		assertThat(OnVramEnabledCondition.auto(List.of()).isMatch()).isFalse();
	}

	@Test
	void nvidiaOrSimulatedDevicesMakeOne() {
		assertThat(OnVramEnabledCondition.auto(List.of(device(GpuVendor.NVIDIA, "NVIDIA H200"))).isMatch()).isTrue();
		assertThat(OnVramEnabledCondition.auto(List.of(device(GpuVendor.SIMULATED, "Simulated GPU 0"))).isMatch())
			.isTrue();
		assertThat(OnVramEnabledCondition.auto(List.of(device(GpuVendor.AMD, "AMD Instinct MI300X"),
				device(GpuVendor.NVIDIA, "NVIDIA H200"))).isMatch()).isTrue();
	}

	@Test
	void onlyAmdGpusMakeNoneAndSaySo() {
		var outcome = OnVramEnabledCondition.auto(List.of(device(GpuVendor.AMD, "AMD Instinct MI300X")));
		assertThat(outcome.isMatch()).isFalse();
		assertThat(outcome.getMessage()).contains("none of which a VRAM executor runs on yet ([AMD])");
	}
}
