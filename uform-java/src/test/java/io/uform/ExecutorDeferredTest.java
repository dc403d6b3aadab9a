package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Deferred calls: bounded in flight, run once each in submission order, never lost, drained and freed
 * as documented.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorDeferredTest {

	@Test
	void thirtyTwoSubmittersTimesAThousandCallsWithLimitFourEachRunExactlyOnce() throws Exception {
		int submitters = 32;
		int callsEach = 1000;
		AtomicIntegerArray runs = new AtomicIntegerArray(submitters * callsEach);
		AtomicInteger inFlightMax = new AtomicInteger();
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(4))) {
			List<CompletableFuture<Integer>> futures = java.util.Collections.synchronizedList(new ArrayList<>());
			CountDownLatch start = new CountDownLatch(1);
			List<Thread> threads = new ArrayList<>();
			for (int s = 0; s < submitters; s++) {
				int submitter = s;
				Thread thread = new Thread(() -> {
					ExecutorForkTest.awaitQuietly(start);
					for (int c = 0; c < callsEach; c++) {
						int id = submitter * callsEach + c;
						futures.add(executor.defer(() -> {
							inFlightMax.accumulateAndGet(executor.statistics().deferredInFlight(), Math::max);
							runs.incrementAndGet(id);
							return id;
						}));
					}
				});
				threads.add(thread);
				thread.start();
			}
			start.countDown();
			for (Thread thread : threads) {
				thread.join();
			}
			executor.drain();
			assertThat(futures).hasSize(submitters * callsEach).allSatisfy((future) -> assertThat(future).isDone());
			for (int id = 0; id < runs.length(); id++) {
				if (runs.get(id) != 1) {
					throw new AssertionError("call " + id + " ran " + runs.get(id) + " times");
				}
			}
			ExecutorStatistics stats = executor.statistics();
			assertThat(stats.deferredCompleted()).isEqualTo(submitters * callsEach);
			assertThat(stats.deferredInFlight()).isZero();
			assertThat(stats.deferredLimit()).isEqualTo(4);
			assertThat(inFlightMax.get()).isBetween(1, 4);
		}
	}

	@Test
	void callsRunInSubmissionOrderAndMayFork() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3))) {
			List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
			List<CompletableFuture<Long>> sums = new ArrayList<>();
			for (int c = 0; c < 50; c++) {
				int call = c;
				sums.add(executor.defer(() -> {
					order.add(call);
					java.util.concurrent.atomic.AtomicLong sum = new java.util.concurrent.atomic.AtomicLong();
					executor.forN(1000, (index) -> sum.addAndGet(index));
					return sum.get();
				}));
			}
			for (CompletableFuture<Long> sum : sums) {
				assertThat(sum.get(10, TimeUnit.SECONDS)).isEqualTo(999L * 1000 / 2);
			}
			assertThat(order).isSorted().hasSize(50);
		}
	}

	@Test
	void aFailingCallCompletesItsFutureExceptionallyAndLaterCallsStillRun() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CompletableFuture<Object> failing = executor.defer(() -> {
				throw new java.io.IOException("disk gone");
			});
			CompletableFuture<String> after = executor.defer(() -> "still running");
			assertThatThrownBy(failing::get).isInstanceOf(ExecutionException.class).hasRootCauseMessage("disk gone");
			assertThat(after.get()).isEqualTo("still running");
			executor.drain();
			assertThat(executor.statistics().deferredFailed()).isEqualTo(1);
			assertThat(executor.statistics().deferredCompleted()).isEqualTo(1);
		}
	}

	@Test
	void aFullLimitRejectsWhenTheCallerAsksNotToWait() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(2))) {
			CountDownLatch release = new CountDownLatch(1);
			CountDownLatch running = new CountDownLatch(1);
			executor.defer(() -> {
				running.countDown();
				release.await();
				return null;
			});
			running.await();
			executor.defer(() -> null);
			assertThatThrownBy(() -> executor.defer(() -> null, Duration.ZERO)).isInstanceOf(UformException.class)
				.hasMessageContaining("all 2 deferred-call slots")
				.hasMessageContaining("deferredLimit")
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT));
			assertThatThrownBy(() -> executor.defer(() -> null, Duration.ofMillis(20))).isInstanceOf(UformException.class);
			assertThat(executor.statistics().deferredRejected()).isEqualTo(2);
			assertThat(executor.statistics().deferredInFlight()).isEqualTo(2);
			release.countDown();
			executor.drain();
			assertThat(executor.defer(() -> "room again", Duration.ZERO).get()).isEqualTo("room again");
		}
	}

	@Test
	void statisticsTimeEachCallsWaitAndRunAndShowTheOneRunning() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(4))) {
			ExecutorStatistics idle = executor.statistics();
			assertThat(idle.deferredRunning()).isZero();
			assertThat(idle.deferredWaitCount()).isZero();
			assertThat(idle.deferredRunCount()).isZero();
			CountDownLatch release = new CountDownLatch(1);
			CountDownLatch running = new CountDownLatch(1);
			CompletableFuture<Object> held = executor.defer(() -> {
				running.countDown();
				release.await();
				return null;
			});
			try {
				checkWhileHeld(executor, running, release, held);
			}
			finally {
				// Else a failed assertion leaves close() waiting for the held call for ever.
				release.countDown();
			}
		}
	}

	private static void checkWhileHeld(Executor executor, CountDownLatch running, CountDownLatch release,
			CompletableFuture<Object> held) throws Exception {
		running.await();
		CompletableFuture<Object> queued = executor.defer(() -> {
			throw new IllegalStateException("fails, and still ran");
		});
		CompletableFuture<Object> cancelled = executor.defer(() -> "never runs");
		cancelled.cancel(false);
		ExecutorStatistics busy = executor.statistics();
		assertThat(busy.deferredRunning()).isEqualTo(1);
		assertThat(busy.deferredInFlight()).isEqualTo(3);
		assertThat(busy.deferredWaitCount()).as("only the held call has started").isEqualTo(1);
		assertThat(busy.deferredRunCount()).isZero();
		Thread.sleep(100);
		release.countDown();
		held.get(10, TimeUnit.SECONDS);
		assertThatThrownBy(() -> queued.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
		executor.drain();
		ExecutorStatistics done = executor.statistics();
		assertThat(done.deferredRunning()).isZero();
		assertThat(done.deferredWaitCount()).as("the cancelled call never started").isEqualTo(2);
		assertThat(done.deferredRunCount()).isEqualTo(2).isEqualTo(done.deferredCompleted() + done.deferredFailed());
		assertThat(done.deferredCancelled()).isEqualTo(1);
		// The held call ran at least the 100 ms it was held; the failing one waited at least as long.
		assertThat(done.deferredRunNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
		assertThat(done.deferredWaitNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
	}

	@Test
	void aCallThatDefersWhileTheLimitIsFullIsRejectedInsteadOfWaitingForItself() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(1))) {
			CompletableFuture<Object> outer = executor.defer(() -> executor.defer(() -> "inner"));
			assertThatThrownBy(() -> outer.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(UformException.class)
				.hasMessageContaining("cannot wait");
		}
	}

	@Test
	void drainWaitsForEverySubmittedCall() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			AtomicInteger done = new AtomicInteger();
			List<CompletableFuture<Void>> futures = new ArrayList<>();
			for (int c = 0; c < 20; c++) {
				futures.add(executor.defer(() -> {
					sleep(2);
					done.incrementAndGet();
				}));
			}
			executor.drain();
			assertThat(done).hasValue(20);
			assertThat(futures).allSatisfy((future) -> assertThat(future).isCompleted());
			assertThat(executor.statistics().state()).isEqualTo(Executor.State.RUNNING);
		}
	}

	@Test
	void drainFromInsideADeferredCallFailsInsteadOfWaitingForItself() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CompletableFuture<Void> call = executor.defer(() -> executor.drain());
			assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(UformException.class)
				.hasMessageContaining("would wait for itself");
		}
	}

	@Test
	void drainFromInsideATaskFailsInsteadOfWaitingForItself() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> executor.drain()))
				.isInstanceOf(UformException.class)
				.hasMessageContaining("would wait for itself");
		}
	}

	@Test
	void nullCallIsRejectedByName() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThatThrownBy(() -> executor.defer((java.util.concurrent.Callable<Object>) null))
				.isInstanceOf(UformException.class)
				.hasMessageContaining("deferred call");
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}
}
