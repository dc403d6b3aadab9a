package io.uform;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The engine under load and under schedules that make threads really park: forks with gaps that
 * outlast the spin, mood changes during forks, many submitters racing a free, virtual threads.
 * Every test checks exact results and exact accounting, not only that nothing hung.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExecutorStressTest {

	@Test
	void forksWithGapsLongerThanTheSpinParkAndWakeWithoutLosingAnIndex() {
		Random random = new Random(7);
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3))) {
			for (int fork = 0; fork < 3000; fork++) {
				int n = 1 + random.nextInt(64);
				AtomicIntegerArray visits = new AtomicIntegerArray(n);
				if (fork % 2 == 0) {
					executor.forN(n, (index) -> visits.incrementAndGet(index));
				}
				else {
					executor.forNDynamic(n, (index) -> visits.incrementAndGet(index));
				}
				assertVisitedOnce(visits, "fork " + fork);
				// 0-120 us: past the 50 us spin, workers park and the next fork must wake them.
				LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(121)));
			}
		}
	}

	@Test
	void theCallerRunsTheShareOfAWorkerThatHasNotWokenButForThreadsAlwaysRunsOnEveryThread() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			Thread caller = Thread.currentThread();
			int stolen = 0;
			for (int fork = 0; fork < 200; fork++) {
				// Past the spin: the worker is parked, and waking it takes far longer than the caller's share.
				Thread.sleep(0, 200_000);
				AtomicReference<Thread> ranIndexOne = new AtomicReference<>();
				AtomicInteger threadOfIndexOne = new AtomicInteger(-1);
				executor.forN(2, (index, thread, colocation) -> {
					if (index == 1) {
						ranIndexOne.set(Thread.currentThread());
						threadOfIndexOne.set(thread);
					}
				});
				// Whoever runs it, index 1 is thread 1's: per-thread state stays race-free.
				assertThat(threadOfIndexOne).hasValue(1);
				if (ranIndexOne.get() == caller) {
					stolen++;
				}
				Thread.sleep(0, 200_000);
				AtomicReference<String> ranThreadOne = new AtomicReference<>();
				executor.forThreads((thread, colocation) -> {
					if (thread == 1) {
						ranThreadOne.set(Thread.currentThread().getName());
					}
				});
				assertThat(ranThreadOne.get()).endsWith("-worker-1");
			}
			assertThat(stolen).as("forks whose parked worker's share the caller ran").isPositive();
		}
	}

	@Test
	void moodChangesDuringForksLoseNoWorkAndLeaveTheLastMood() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3))) {
			AtomicReference<Throwable> failure = new AtomicReference<>();
			CountDownLatch done = new CountDownLatch(2);
			Thread forker = new Thread(() -> {
				try {
					Random random = new Random(11);
					for (int fork = 0; fork < 2000; fork++) {
						AtomicIntegerArray visits = new AtomicIntegerArray(30);
						executor.forN(30, (index) -> visits.incrementAndGet(index));
						assertVisitedOnce(visits, "fork " + fork);
						LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(121)));
					}
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
				finally {
					done.countDown();
				}
			});
			Thread mooder = new Thread(() -> {
				try {
					for (int change = 0; change < 300; change++) {
						executor.drain((change % 2 == 0) ? Mood.GRINDING : Mood.PARKED);
					}
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
				finally {
					done.countDown();
				}
			});
			forker.start();
			mooder.start();
			assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(failure.get()).isNull();
			assertThat(executor.statistics().mood()).isEqualTo(Mood.PARKED);
		}
	}

	@Test
	void sixtyFourSubmittersAndAFreeInTheMiddleLoseNothingAndTheCountsAddUp() throws Exception {
		int submitters = 64;
		int callsEach = 10_000;
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(8));
		AtomicLong accepted = new AtomicLong();
		AtomicLong refusedAfterFree = new AtomicLong();
		AtomicLong otherRefusals = new AtomicLong();
		AtomicLong ran = new AtomicLong();
		List<List<CompletableFuture<Integer>>> futures = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		CountDownLatch start = new CountDownLatch(1);
		for (int s = 0; s < submitters; s++) {
			List<CompletableFuture<Integer>> mine = new ArrayList<>(callsEach);
			futures.add(mine);
			Thread thread = new Thread(() -> {
				ExecutorForkTest.awaitQuietly(start);
				for (int c = 0; c < callsEach; c++) {
					int value = c;
					try {
						mine.add(executor.defer(() -> {
							ran.incrementAndGet();
							return value;
						}));
						accepted.incrementAndGet();
					}
					catch (UformException ex) {
						(ex.status() == Status.FREED ? refusedAfterFree : otherRefusals).incrementAndGet();
					}
				}
			}, "submitter-" + s);
			threads.add(thread);
			thread.start();
		}
		start.countDown();
		long half = (long) submitters * callsEach / 2;
		while (accepted.get() < half) {
			Thread.sleep(1);
		}
		executor.free();
		// free() returned: every call accepted before it has run and completed its future.
		long acceptedAtFree = accepted.get();
		assertThat(ran.get()).isEqualTo(acceptedAtFree);
		for (Thread thread : threads) {
			thread.join(60_000);
			assertThat(thread.isAlive()).isFalse();
		}
		long total = 0;
		for (int s = 0; s < submitters; s++) {
			List<CompletableFuture<Integer>> mine = futures.get(s);
			for (int i = 0; i < mine.size(); i++) {
				CompletableFuture<Integer> future = mine.get(i);
				if (!future.isDone()) {
					throw new AssertionError("submitter " + s + ": future " + i + " still pending after free()");
				}
				assertThat(future.get()).isEqualTo(i);
			}
			total += mine.size();
		}
		assertThat(total).isEqualTo(accepted.get()).isEqualTo(acceptedAtFree).isGreaterThanOrEqualTo(half);
		assertThat(otherRefusals).hasValue(0);
		assertThat(accepted.get() + refusedAfterFree.get()).isEqualTo((long) submitters * callsEach);
		ExecutorStatistics stats = executor.statistics();
		assertThat(stats.deferredCompleted() + stats.deferredFailed() + stats.deferredCancelled()).isEqualTo(accepted.get());
		assertThat(stats.deferredCompleted()).isEqualTo(accepted.get());
		assertThat(stats.deferredRejected()).isEqualTo(refusedAfterFree.get());
		assertThat(stats.deferredInFlight()).isZero();
		assertThat(stats.state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void freeFromManyThreadsUnderLoadReturnsEverywhereOnlyOnceFreed() throws Exception {
		for (int round = 0; round < 20; round++) {
			Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3).withDeferredLimit(16));
			String prefix = "uform-" + executor.name() + "-";
			AtomicReference<Throwable> unexpected = new AtomicReference<>();
			AtomicInteger freesReturned = new AtomicInteger();
			CountDownLatch go = new CountDownLatch(1);
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				threads.add(new Thread(() -> {
					ExecutorForkTest.awaitQuietly(go);
					try {
						while (true) {
							executor.defer(() -> executor.forN(8, (index) -> {
							}));
							executor.forN(16, (index) -> {
							});
						}
					}
					catch (UformException ex) {
						if (ex.status() != Status.FREED) {
							unexpected.set(ex);
						}
					}
					catch (Throwable ex) {
						unexpected.set(ex);
					}
				}));
			}
			for (int t = 0; t < 8; t++) {
				threads.add(new Thread(() -> {
					ExecutorForkTest.awaitQuietly(go);
					ExecutorDeferredTest.sleep(2);
					executor.free();
					// Whoever returns from free() must find the executor freed and its threads gone.
					if (executor.statistics().state() != Executor.State.FREED
							|| !ExecutorLifecycleTest.liveThreads((name) -> name.startsWith(prefix)).isEmpty()) {
						unexpected.compareAndSet(null, new AssertionError("free() returned before the executor was freed"));
					}
					freesReturned.incrementAndGet();
				}));
			}
			threads.forEach(Thread::start);
			go.countDown();
			for (Thread thread : threads) {
				thread.join(30_000);
				assertThat(thread.isAlive()).isFalse();
			}
			assertThat(unexpected.get()).isNull();
			assertThat(freesReturned).hasValue(8);
			ExecutorStatistics stats = executor.statistics();
			assertThat(stats.deferredInFlight()).isZero();
		}
	}

	@Test
	void aThousandVirtualThreadsForkAtOnceWithCorrectResultsAndNoPinnedCarrier() throws Exception {
		assumeTrue(Runtime.version().feature() >= 21,
				() -> "virtual threads need JDK 21+; this is JDK " + Runtime.version().feature());
		Path events = Files.createTempFile("uform-pinned", ".jfr");
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
				Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withoutThreshold().withStackTrace();
			recording.start();
			List<Future<Long>> results = new ArrayList<>();
			CountDownLatch start = new CountDownLatch(1);
			ExecutorService virtualThreads = newVirtualThreadPerTaskExecutor();
			try {
				for (int v = 0; v < 1000; v++) {
					int n = 100 + v;
					results.add(virtualThreads.submit(() -> {
						start.await();
						AtomicLong sum = new AtomicLong();
						executor.forN(n, (index) -> sum.addAndGet(index));
						long deferred = executor.defer(() -> 1L).get(30, TimeUnit.SECONDS);
						return sum.get() + deferred;
					}));
				}
				start.countDown();
				for (int v = 0; v < 1000; v++) {
					long n = 100 + v;
					assertThat(results.get(v).get(60, TimeUnit.SECONDS)).isEqualTo(n * (n - 1) / 2 + 1);
				}
			}
			finally {
				virtualThreads.shutdown();
			}
			recording.stop();
			recording.dump(events);
			List<String> pinnedInUform = new ArrayList<>();
			for (RecordedEvent event : RecordingFile.readAllEvents(events)) {
				String stack = String.valueOf(event.getStackTrace());
				if (stack.contains("io.uform")) {
					pinnedInUform.add(stack);
				}
			}
			assertThat(pinnedInUform).as("virtual threads pinned to their carrier inside uform").isEmpty();
		}
		catch (ExecutionException ex) {
			throw new AssertionError(ex.getCause());
		}
		finally {
			Files.deleteIfExists(events);
		}
	}

	private static ExecutorService newVirtualThreadPerTaskExecutor() throws ReflectiveOperationException {
		// The build targets Java 17, where the method does not exist; the test runs only on 21+.
		Method factory = java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
		return (ExecutorService) factory.invoke(null);
	}

	private static void assertVisitedOnce(AtomicIntegerArray visits, String where) {
		for (int i = 0; i < visits.length(); i++) {
			if (visits.get(i) != 1) {
				throw new AssertionError(where + ": index " + i + " visited " + visits.get(i) + " times");
			}
		}
	}
}
