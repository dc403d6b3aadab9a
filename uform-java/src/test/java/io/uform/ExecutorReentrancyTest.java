package io.uform;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Work that re-enters its own executor: deferring from inside a fork task, continuations of
 * deferred futures that defer again. None of it may deadlock; where a wait would be for itself, the
 * call is refused at once with a status and a message that says why.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorReentrancyTest {

	@Test
	void aForkTaskInsideADeferredCallThatDefersWhileTheLimitIsFullIsRefusedNotDeadlocked() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(1))) {
			AtomicReference<Throwable> refusal = new AtomicReference<>();
			CompletableFuture<String> outer = executor.defer(() -> {
				executor.forThreads((thread, colocation) -> {
					if (thread == 1) {
						try {
							executor.defer(() -> "inner");
						}
						catch (UformException ex) {
							refusal.set(ex);
						}
					}
				});
				return "outer";
			});
			assertThat(outer.get(10, TimeUnit.SECONDS)).isEqualTo("outer");
			assertThat(refusal.get()).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
				.hasMessageContaining("inside one of its own tasks")
				.hasMessageContaining("deferredLimit");
			executor.drain();
			assertThat(executor.statistics().deferredRejected()).isEqualTo(1);
		}
	}

	@Test
	void anApplicationForkTaskThatDefersWhileTheRunningCallWaitsToForkIsRefusedNotDeadlocked() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(1))) {
			CountDownLatch callStarted = new CountDownLatch(1);
			CountDownLatch appForking = new CountDownLatch(1);
			// The deferred call holds the only slot, then queues for the fork lock the application holds.
			CompletableFuture<Integer> call = executor.defer(() -> {
				callStarted.countDown();
				appForking.await();
				AtomicInteger sum = new AtomicInteger();
				executor.forN(10, (index) -> sum.addAndGet(index));
				return sum.get();
			});
			callStarted.await();
			AtomicReference<Throwable> refusal = new AtomicReference<>();
			executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					appForking.countDown();
					// Give the deferred call time to block on the fork lock.
					ExecutorDeferredTest.sleep(50);
					try {
						executor.defer(() -> "never");
					}
					catch (UformException ex) {
						refusal.set(ex);
					}
				}
			});
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(45);
			assertThat(refusal.get()).isInstanceOf(UformException.class).hasMessageContaining("inside one of its own tasks");
		}
	}

	@Test
	void isOwnThreadIsTrueExactlyWhereWorkDeferredAndAwaitedWouldWaitForItself() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
				Executor other = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThat(executor.isOwnThread()).as("an application thread").isFalse();
			assertThat(executor.defer(executor::isOwnThread).get(10, TimeUnit.SECONDS)).as("the deferred thread").isTrue();
			assertThat(other.defer(executor::isOwnThread).get(10, TimeUnit.SECONDS)).as("another executor's").isFalse();
			boolean[] inTask = new boolean[2];
			executor.forThreads((thread, colocation) -> inTask[thread] = executor.isOwnThread());
			assertThat(inTask).as("every thread of a fork, the caller's included").containsExactly(true, true);
			assertThat(executor.defer(() -> null).thenApply((ignored) -> executor.isOwnThread()).get(10, TimeUnit.SECONDS))
				.as("a continuation on a completion thread").isFalse();
		}
	}

	@Test
	void aDeferredCallThatBlocksOnAPendingCallOfItsOwnExecutorIsRefusedNotHungForEver() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(4))) {
			for (String how : new String[] { "get", "join", "timed" }) {
				CompletableFuture<Integer> outer = executor.defer(() -> {
					CompletableFuture<Integer> inner = executor.defer(() -> 1);
					return switch (how) {
						case "get" -> inner.get();
						case "join" -> inner.join();
						default -> inner.get(1, TimeUnit.DAYS);
					};
				});
				assertThatThrownBy(() -> outer.get(10, TimeUnit.SECONDS)).as(how)
					.hasCauseInstanceOf(UformException.class)
					.hasMessageContaining("it would wait for ever");
			}
			// A future already complete answers on the deferred thread, and a fork's task may wait for a call
			// that does not fork: the deferred thread is free to run it.
			CompletableFuture<Integer> done = executor.defer(() -> 2);
			assertThat(done.get(10, TimeUnit.SECONDS)).isEqualTo(2);
			assertThat(executor.defer(() -> done.join()).get(10, TimeUnit.SECONDS)).isEqualTo(2);
			int[] fromTask = new int[2];
			executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					fromTask[1] = executor.defer(() -> 3).join();
				}
			});
			assertThat(fromTask[1]).isEqualTo(3);
		}
	}

	@Test
	void aForkTaskMayDeferWithoutWaitingWhenASlotIsFree() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(4))) {
			CompletableFuture<?>[] futures = new CompletableFuture<?>[2];
			executor.forThreads((thread, colocation) -> futures[thread] = executor.defer(() -> thread));
			assertThat(futures[0].get(10, TimeUnit.SECONDS)).isEqualTo(0);
			assertThat(futures[1].get(10, TimeUnit.SECONDS)).isEqualTo(1);
		}
	}

	@Test
	void aContinuationThatWaitsForALaterDeferredCallDoesNotDeadlockTheDeferredThread() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(4))) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Integer> first = executor.defer(() -> {
				release.await();
				return 1;
			});
			// Attached before the call completes: runs on whichever thread completes `first`.
			CompletableFuture<Integer> chained = first.thenApply((one) -> one + executor.defer(() -> 2).join());
			release.countDown();
			assertThat(chained.get(10, TimeUnit.SECONDS)).isEqualTo(3);
			assertThat(executor.defer(() -> "still serving", Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS))
				.isEqualTo("still serving");
		}
	}

	@Test
	void futuresOfDeferredCallsNeverCompleteOnTheDeferredThread() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> call = executor.defer(() -> {
				release.await();
				return null;
			});
			AtomicReference<String> completedOn = new AtomicReference<>();
			CompletableFuture<Void> seen = call.thenRun(() -> completedOn.set(Thread.currentThread().getName()));
			release.countDown();
			seen.get(10, TimeUnit.SECONDS);
			assertThat(completedOn.get()).doesNotEndWith("-deferred");
		}
	}

	@Test
	void drainAndFreeFromInsideTasksAndCallsAreRefused() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CompletableFuture<Void> freeFromCall = executor.defer(() -> executor.free());
			assertThatThrownBy(() -> freeFromCall.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(UformException.class)
				.hasMessageContaining("would wait for itself");
			assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					executor.drain();
				}
			})).isInstanceOf(UformException.class).hasMessageContaining("would wait for itself");
			assertThat(executor.statistics().state()).isEqualTo(Executor.State.RUNNING);
		}
	}
}
