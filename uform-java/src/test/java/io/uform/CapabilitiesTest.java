package io.uform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.uform.gpu.GpuClasses;
import io.uform.host.CpuClasses;

class CapabilitiesTest {

	private static List<String> tokens(String joined) {
		return joined.isEmpty() ? List.of() : Arrays.asList(joined.split(","));
	}

	@Test
	void compiledHoldsTheWholeVocabularyOnce() {
		List<String> compiled = tokens(Uform.capabilitiesCompiled());

		assertThat(compiled).containsAll(CpuClasses.known()).containsAll(GpuClasses.known())
			.contains("numa", "cuda", "rocm").doesNotHaveDuplicates();
		assertThat(compiled.indexOf("numa")).isGreaterThan(compiled.indexOf(CpuClasses.SERIAL));
		assertThat(compiled.indexOf("nvidia-hopper")).isGreaterThan(compiled.indexOf("rocm"));
	}

	@Test
	void availableOnThisMachineIsASubsetOfCompiled() {
		List<String> available = tokens(Uform.capabilitiesAvailable());

		assertThat(available).contains(CpuClasses.SERIAL).isSubsetOf(tokens(Uform.capabilitiesCompiled()));
		if (Uform.gpuDevices().isEmpty()) {
			assertThat(available).doesNotContain("cuda", "rocm");
		}
	}

	@Test
	void gpusAndNumaAddTheirTokensInVocabularyOrder() {
		List<GpuDevice> gpus = List.of(
				new GpuDevice(GpuVendor.AMD, 0, "amd-cdna3", 304, 1, "MI300X", null, null),
				new GpuDevice(GpuVendor.NVIDIA, 0, "nvidia-hopper", 132, 1, "H200", null, null),
				new GpuDevice(GpuVendor.NVIDIA, 1, null, 200, 1, "Future", null, null));

		List<String> available = Capabilities.available(List.of("intel-haswell", "serial"), 2, gpus);

		assertThat(available).containsExactly("serial", "intel-haswell", "numa", "cuda", "rocm", "nvidia-hopper",
				"amd-cdna3");
		assertThat(available).isSubsetOf(Capabilities.compiled());
	}

	@Test
	void simulatedDevicesOfferNoGpuToken() {
		List<GpuDevice> gpus = List.of(new GpuDevice(GpuVendor.SIMULATED, 0, "simulated", 1, 1L << 30,
				"Simulated GPU 0 (host memory)", "GPU-SIMULATED-0", null));

		assertThat(Capabilities.available(List.of("serial"), 1, gpus)).containsExactly("serial");
	}

	@Test
	void oneNumaDomainAndNoGpusOfferOnlyCpuClasses() {
		assertThat(Capabilities.available(List.of("serial"), 1, List.of())).containsExactly("serial");
	}

	@Test
	void tokensOutsideTheVocabularyAreDropped() {
		assertThat(Capabilities.available(List.of("serial", "riscv-rvv"), 1, List.of())).containsExactly("serial");
	}
}
