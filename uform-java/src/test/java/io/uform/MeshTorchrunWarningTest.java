package io.uform;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * torchrun's several processes per host ({@code LOCAL_WORLD_SIZE} above 1) get a warning naming this
 * process's devices and the other local processes' count; one process per host, or a run with no
 * peers, gets none.
 */
class MeshTorchrunWarningTest {

	private static final GpuDevice GPU = new GpuDevice(GpuVendor.NVIDIA, 0, "nvidia-hopper", 132, 80L << 30,
			"NVIDIA H100", "GPU-1234", null);

	@Test
	void severalLocalProcessesAreToldWhatEachHoldsAndHowToStartTorchrun() {
		assertThat(Mesh.severalLocalProcesses("8", List.of(GPU), 16)).contains("LOCAL_WORLD_SIZE=8")
			.contains("holds 1 device(s) [NVIDIA H100 (GPU-1234)]")
			.contains("the 7 other local process(es)")
			.contains("--nproc-per-node=1")
			.contains("CUDA_VISIBLE_DEVICES=$LOCAL_RANK");
	}

	@Test
	void oneLocalProcessAnUnsetOrUnreadableVariableOrNoPeersSayNothing() {
		assertThat(Mesh.severalLocalProcesses("1", List.of(GPU), 4)).isNull();
		assertThat(Mesh.severalLocalProcesses(null, List.of(GPU), 4)).isNull();
		assertThat(Mesh.severalLocalProcesses("eight", List.of(GPU), 4)).isNull();
		assertThat(Mesh.severalLocalProcesses("8", List.of(GPU), 1)).isNull();
	}
}
