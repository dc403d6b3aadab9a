package io.uform;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;
import io.uform.gpu.BusyStreams;
import io.uform.gpu.BusyStreams.RunningWork;
import io.uform.gpu.DeviceContext;
import io.uform.gpu.RecordingCuda;
import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link Executor#drain(Mood, Duration)} on a VRAM executor: it waits for the work queued on the
 * streams when the wait begins (an event recorded on each stream), not for work queued after, and
 * every event it makes is destroyed however the wait ends. On simulated devices with busy streams
 * ({@link BusyStreams}: completion ordered as a GPU orders it, and work that can be left running),
 * and over the recording CUDA fake for what reaches the driver and for driver failures.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorTimedDrainTest {

	/** Long enough never to pass on a loaded machine while the drain can finish; the tests never wait it out. */
	private static final Duration PATIENT = Duration.ofSeconds(30);

	private final BusyStreams simulated = new BusyStreams(new SimulatedRuntime(1, 64L << 20));

	private final RecordingCuda cuda = new RecordingCuda(2);

	/** Work a test left running; finished after each test, so that a failed test's free does not hang. */
	private final List<RunningWork> running = new CopyOnWriteArrayList<>();

	@AfterEach
	void finishWorkLeftRunning() {
		this.running.forEach(RunningWork::finish);
	}

	private RunningWork start(long stream) {
		RunningWork work = this.simulated.start(0, stream);
		this.running.add(work);
		return work;
	}

	private Executor simulatedExecutor(List<Long> streams) {
		return Executor.forVram(new ExecutorForVramConfig(List.of(0), null, null, null, streams, null, null),
				Gpus.devices(this.simulated.devices()), (found, ordinal) -> this.simulated);
	}

	private Executor cudaExecutor(List<Integer> devices) {
		return Executor.forVram(ExecutorForVramConfig.defaults().withDevices(devices), Gpus.devices(this.cuda.devices()),
				(found, ordinal) -> this.cuda.runtime());
	}

	private int liveEvents() {
		return this.simulated.liveEvents(0);
	}

	/** Drains on a thread of its own, so that the test can act while the drain waits. */
	private static CompletableFuture<Boolean> drainElsewhere(Executor executor, Duration timeout,
			AtomicReference<Thread> thread) {
		CompletableFuture<Boolean> drained = new CompletableFuture<>();
		Thread drainer = new Thread(() -> {
			try {
				drained.complete(executor.drain(Mood.PARKED, timeout));
			}
			catch (Throwable ex) {
				drained.completeExceptionally(ex);
			}
		}, "drainer");
		if (thread != null) {
			thread.set(drainer);
		}
		drainer.start();
		return drained;
	}

	private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("waited 20 s for " + what);
			}
			Thread.sleep(1);
		}
	}

	@Test
	void aTimedDrainOnABorrowedStreamThatAnotherThreadKeepsFeedingReturnsOnceTheWorkQueuedBeforeItIsDone()
			throws Exception {
		DeviceContext library = this.simulated.open(0);
		long stream = library.createStream();
		Executor borrower = simulatedExecutor(List.of(stream));
		RunningWork before = start(stream);
		// Another library keeps the stream busy: it queues the next kernel before the last one ends, so
		// from its first kernel on there is always work running on the stream.
		AtomicBoolean feeding = new AtomicBoolean(true);
		CountDownLatch fed = new CountDownLatch(1);
		Thread feeder = new Thread(() -> {
			RunningWork last = this.simulated.start(0, stream);
			fed.countDown();
			while (feeding.get()) {
				RunningWork next = this.simulated.start(0, stream);
				last.finish();
				last = next;
				LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
			}
			last.finish();
		}, "feeder");
		feeder.start();
		try {
			assertThat(fed.await(20, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Boolean> drained = drainElsewhere(borrower, PATIENT, null);
			awaitTrue(() -> borrower.statistics().state() == Executor.State.DRAINING || drained.isDone(),
					"the drain to begin");
			assertThat(drained).as("the work queued before the drain still runs").isNotDone();

			before.finish();

			assertThat(drained.get(50, TimeUnit.SECONDS)).as("the drain's own work is done, although the stream "
					+ "never went idle").isTrue();
			assertThat(library.idle(stream)).as("the feeder's kernels still run").isFalse();
			assertThat(liveEvents()).as("the drain destroyed its event").isZero();
		}
		finally {
			feeding.set(false);
			feeder.join(TimeUnit.SECONDS.toMillis(20));
			borrower.free();
			library.destroyStream(stream);
			library.close();
		}
	}

	@Test
	void aTimedDrainReturnsFalseWhileTheWorkQueuedBeforeItRunsAndDestroysItsEventAtTheDeadline() {
		Executor executor = simulatedExecutor(null);
		try {
			RunningWork kernel = start(executor.lanes().get(0).streamAddress());

			assertThat(executor.drain(Mood.PARKED, Duration.ofMillis(20))).isFalse();
			assertThat(liveEvents()).as("the event of the drain that timed out").isZero();

			kernel.finish();
			assertThat(executor.drain(Mood.PARKED, PATIENT)).isTrue();
			assertThat(liveEvents()).isZero();
		}
		finally {
			executor.free();
		}
	}

	@Test
	void anInterruptedTimedDrainThrowsInterruptedAndDestroysItsEvent() throws Exception {
		Executor executor = simulatedExecutor(null);
		try {
			start(executor.lanes().get(0).streamAddress());
			AtomicReference<Thread> drainer = new AtomicReference<>();
			CompletableFuture<Boolean> drained = drainElsewhere(executor, PATIENT, drainer);
			awaitTrue(() -> liveEvents() == 1 || drained.isDone(), "the drain to record its event");

			drainer.get().interrupt();

			Throwable thrown = catchThrowable(() -> drained.get(20, TimeUnit.SECONDS));
			assertThat(thrown.getCause()).isInstanceOfSatisfying(UformException.class,
					(ex) -> assertThat(ex.status()).isEqualTo(Status.INTERRUPTED));
			assertThat(liveEvents()).as("the interrupted drain's event").isZero();
		}
		finally {
			this.running.forEach(RunningWork::finish);
			executor.free();
		}
	}

	@Test
	void aDrainOvertakenByFreeLeavesItsEventToTheReleaseWhichDestroysIt() throws Exception {
		Executor executor = simulatedExecutor(null);
		RunningWork kernel = start(executor.lanes().get(0).streamAddress());
		CompletableFuture<Boolean> drained = drainElsewhere(executor, PATIENT, null);
		awaitTrue(() -> liveEvents() == 1 || drained.isDone(), "the drain to record its event");
		Thread freeing = new Thread(executor::free, "freeing");
		freeing.start();
		// The release waits for the kernel on the stream; the drain's next look finds the executor freed.
		Throwable thrown = catchThrowable(() -> drained.get(20, TimeUnit.SECONDS));
		assertThat(thrown.getCause()).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));

		kernel.finish();
		freeing.join(TimeUnit.SECONDS.toMillis(20));

		assertThat(freeing.isAlive()).isFalse();
		assertThat(liveEvents()).as("the release destroyed the event the drain could not").isZero();
	}

	@Test
	void aDrainOvertakenByFreeHasItsEventDestroyedOnceByTheReleaseBeforeTheContextGoes() throws Exception {
		// Over the recording fake, whose context release leaves live events live (as a primary context that
		// another user still retains does): on simulated devices the context's close would drop the event
		// whether or not the release destroyed it.
		Executor executor = cudaExecutor(List.of(0));
		long stream = executor.lanes().get(0).streamAddress();
		this.cuda.busyFor(stream, Integer.MAX_VALUE);
		CompletableFuture<Boolean> drained = drainElsewhere(executor, PATIENT, null);
		awaitTrue(() -> this.cuda.calls().stream().anyMatch((call) -> call.startsWith("cuEventQuery")) || drained.isDone(),
				"the drain to poll its event");

		executor.free();

		Throwable thrown = catchThrowable(() -> drained.get(20, TimeUnit.SECONDS));
		assertThat(thrown).as("the drain's next look finds the executor freed").isNotNull();
		assertThat(thrown.getCause()).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));
		assertThat(this.cuda.liveEvents()).as("the release destroyed the event the drain could not").isEmpty();
		List<String> calls = this.cuda.calls();
		List<String> destroys = calls.stream().filter((call) -> call.startsWith("cuEventDestroy_v2")).toList();
		assertThat(destroys).hasSize(1);
		int released = calls.stream().filter((call) -> call.startsWith("cuDevicePrimaryCtxRelease")).findFirst()
			.map(calls::indexOf).orElse(-1);
		assertThat(calls.indexOf(destroys.get(0))).as("destroyed before the context is released").isNotNegative()
			.isLessThan(released);
	}

	@Test
	void theEventIsRecordedOnEveryStreamBeforeTheFirstQueryAndDestroyedAfter() {
		Executor executor = cudaExecutor(List.of(0, 1));
		try {
			List<Long> streams = executor.lanes().stream().map(DeviceLane::streamAddress).toList();

			assertThat(executor.drain(Mood.PARKED, PATIENT)).isTrue();

			List<String> events = this.cuda.calls().stream().filter((call) -> call.startsWith("cuEvent")).toList();
			assertThat(events).hasSize(8);
			assertThat(events.subList(0, 4)).as("both streams marked before either is polled")
				.satisfiesExactly((call) -> assertThat(call).startsWith("cuEventCreate 2 -> "),
						(call) -> assertThat(call).startsWith("cuEventRecord").endsWith(" on 0x" + Long.toHexString(streams.get(0))),
						(call) -> assertThat(call).startsWith("cuEventCreate 2 -> "),
						(call) -> assertThat(call).startsWith("cuEventRecord").endsWith(" on 0x" + Long.toHexString(streams.get(1))));
			assertThat(events.subList(4, 8)).extracting((call) -> call.substring(0, call.indexOf(' ')))
				.containsExactly("cuEventQuery", "cuEventQuery", "cuEventDestroy_v2", "cuEventDestroy_v2");
			assertThat(this.cuda.calls()).as("the streams themselves are not polled")
				.noneMatch((call) -> call.startsWith("cuStreamQuery"));
			assertThat(this.cuda.liveEvents()).isEmpty();
		}
		finally {
			executor.free();
		}
	}

	@Test
	void aFailingEventQueryIsReportedWithTheDriversStatusAndTheEventsAreDestroyed() {
		Executor executor = cudaExecutor(List.of(0, 1));
		try {
			this.cuda.failNext("cuEventQuery", 700, "CUDA_ERROR_ILLEGAL_ADDRESS");

			assertThatThrownBy(() -> executor.drain(Mood.PARKED, PATIENT)).isInstanceOfSatisfying(UformException.class,
					(ex) -> {
						assertThat(ex.status()).isEqualTo(Status.DEVICE_ERROR);
						assertThat(ex.getMessage()).contains("CUDA device 0: cuEventQuery failed: CUDA_ERROR_ILLEGAL_ADDRESS "
								+ "(700) querying event 0x").contains("compute-sanitizer");
					});
			assertThat(this.cuda.liveEvents()).as("both devices' events, although device 0's query failed").isEmpty();
		}
		finally {
			executor.free();
		}
	}

	@Test
	void aFailingEventRecordIsReportedAndItsEventDestroyed() {
		Executor executor = cudaExecutor(List.of(0, 1));
		try {
			this.cuda.failNext("cuEventRecord", 400, "CUDA_ERROR_INVALID_HANDLE");

			assertThatThrownBy(() -> executor.drain(Mood.PARKED, PATIENT)).isInstanceOfSatisfying(UformException.class,
					(ex) -> {
						assertThat(ex.status()).isEqualTo(Status.DEVICE_ERROR);
						assertThat(ex.getMessage()).contains("cuEventRecord failed: CUDA_ERROR_INVALID_HANDLE (400) recording "
								+ "event 0x");
					});
			assertThat(this.cuda.liveEvents()).as("the event whose record failed").isEmpty();
			assertThat(executor.drain(Mood.PARKED, PATIENT)).as("the next drain, once the driver answers").isTrue();
		}
		finally {
			executor.free();
		}
	}
}
