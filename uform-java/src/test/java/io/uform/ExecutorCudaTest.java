package io.uform;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;
import io.uform.gpu.GpuClasses;
import io.uform.gpu.RecordingCuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * VRAM executors over the real CUDA runtime code and a recording fake of the driver (the boundary
 * this machine cannot have; {@code scripts/gpu-check.sh} runs the same path on a real GPU): what
 * reaches the driver, in what order, and that everything an executor made is given back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorCudaTest {

	private final RecordingCuda cuda = new RecordingCuda(2);

	private Executor vram(ExecutorForVramConfig config) {
		return Executor.forVram(config, Gpus.devices(this.cuda.devices()), (device, ordinal) -> this.cuda.runtime());
	}

	@Test
	void freeGivesBackEveryStreamModuleAllocationAndContextItMade() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
		assertThat(this.cuda.liveStreams()).hasSize(2);
		assertThat(this.cuda.retains(0)).isEqualTo(1);
		assertThat(this.cuda.retains(1)).isEqualTo(1);
		executor.forDevices((lane) -> {
			DeviceBuffer matrix = lane.reserve(64 * 4);
			DeviceBuffer queries = lane.reserve(16);
			DeviceBuffer scores = lane.reserve(16 * 4);
			lane.dotProducts(matrix, queries, scores, 16, 4, 1);
			lane.dotProducts(matrix, queries, scores, 16, 4, 1);
			lane.synchronize();
		});
		assertThat(this.cuda.liveModules()).as("one module per device, loaded once").hasSize(2);
		assertThat(this.cuda.liveAllocations()).hasSize(6);
		executor.free();
		assertThat(this.cuda.liveStreams()).isEmpty();
		assertThat(this.cuda.liveModules()).isEmpty();
		assertThat(this.cuda.liveAllocations()).isEmpty();
		assertThat(this.cuda.retains(0)).isZero();
		assertThat(this.cuda.retains(1)).isZero();
	}

	@Test
	void theShippedKernelIsLaunchedWithItsShapeAndTypedArgumentsOnTheLanesStream() {
		try (Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(1)))) {
			DeviceLane lane = executor.lanes().get(0);
			DeviceBuffer matrix = lane.reserve(100 * 8 * 4);
			DeviceBuffer queries = lane.reserve(3 * 8 * 4);
			DeviceBuffer scores = lane.reserve(3 * 100 * 4);
			lane.dotProducts(matrix, queries, scores, 100, 8, 3);
			assertThat(this.cuda.launches()).hasSize(1);
			String launch = this.cuda.launches().get(0);
			assertThat(launch).startsWith("grid [13, 1, 1] block [256, 1, 1] shared 0 args [8:0x")
				.endsWith("4:0x64, 4:0x8, 4:0x3]");
			assertThat(this.cuda.calls()).anySatisfy((call) -> assertThat(call)
				.startsWith("cuLaunchKernel").contains(Long.toHexString(lane.streamAddress())));
		}
	}

	@Test
	void statisticsNameTheClassEachDeviceDispatchesAsAndWhetherItsStreamsAreBorrowed() {
		String own = Gpus.devices(this.cuda.devices()).get(0).gpuClass();
		String older = GpuClasses.known().stream()
			.filter((name) -> !name.equals(own) && VramPlan.runsOn(name, own))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no class older than " + own + " to dispatch as"));
		Executor owner = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
		Executor asOlder = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)).withGpuClass(older));
		List<Long> streams = owner.lanes().stream().map(DeviceLane::streamAddress).toList();
		Executor borrower = vram(new ExecutorForVramConfig(List.of(0, 1), null, null, null, streams, null, null));
		try {
			assertThat(owner.statistics().gpuClasses()).containsExactly(own, Gpus.devices(this.cuda.devices()).get(1).gpuClass());
			assertThat(owner.statistics().borrowedStreams()).isFalse();
			assertThat(asOlder.statistics().gpuClasses()).containsExactly(older);
			assertThat(borrower.statistics().borrowedStreams()).isTrue();
			try (Executor ram = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
				assertThat(ram.statistics().gpuClasses()).isEmpty();
				assertThat(ram.statistics().borrowedStreams()).isFalse();
			}
		}
		finally {
			borrower.free();
			asOlder.free();
			owner.free();
		}
	}

	@Test
	void borrowedStreamsAreUsedAndNeverDestroyed() {
		Executor owner = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
		List<Long> streams = owner.lanes().stream().map(DeviceLane::streamAddress).toList();
		Executor borrower = vram(new ExecutorForVramConfig(List.of(0, 1), null, null, null, streams, null, null));
		assertThat(this.cuda.liveStreams()).hasSize(2);
		assertThat(borrower.lanes()).extracting(DeviceLane::streamAddress).containsExactlyElementsOf(streams);
		borrower.drain();
		borrower.free();
		assertThat(this.cuda.liveStreams()).containsExactlyInAnyOrderElementsOf(streams);
		assertThat(this.cuda.retains(0)).as("the owner still holds its context").isEqualTo(1);
		owner.free();
		assertThat(this.cuda.liveStreams()).isEmpty();
		assertThat(this.cuda.calls().stream().filter((call) -> call.startsWith("cuStreamDestroy"))).hasSize(2);
	}

	@Test
	void deferredCallsRunWithTheDevicesContextCurrentAndDrainSynchronisesEveryStream() throws Exception {
		try (Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)))) {
			long current = executor.defer(this.cuda::currentContext).get(10, TimeUnit.SECONDS);
			assertThat(current).isNotZero();
			int before = this.cuda.calls().size();
			executor.drain();
			List<String> synchronised = this.cuda.calls().subList(before, this.cuda.calls().size()).stream()
				.filter((call) -> call.startsWith("cuStreamSynchronize")).toList();
			assertThat(synchronised).hasSize(2);
		}
	}

	@Test
	void driverFailuresReachTheCallerAsClearStatusesAndTheExecutorStaysUsable() {
		try (Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)))) {
			DeviceLane lane = executor.lanes().get(0);
			this.cuda.failNext("cuMemAlloc_v2", 2, "CUDA_ERROR_OUT_OF_MEMORY");
			assertThatThrownBy(() -> lane.reserve(1 << 20)).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.OUT_OF_MEMORY))
				.hasMessageContaining("could not grow by 1048576 bytes")
				.hasMessageContaining("the device's free memory")
				.cause().hasMessageContaining("CUDA_ERROR_OUT_OF_MEMORY");
			this.cuda.failNextModuleLoad(218, "CUDA_ERROR_INVALID_PTX", "ptxas fatal: unresolved symbol");
			assertThatThrownBy(() -> lane.kernel(Kernels.dotF32())).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.DEVICE_ERROR))
				.hasMessageContaining("CUDA_ERROR_INVALID_PTX")
				.hasMessageContaining("ptxas fatal: unresolved symbol");
			try (DeviceBuffer works = lane.reserve(1 << 20)) {
				assertThat(works.bytes()).isEqualTo(1 << 20);
			}
			assertThat(lane.kernel(Kernels.dotF32()).entry()).isEqualTo("uform_dot_f32");
		}
		assertThat(this.cuda.liveAllocations()).isEmpty();
		assertThat(this.cuda.retains(0)).isZero();
	}

	@Test
	void aDeviceThatFailsToOpenReleasesTheOnesAlreadyOpen() {
		this.cuda.failNext("cuStreamCreate", 999, "CUDA_ERROR_UNKNOWN");
		// Device 0 opens (its stream creation fails): nothing of it may stay retained.
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1))))
			.isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.DEVICE_ERROR))
			.hasMessageContaining("cuStreamCreate");
		assertThat(this.cuda.retains(0)).isZero();
		assertThat(this.cuda.retains(1)).isZero();
		assertThat(this.cuda.liveStreams()).isEmpty();
	}
}
