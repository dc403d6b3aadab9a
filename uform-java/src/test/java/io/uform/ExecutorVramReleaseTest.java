package io.uform;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;
import io.uform.gpu.DeviceContext;
import io.uform.gpu.GpuRuntime;
import io.uform.gpu.PausingCudaCompute;
import io.uform.gpu.RecordingCuda;
import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * How a VRAM executor's devices are released against the work that uses them: lanes used from other
 * threads while the executor is freed, lanes that outlive every reference to their executor, a
 * release step that throws an {@link Error}, and waits for busy streams that a deadline bounds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorVramReleaseTest {

	/**
	 * Runs each task on a thread of its own: these tasks block (held in the driver, or waiting for one
	 * another), and on JDK 25 a 2-core machine's common pool runs them one after the other, so a free
	 * queued behind a held copy never started.
	 */
	private static final java.util.concurrent.Executor OWN_THREAD = (task) -> new Thread(task).start();

	private final SimulatedRuntime simulated = new SimulatedRuntime(2, 64L << 20);

	private final RecordingCuda cuda = new RecordingCuda(1);

	private Executor simulatedOn(int device, GpuRuntime runtime) {
		return Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(device)), Gpus.devices(this.simulated.devices()),
				(found, ordinal) -> runtime);
	}

	private Executor onCuda() {
		return Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0)), Gpus.devices(this.cuda.devices()),
				(found, ordinal) -> this.cuda.runtime());
	}

	@Test
	void aLaneKeepsItsExecutorAndItsDeviceMemoryAliveWhereNothingElseReferencesTheExecutor() throws Exception {
		DeviceLane lane = simulatedOn(0, this.simulated).lanes().get(0);
		DeviceBuffer open = lane.reserve(1 << 20);
		// The control: an executor nobody references, whose memory the Cleaner gives back once collected.
		simulatedOn(1, this.simulated).lanes().get(0).reserve(1 << 20);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (this.simulated.usedBytes(1) != 0 && System.nanoTime() < deadline) {
			System.gc();
			Thread.sleep(20);
		}
		assertThat(this.simulated.usedBytes(1)).as("the unreferenced executor was collected and released").isZero();
		assertThat(this.simulated.usedBytes(0)).as("the lane's executor still holds its memory").isEqualTo(1 << 20);
		lane.reserve(256).close();
		open.close();
		// And once the lane is unreachable too, the executor is collected and gives its device back (it
		// would otherwise count as holding device 0 for the tests that follow in this JVM).
		lane = null;
		open = null;
		deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (this.simulated.usedBytes(0) != 0 && System.nanoTime() < deadline) {
			System.gc();
			Thread.sleep(20);
		}
		assertThat(this.simulated.usedBytes(0)).as("released once nothing references the lane").isZero();
	}

	@Test
	void freeWaitsForALaneCallInFlightOnAnotherThreadBeforeGivingItsMemoryBack() throws Exception {
		Executor executor = onCuda();
		// A second executor on the same GPU keeps the primary context alive, as any other user of it would:
		// a freed address could then be handed out again, and a late copy would write into it.
		Executor other = onCuda();
		DeviceLane lane = executor.lanes().get(0);
		HostBuffer host = lane.hostBuffer(256);
		DeviceBuffer device = lane.reserve(256);
		PausingCudaCompute.Pause copy = this.cuda.pauseNext("cuMemcpyHtoDAsync_v2");
		AtomicReference<Throwable> copyFailure = new AtomicReference<>();
		Thread user = new Thread(() -> {
			try {
				lane.copyToDevice(host, device);
			}
			catch (Throwable ex) {
				copyFailure.set(ex);
			}
		});
		user.start();
		copy.awaitArrival();
		CompletableFuture<Void> freeing = CompletableFuture.runAsync(executor::free, OWN_THREAD);
		// Not a verb to find out: one called as the release begins waits for it, and so for the copy.
		awaitReleaseBegun(lane);
		Thread.sleep(100);
		assertThat(freeing).as("free() waits for the copy that is being queued").isNotDone();
		assertThat(catchThrowable(() -> lane.reserve(16))).as("new work is refused meanwhile")
			.isInstanceOfSatisfying(UformException.class, (ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));
		copy.resume();
		user.join(10_000);
		freeing.get(10, TimeUnit.SECONDS);
		assertThat(copyFailure.get()).as("the copy reached the driver while its memory and stream were alive").isNull();
		assertThat(this.cuda.liveAllocations()).as("the executor's scratch was freed after the copy").isEmpty();
		assertThat(catchThrowable(() -> lane.copyToDevice(host, device)))
			.isInstanceOfSatisfying(UformException.class, (ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));
		other.free();
		assertThat(this.cuda.retains(0)).isZero();
	}

	@Test
	void closingAHostBufferWhileItsCopyIsInFlightAndAFreeWaitsEndsWithoutDeadlock() throws Exception {
		Executor executor = onCuda();
		DeviceLane lane = executor.lanes().get(0);
		HostBuffer host = lane.hostBuffer(256);
		DeviceBuffer device = lane.reserve(256);
		PausingCudaCompute.Pause copy = this.cuda.pauseNext("cuMemcpyHtoDAsync_v2");
		CompletableFuture<Void> copying = CompletableFuture.runAsync(() -> lane.copyToDevice(host, device), OWN_THREAD);
		copy.awaitArrival();
		// The free waits for the copy; the close waits for the copy's hold on the buffer, and then enters
		// the device to wait for the stream: neither may wait for the other.
		CompletableFuture<Void> freeing = CompletableFuture.runAsync(executor::free, OWN_THREAD);
		Thread.sleep(100);
		CompletableFuture<Void> closing = CompletableFuture.runAsync(host::close, OWN_THREAD);
		Thread.sleep(100);
		copy.resume();
		copying.get(10, TimeUnit.SECONDS);
		freeing.get(10, TimeUnit.SECONDS);
		closing.get(10, TimeUnit.SECONDS);
		assertThat(this.cuda.liveAllocations()).isEmpty();
	}

	@Test
	void aHostBufferClosedWhileAReleaseWaitsForAVerbIsFreedOnlyAfterItsStreamIsSynchronised() throws Exception {
		Executor executor = onCuda();
		DeviceLane lane = executor.lanes().get(0);
		HostBuffer result = lane.hostBuffer(256);
		HostBuffer input = lane.hostBuffer(256);
		DeviceBuffer device = lane.reserve(256);
		// Queued: the GPU writes into result's native memory until the stream is synchronised.
		lane.copyToHost(device, result);
		// Another thread's verb is in flight (held in the driver), so the release waits for it.
		PausingCudaCompute.Pause copy = this.cuda.pauseNext("cuMemcpyHtoDAsync_v2");
		CompletableFuture<Void> copying = CompletableFuture.runAsync(() -> lane.copyToDevice(input, device), OWN_THREAD);
		copy.awaitArrival();
		CompletableFuture<Void> freeing = CompletableFuture.runAsync(executor::free, OWN_THREAD);
		awaitReleaseBegun(lane);
		long before = synchronizes();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(result::close, OWN_THREAD);
		Thread.sleep(300);
		boolean closedFirst = closing.isDone();
		long during = synchronizes();
		copy.resume();
		copying.get(10, TimeUnit.SECONDS);
		freeing.get(10, TimeUnit.SECONDS);
		closing.get(10, TimeUnit.SECONDS);
		assertThat(during).as("nobody synchronised the stream yet").isEqualTo(before);
		assertThat(closedFirst).as("close() freed result's memory before the copy into it was waited for").isFalse();
	}

	/**
	 * Waits until the release has begun, without calling a verb: a verb called just as it begins waits
	 * behind it, and the release waits for the held copy, which this thread has to resume.
	 */
	private static void awaitReleaseBegun(DeviceLane lane) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!lane.releaseBegun()) {
			assertThat(System.nanoTime()).as("the release began within 20 s").isLessThan(deadline);
			Thread.sleep(1);
		}
	}

	private long synchronizes() {
		return this.cuda.calls().stream().filter((call) -> call.startsWith("cuStreamSynchronize")).count();
	}

	@Test
	void anErrorReleasingOneDeviceStillReleasesTheOthersAndReachesFree() {
		AtomicBoolean failSynchronize = new AtomicBoolean();
		GpuRuntime failing = new GpuRuntime() {
			@Override
			public String name() {
				return "simulated";
			}

			@Override
			public DeviceContext open(int ordinal) {
				DeviceContext real = ExecutorVramReleaseTest.this.simulated.open(ordinal);
				return (ordinal != 0) ? real : (DeviceContext) Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { DeviceContext.class }, (proxy, method, args) -> {
							if (method.getName().equals("synchronize") && failSynchronize.get()) {
								throw new OutOfMemoryError("simulated: no memory for the driver's status message");
							}
							try {
								return method.invoke(real, args);
							}
							catch (InvocationTargetException ex) {
								throw ex.getCause();
							}
						});
			}
		};
		Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)),
				Gpus.devices(this.simulated.devices()), (found, ordinal) -> failing);
		executor.forDevices((lane) -> lane.reserve(1 << 20));
		failSynchronize.set(true);
		Throwable thrown = catchThrowable(executor::free);
		assertThat(thrown).as("free() reports the Error").isInstanceOf(OutOfMemoryError.class)
			.hasMessageContaining("no memory for the driver's status message");
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(this.simulated.usedBytes(0)).as("device 0's scratch, although its stream's wait failed").isZero();
		assertThat(this.simulated.usedBytes(1)).as("device 1, after device 0's release failed").isZero();
	}

	@Test
	void drainWithATimeoutReturnsFalseByItsDeadlineWhileAStreamIsBusyAndTrueOnceItIsDone() {
		Executor executor = onCuda();
		try {
			long stream = executor.lanes().get(0).streamAddress();
			this.cuda.busyFor(stream, Integer.MAX_VALUE);
			long start = System.nanoTime();
			boolean drained = executor.drain(Mood.PARKED, Duration.ofMillis(100));
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(drained).as("a kernel still runs on the stream").isFalse();
			assertThat(millis).as("drain(PARKED, 100 ms) returned by its deadline").isLessThan(5_000);
			this.cuda.busyFor(stream, 3);
			assertThat(executor.drain(Mood.PARKED, Duration.ofSeconds(10))).as("the stream became idle").isTrue();
			assertThat(this.cuda.calls()).filteredOn((call) -> call.startsWith("cuEventQuery")).hasSizeGreaterThan(3);
			assertThat(this.cuda.liveEvents()).as("each drain destroyed its event").isEmpty();
		}
		finally {
			executor.free();
		}
	}

	@Test
	void aFreeThatRunsOutOfTimeWhileADeviceIsReleasedSaysSoRatherThanBlamingAFork() throws Exception {
		Executor executor = onCuda();
		PausingCudaCompute.Pause release = this.cuda.pauseNext("cuStreamSynchronize");
		CompletableFuture<Throwable> freeing = CompletableFuture.supplyAsync(() -> catchThrowable(
				() -> executor.free(Duration.ofMillis(100))), OWN_THREAD);
		release.awaitArrival();
		Throwable thrown = freeing.get(20, TimeUnit.SECONDS);
		release.resume();
		assertThat(thrown).isInstanceOfSatisfying(UformException.class, (ex) -> assertThat(ex.status())
			.isEqualTo(Status.TIMEOUT));
		assertThat(thrown.getMessage()).contains("releasing device 0 (NVIDIA H100 80GB HBM3)")
			.doesNotContain("fork still in progress");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!this.cuda.liveStreams().isEmpty() && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(this.cuda.liveStreams()).as("the release went on once the stream was done").isEmpty();
	}

	@Test
	void aLaneCallAfterFreeIsRefusedWithFreed() {
		Executor executor = onCuda();
		DeviceLane lane = executor.lanes().get(0);
		executor.free();
		assertThatThrownBy(lane::synchronize).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));
		assertThatThrownBy(() -> lane.reserve(16)).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));
	}
}
