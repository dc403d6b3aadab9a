package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;
import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * VRAM executors on simulated devices (host memory behind the same runtime interface as CUDA):
 * device choice and validation, forks over devices, scratch growth, limits and high-water marks,
 * copies, deferred calls, drain and free, and that nothing leaks over many executors.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExecutorVramTest {

	private static final long DEVICE_MEMORY = 64L << 20;

	private SimulatedRuntime runtime;

	private List<GpuDevice> devices;

	private final List<Executor> made = new ArrayList<>();

	@BeforeEach
	void simulateTwoDevices() {
		this.runtime = new SimulatedRuntime(2, DEVICE_MEMORY);
		this.devices = Gpus.devices(this.runtime.devices());
	}

	@AfterEach
	void freeEverything() {
		// Newest first: an executor that borrowed another's streams must go before their owner.
		java.util.Collections.reverse(this.made);
		this.made.forEach(Executor::free);
	}

	private Executor vram(ExecutorForVramConfig config) {
		Executor executor = Executor.forVram(config, this.devices, (device, ordinal) -> this.runtime);
		this.made.add(executor);
		return executor;
	}

	@Test
	void aForkOverDevicesRunsOneTaskPerDeviceInParallelWithItsOwnLane() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
		assertThat(executor.kind()).isEqualTo(Executor.Kind.VRAM);
		assertThat(executor.devices()).containsExactlyElementsOf(this.devices);
		// An unmodifiable list that answers a question about null, as Stream.toList()'s did (List.copyOf's throws).
		assertThat(executor.devices().contains(null)).isFalse();
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> executor.devices().clear());
		assertThat(executor.threads()).isEqualTo(2);
		Set<Integer> lanes = ConcurrentHashMap.newKeySet();
		Set<String> threads = ConcurrentHashMap.newKeySet();
		executor.forDevices((lane) -> {
			lanes.add(lane.index());
			threads.add(Thread.currentThread().getName());
			assertThat(lane.simulated()).isTrue();
			assertThat(lane.device()).isEqualTo(this.devices.get(lane.index()));
		});
		assertThat(lanes).containsExactlyInAnyOrder(0, 1);
		assertThat(threads).hasSize(2);
		assertThat(executor.lanes()).extracting(DeviceLane::index).containsExactly(0, 1);
		assertThat(executor.lanes().get(0).streamAddress()).isNotEqualTo(executor.lanes().get(1).streamAddress());
	}

	@Test
	void bytesCopiedToADeviceAndBackAreTheBytesSent() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
		float[][] back = new float[2][];
		executor.forDevices((lane) -> {
			float[] sent = new float[1000];
			for (int i = 0; i < sent.length; i++) {
				sent[i] = lane.index() * 10_000 + i * 0.5f;
			}
			try (HostBuffer host = lane.hostBuffer(4000); DeviceBuffer device = lane.reserve(4000);
					HostBuffer result = lane.hostBuffer(4000)) {
				host.putFloats(0, sent);
				lane.copyToDevice(host, device);
				lane.copyToHost(device, result);
				lane.synchronize();
				back[lane.index()] = result.getFloats(0, new float[1000]);
			}
		});
		for (int device = 0; device < 2; device++) {
			assertThat(back[device][0]).isEqualTo(device * 10_000f);
			assertThat(back[device][999]).isEqualTo(device * 10_000 + 999 * 0.5f);
		}
	}

	@Test
	void scratchGrowsAsAskedIsReusedAndReportsReservedInUseAndHighWater() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		DeviceLane lane = executor.lanes().get(0);
		DeviceBuffer first = lane.reserve(1 << 20);
		DeviceBuffer second = lane.reserve(1000);
		ScratchStatistics scratch = executor.statistics().scratch().get(0);
		assertThat(scratch.reservedBytes()).isEqualTo((1 << 20) + 1024);
		assertThat(scratch.inUseBytes()).isEqualTo((1 << 20) + 1024);
		assertThat(scratch.limitBytes()).isNull();
		assertThat(scratch.ordinal()).isZero();
		first.close();
		second.close();
		first.close();
		DeviceBuffer again = lane.reserve(1 << 20);
		scratch = executor.statistics().scratch().get(0);
		assertThat(scratch.reservedBytes()).as("the released block is reused, not allocated anew")
			.isEqualTo((1 << 20) + 1024);
		assertThat(scratch.inUseBytes()).isEqualTo(1 << 20);
		assertThat(scratch.highWaterBytes()).isEqualTo((1 << 20) + 1024);
		again.close();
		assertThat(this.runtime.usedBytes(0)).isEqualTo((1 << 20) + 1024);
	}

	@Test
	@SuppressWarnings("try") // a reservation held through a block that does not use it
	void askingPastTheScratchLimitFailsThatCallClearlyAndTheExecutorStaysUsable() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(1)).withScratchLimit(1L << 20));
		DeviceLane lane = executor.lanes().get(0);
		DeviceBuffer held = lane.reserve(600_000);
		assertThatThrownBy(() -> lane.reserve(600_000)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.OUT_OF_MEMORY))
			.hasMessageContaining("'" + executor.name() + "', device 0")
			.hasMessageContaining("could not grow by 600000 bytes")
			.hasMessageContaining("holds 600064 bytes")
			.hasMessageContaining("scratchLimit: 1048576 bytes");
		held.close();
		// Free blocks are given back to make room, so the same request now fits.
		try (DeviceBuffer fits = lane.reserve(900_000)) {
			assertThat(fits.bytes()).isEqualTo(900_000);
		}
		assertThat(executor.statistics().scratch().get(0).limitBytes()).isEqualTo(1L << 20);
		// A size near Long.MAX_VALUE wrapped the sum in the limit check and went on to the device.
		try (DeviceBuffer small = lane.reserve(256)) {
			assertThatThrownBy(() -> lane.reserve(Long.MAX_VALUE - 300)).isInstanceOf(UformException.class)
				.hasMessageContaining("that would pass the executor's scratchLimit");
		}
	}

	@Test
	void scratchWithoutALimitStopsAtTheDevicesMemory() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		DeviceLane lane = executor.lanes().get(0);
		assertThatThrownBy(() -> lane.reserve(DEVICE_MEMORY + 1)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.OUT_OF_MEMORY))
			.hasMessageContaining("the device's free memory");
		try (DeviceBuffer half = lane.reserve(DEVICE_MEMORY / 2)) {
			assertThat(half.bytes()).isEqualTo(DEVICE_MEMORY / 2);
		}
	}

	@Test
	void aKernelLaunchOnASimulatedDeviceIsUnsupportedWithTheFallback() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		DeviceLane lane = executor.lanes().get(0);
		try (DeviceBuffer matrix = lane.reserve(4 * 8); DeviceBuffer queries = lane.reserve(4 * 4);
				DeviceBuffer scores = lane.reserve(4 * 2)) {
			assertThatThrownBy(() -> lane.dotProducts(matrix, queries, scores, 2, 4, 1)).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.UNSUPPORTED))
				.hasMessageContaining("simulated");
			// rows x dim x 4 bytes overflowed a long, and a 32-byte matrix passed for 2^62 floats.
			assertThatThrownBy(() -> lane.dotProducts(matrix, queries, scores, Integer.MAX_VALUE, Integer.MAX_VALUE, 0))
				.isInstanceOf(UformException.class)
				.hasMessageContaining("matrix");
		}
	}

	@Test
	void buffersAreCheckedBeforeTheyReachTheDevice() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
		DeviceLane zero = executor.lanes().get(0);
		DeviceLane one = executor.lanes().get(1);
		DeviceBuffer onOne = one.reserve(64);
		try (HostBuffer host = zero.hostBuffer(64)) {
			assertThatThrownBy(() -> zero.copyToDevice(host, onOne)).isInstanceOf(UformException.class)
				.hasMessageContaining("device 1 was used in copyToDevice on device 0");
			DeviceBuffer small = zero.reserve(16);
			assertThatThrownBy(() -> zero.copyToDevice(host, small)).isInstanceOf(UformException.class)
				.hasMessageContaining("does not fit a device buffer of 16 bytes");
			small.close();
			assertThatThrownBy(() -> zero.copyToHost(small, 0, host, 0, 8)).isInstanceOf(UformException.class)
				.hasMessageContaining("after it was closed");
			assertThatThrownBy(() -> host.putFloats(60, new float[2])).isInstanceOf(UformException.class)
				.hasMessageContaining("does not fit a host buffer of 64 bytes");
			// A host buffer is one lane's: its close waits for that lane's stream only.
			DeviceBuffer onOneToo = one.reserve(64);
			assertThatThrownBy(() -> one.copyToDevice(host, onOneToo)).isInstanceOf(UformException.class)
				.hasMessageContaining("make one with that lane's hostBuffer(bytes)");
			onOneToo.close();
			DeviceBuffer device = zero.reserve(64);
			// Missing buffers and arrays are named, never a bare NullPointerException.
			assertThatThrownBy(() -> zero.copyToDevice(null, device)).isInstanceOf(UformException.class)
				.hasMessageContaining("host buffer");
			assertThatThrownBy(() -> zero.copyToDevice(null, 0, device, 0, 8)).isInstanceOf(UformException.class)
				.hasMessageContaining("host buffer");
			assertThatThrownBy(() -> zero.copyToHost(device, null)).isInstanceOf(UformException.class)
				.hasMessageContaining("host buffer");
			assertThatThrownBy(() -> zero.copyToHost(device, 0, null, 0, 8)).isInstanceOf(UformException.class)
				.hasMessageContaining("host buffer");
			assertThatThrownBy(() -> host.putFloats(0, null)).isInstanceOf(UformException.class)
				.hasMessageContaining("values");
			assertThatThrownBy(() -> host.getFloats(0, null)).isInstanceOf(UformException.class)
				.hasMessageContaining("into");
			assertThatThrownBy(() -> host.putBytes(0, null)).isInstanceOf(UformException.class)
				.hasMessageContaining("values");
			assertThatThrownBy(() -> host.getBytes(0, null)).isInstanceOf(UformException.class)
				.hasMessageContaining("into");
			device.close();
		}
		// A host buffer larger than the process can have: OUT_OF_MEMORY, not a raw OutOfMemoryError.
		assertThatThrownBy(() -> zero.hostBuffer(Long.MAX_VALUE)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.OUT_OF_MEMORY))
			.hasMessageContaining("host buffer of " + Long.MAX_VALUE + " bytes");
		assertThatThrownBy(() -> zero.launch(null, new int[] { 1 }, new int[] { 1 }, 0, KernelArgs.of()))
			.isInstanceOf(UformException.class).hasMessageContaining("kernel");
		assertThatThrownBy(() -> KernelArgs.of().u32(-1)).isInstanceOf(UformException.class).hasMessageContaining("u32");
	}

	@Test
	void badConfigsAreRefusedByFieldBeforeAnythingOpens() {
		long before = this.runtime.usedBytes(0);
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withDevices(List.of(2))))
			.isInstanceOf(UformException.class)
			.hasMessageContaining("Invalid devices = [2]")
			.hasMessageContaining("device 2 does not exist")
			.hasMessageContaining("0 = " + this.devices.get(0).name());
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withDevices(List.of(1, 1))))
			.hasMessageContaining("named twice");
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withDevices(List.of())))
			.hasMessageContaining("at least one device");
		assertThatThrownBy(() -> vram(new ExecutorForVramConfig(List.of(0, 1), null, null, null, List.of(7L), null, null)))
			.hasMessageContaining("Invalid streams")
			.hasMessageContaining("one CUstream address per device (2");
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withGpuClass("nvidia-volta")))
			.hasMessageContaining("Invalid gpuClass = 'nvidia-volta'")
			.hasMessageContaining("cannot run nvidia-volta kernels");
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withGpuClass("nvidia-pentium")))
			.hasMessageContaining("not a GPU class uform knows");
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withScratchLimit(0L)))
			.hasMessageContaining("Invalid scratchLimit = 0");
		long deviceBytes = DEVICE_MEMORY;
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)).withScratchLimit(deviceBytes + 1)))
			.hasMessageContaining("Invalid scratchLimit = " + (deviceBytes + 1))
			.hasMessageContaining("device 0 (")
			.hasMessageContaining("has " + deviceBytes + " bytes");
		assertThatThrownBy(() -> vram(ExecutorForVramConfig.defaults().withDeferredLimit(0)))
			.hasMessageContaining("deferredLimit");
		assertThat(this.made).isEmpty();
		assertThat(this.runtime.usedBytes(0)).isEqualTo(before);
		assertThat(vram(ExecutorForVramConfig.defaults().withGpuClass("simulated")).devices()).hasSize(1);
	}

	@Test
	void anExecutorWithoutDevicesTakesTheDeviceFewestExecutorsHold() {
		Executor first = vram(ExecutorForVramConfig.defaults());
		Executor second = vram(ExecutorForVramConfig.defaults());
		Executor third = vram(ExecutorForVramConfig.defaults());
		assertThat(first.statistics().devices()).containsExactly(0);
		assertThat(second.statistics().devices()).containsExactly(1);
		assertThat(third.statistics().devices()).containsExactly(0);
		second.free();
		assertThat(vram(ExecutorForVramConfig.defaults()).statistics().devices()).containsExactly(1);
	}

	@Test
	void borrowedStreamsAreUsedAsGiven() {
		long[] streams = { 0, 0 };
		Executor owner = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
		streams[0] = owner.lanes().get(0).streamAddress();
		streams[1] = owner.lanes().get(1).streamAddress();
		Executor borrower = vram(new ExecutorForVramConfig(List.of(0, 1), null, null, null, List.of(streams[0], streams[1]),
				null, null));
		assertThat(borrower.lanes()).extracting(DeviceLane::streamAddress).containsExactly(streams[0], streams[1]);
	}

	@Test
	void deferredCallsDrainAndFreeKeepTheRamExecutorsGuaranteesOnDevices() throws Exception {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)).withDeferredLimit(4));
		List<CompletableFuture<Long>> sums = new ArrayList<>();
		for (int c = 0; c < 20; c++) {
			int call = c;
			sums.add(executor.defer(() -> {
				long[] perDevice = new long[2];
				executor.forDevices((lane) -> {
					try (DeviceBuffer scratch = lane.reserve(1024 * (call + 1))) {
						perDevice[lane.index()] = scratch.bytes();
					}
				});
				return perDevice[0] + perDevice[1];
			}));
		}
		assertThat(executor.drain(Mood.PARKED, Duration.ofSeconds(30))).isTrue();
		for (int c = 0; c < 20; c++) {
			assertThat(sums.get(c).get()).isEqualTo(2L * 1024 * (c + 1));
		}
		ExecutorStatistics stats = executor.statistics();
		assertThat(stats.deferredCompleted()).isEqualTo(20);
		assertThat(stats.deferredInFlight()).isZero();
		assertThat(stats.scratch()).hasSize(2).allSatisfy((scratch) -> {
			assertThat(scratch.inUseBytes()).isZero();
			assertThat(scratch.highWaterBytes()).isEqualTo(1024 * 20);
		});
		executor.free();
		assertThat(this.runtime.usedBytes(0)).isZero();
		assertThat(this.runtime.usedBytes(1)).isZero();
		assertThatThrownBy(() -> executor.forDevices((lane) -> {
		})).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED));
		assertThat(executor.statistics().scratch()).allSatisfy((scratch) -> assertThat(scratch.reservedBytes()).isZero());
		DeviceLane lane = executor.lanes().get(0);
		assertThatThrownBy(() -> lane.reserve(8)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED));
		assertThatThrownBy(lane::synchronize).isInstanceOf(UformException.class)
			.hasMessageContaining("'" + executor.name() + "' was freed");
	}

	@Test
	void aHostBufferClosedWhileAnotherThreadCopiesIsNeverFreedUnderTheCopy() throws Exception {
		// The copy took the buffer's address, then copied without its monitor: a close between the two
		// freed the memory under the copy, and the JVM died of a SIGSEGV.
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		DeviceLane lane = executor.lanes().get(0);
		for (int round = 0; round < 20; round++) {
			HostBuffer host = lane.hostBuffer(32 << 20);
			DeviceBuffer device = lane.reserve(32 << 20);
			java.util.concurrent.atomic.AtomicReference<Throwable> ended = new java.util.concurrent.atomic.AtomicReference<>();
			java.util.concurrent.CountDownLatch copying = new java.util.concurrent.CountDownLatch(1);
			Thread copier = new Thread(() -> {
				try {
					while (true) {
						lane.copyToDevice(host, device);
						copying.countDown();
						lane.copyToHost(device, host);
					}
				}
				catch (Throwable ex) {
					ended.set(ex);
				}
			}, "copier-" + round);
			copier.start();
			copying.await();
			// At a different point of a copy each round.
			Thread.sleep(round % 4);
			host.close();
			copier.join(10_000);
			assertThat(copier.isAlive()).isFalse();
			assertThat(ended.get()).isInstanceOf(UformException.class).hasMessageContaining("after it was closed");
			device.close();
		}
		executor.free();
		assertThat(this.runtime.usedBytes(0)).isZero();
	}

	@Test
	void hostBuffersAndReservationsOutlivingTheirExecutorCloseQuietly() {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		DeviceLane lane = executor.lanes().get(0);
		HostBuffer host = lane.hostBuffer(64);
		DeviceBuffer device = lane.reserve(64);
		executor.free();
		device.close();
		host.close();
		assertThat(this.runtime.usedBytes(0)).isZero();
	}

	@Test
	void devicesOfAnExecutorFreedWhileAForkWasStuckAreReleasedWhenTheForkReturns() throws Exception {
		Executor executor = vram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		executor.lanes().get(0).reserve(1 << 20);
		java.util.concurrent.CountDownLatch inFork = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		Thread forker = new Thread(() -> executor.forDevices((lane) -> {
			inFork.countDown();
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}));
		forker.start();
		inFork.await();
		assertThatThrownBy(() -> executor.free(Duration.ofMillis(100))).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
			.hasMessageContaining("a fork still in progress");
		assertThat(this.runtime.usedBytes(0)).as("the fork may still use its device").isPositive();
		release.countDown();
		forker.join(10_000);
		assertThat(this.runtime.usedBytes(0)).as("released when the fork returned").isZero();
	}

	@Test
	void aThousandExecutorsMadeAndFreedLeaveMemoryAndThreadsWhereTheyWere() {
		// Warm the completion pool and the JIT so that only the executors' own threads count.
		vram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1))).free();
		this.made.clear();
		int threadsBefore = liveUformExecutorThreads();
		for (int round = 0; round < 1000; round++) {
			Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)),
					this.devices, (device, ordinal) -> this.runtime);
			executor.forDevices((lane) -> lane.reserve(4096 + lane.index()));
			executor.defer(() -> executor.lanes().get(0).reserve(100).close());
			executor.free();
		}
		assertThat(this.runtime.usedBytes(0)).isZero();
		assertThat(this.runtime.usedBytes(1)).isZero();
		assertThat(liveUformExecutorThreads()).isEqualTo(threadsBefore);
	}

	@Test
	void aRamExecutorHasNoDevicesNoScratchAndNoDeviceForks() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThat(executor.lanes()).isEmpty();
			assertThat(executor.devices()).isEmpty();
			assertThat(executor.statistics().scratch()).isEmpty();
			assertThat(executor.statistics().devices()).isEmpty();
			assertThatThrownBy(() -> executor.forDevices((lane) -> {
			})).isInstanceOf(UformException.class).hasMessageContaining("RAM executor");
		}
	}

	private static int liveUformExecutorThreads() {
		return ExecutorLifecycleTest.liveThreads((name) -> name.startsWith("uform-vram-")).size();
	}
}
