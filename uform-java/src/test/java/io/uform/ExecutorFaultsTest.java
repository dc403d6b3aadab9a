package io.uform;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Faults inside work: errors and interrupts in tasks, cancelled futures, and the exact accounting of
 * deferred slots. Each test here failed on the engine before it was hardened.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorFaultsTest {

	/** Thrown from tasks again and again, as a program that caches its exceptions would. */
	private static final IllegalStateException CACHED_ON_CALLER = new IllegalStateException("cached on the caller");

	private static final IllegalStateException CACHED_ON_WORKER = new IllegalStateException("cached on a worker");

	@Test
	void anInterruptATaskLeavesOnItsWorkerDoesNotReachTheNextTask() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			AtomicInteger leaked = new AtomicInteger();
			for (int fork = 0; fork < 1000; fork++) {
				executor.forThreads((thread, colocation) -> {
					if (thread == 1) {
						if (Thread.currentThread().isInterrupted()) {
							leaked.incrementAndGet();
						}
						Thread.currentThread().interrupt();
					}
				});
			}
			assertThat(leaked).as("tasks that started with an interrupt left by the previous task").hasValue(0);
		}
	}

	@Test
	void anInterruptADeferredCallLeavesDoesNotReachTheNextCall() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			for (int call = 0; call < 100; call++) {
				boolean interruptedAtStart = executor.defer(() -> {
					boolean was = Thread.currentThread().isInterrupted();
					Thread.currentThread().interrupt();
					return was;
				}).get(10, TimeUnit.SECONDS);
				assertThat(interruptedAtStart).isFalse();
			}
		}
	}

	@Test
	void aWorkersFailureReachesTheCallerWithTheCallersFramesAndTheWorkersAsCause() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			IllegalStateException original = new IllegalStateException("boom on a worker");
			Throwable thrown = catchThrowable(() -> executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					throw original;
				}
			}));
			assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("boom on a worker").isNotSameAs(original);
			assertThat(thrown.getCause()).isSameAs(original);
			assertThat(Arrays.stream(thrown.getStackTrace()).map(StackTraceElement::getMethodName))
				.contains("aWorkersFailureReachesTheCallerWithTheCallersFramesAndTheWorkersAsCause");
			assertThat(original.getSuppressed()).isEmpty();
		}
	}

	@Test
	void aFailureOnlyOnTheCallingThreadIsThrownAsItself() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			IllegalArgumentException original = new IllegalArgumentException("bad on the caller");
			Throwable thrown = catchThrowable(() -> executor.forThreads((thread, colocation) -> {
				if (thread == 0) {
					throw original;
				}
			}));
			assertThat(thrown).isSameAs(original);
			assertThat(original.getSuppressed()).isEmpty();
		}
	}

	@Test
	void cachedExceptionsThrownByTasksAreNeverModified() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			for (int fork = 0; fork < 100; fork++) {
				Throwable thrown = catchThrowable(() -> executor.forThreads((thread, colocation) -> {
					throw (thread == 0) ? CACHED_ON_CALLER : CACHED_ON_WORKER;
				}));
				// The lowest thread's failure leads; the other is suppressed into a fresh copy.
				assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("cached on the caller")
					.hasCause(CACHED_ON_CALLER);
				assertThat(thrown.getSuppressed()).containsExactly(CACHED_ON_WORKER);
			}
			assertThat(CACHED_ON_CALLER.getSuppressed()).isEmpty();
			assertThat(CACHED_ON_WORKER.getSuppressed()).isEmpty();
		}
	}

	@Test
	void anErrorInATaskReachesTheCallerAndThePoolKeepsServing() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3))) {
			for (int fork = 0; fork < 200; fork++) {
				int failing = fork % 3;
				assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> {
					if (thread == failing) {
						throw new AssertionError("task " + failing);
					}
				})).isInstanceOf(AssertionError.class).hasMessage("task " + failing);
			}
			AtomicInteger count = new AtomicInteger();
			executor.forN(300, (index) -> count.incrementAndGet());
			assertThat(count).hasValue(300);
		}
	}

	@Test
	void theCallersShareThrowingStillWaitsForWorkersStillRunning() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			AtomicInteger workerDone = new AtomicInteger();
			assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> {
				if (thread == 0) {
					throw new IllegalStateException("caller fails first");
				}
				ExecutorDeferredTest.sleep(100);
				workerDone.incrementAndGet();
			})).hasMessage("caller fails first");
			assertThat(workerDone).as("the fork returned before its worker finished").hasValue(1);
		}
	}

	@Test
	void aCancelledQueuedCallNeverRunsAndIsCountedAsCancelled() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(4))) {
			CountDownLatch release = new CountDownLatch(1);
			executor.defer(() -> {
				release.await();
				return null;
			});
			AtomicInteger ran = new AtomicInteger();
			CompletableFuture<Integer> cancelled = executor.defer(ran::incrementAndGet);
			CompletableFuture<Integer> completedByHolder = executor.defer(ran::incrementAndGet);
			CompletableFuture<Integer> kept = executor.defer(() -> 10 + ran.get());
			assertThat(cancelled.cancel(true)).isTrue();
			assertThat(completedByHolder.complete(-1)).isTrue();
			release.countDown();
			assertThat(kept.get(10, TimeUnit.SECONDS)).isEqualTo(10);
			executor.drain();
			assertThat(ran).as("calls whose future was done before they started").hasValue(0);
			ExecutorStatistics stats = executor.statistics();
			assertThat(stats.deferredCompleted()).isEqualTo(2);
			assertThat(stats.deferredCancelled()).isEqualTo(2);
			assertThat(stats.deferredInFlight()).isZero();
		}
	}

	@Test
	void drainReturnsOnlyOnceTheLastCallsSlotIsFree() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(1))) {
			for (int round = 0; round < 20_000; round++) {
				executor.defer(() -> {
				});
				executor.drain();
				int inFlight = executor.statistics().deferredInFlight();
				if (inFlight != 0) {
					throw new AssertionError("round " + round + ": " + inFlight + " in flight after drain()");
				}
				// Rejects at once if the slot were still taken.
				executor.defer(() -> null, Duration.ZERO);
				executor.drain();
			}
		}
	}

	@Test
	void aSecondConcurrentFreeWaitsForTheFirstToFinish() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		String prefix = "uform-" + executor.name() + "-";
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(() -> {
			running.countDown();
			release.await();
			return null;
		});
		running.await();
		Thread first = new Thread(executor::free, "first-free");
		first.start();
		awaitRefusal(executor);
		CountDownLatch secondReturned = new CountDownLatch(1);
		Thread second = new Thread(() -> {
			executor.free();
			secondReturned.countDown();
		}, "second-free");
		second.start();
		assertThat(secondReturned.await(200, TimeUnit.MILLISECONDS)).as("second free() returned while the first still runs calls")
			.isFalse();
		release.countDown();
		first.join(10_000);
		second.join(10_000);
		assertThat(secondReturned.getCount()).isZero();
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(ExecutorLifecycleTest.liveThreads((name) -> name.startsWith(prefix))).isEmpty();
	}

	@Test
	void messagesNameTheExecutorOneWay() {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(1));
		String quoted = "'" + executor.name() + "'";
		CountDownLatch release = new CountDownLatch(1);
		executor.defer(() -> {
			release.await();
			return null;
		});
		assertThatThrownBy(() -> executor.defer(() -> null, Duration.ZERO)).hasMessageContaining(quoted)
			.hasMessageNotContaining("uform-" + executor.name());
		release.countDown();
		executor.free();
		assertThatThrownBy(() -> executor.defer(() -> null)).hasMessageContaining(quoted)
			.hasMessageNotContaining("uform-" + executor.name());
		assertThatThrownBy(() -> executor.forN(2, (index) -> {
		})).hasMessageContaining(quoted).hasMessageNotContaining("uform-" + executor.name());
	}

	@Test
	void anInterruptedWaitForASlotIsReportedAsAnInterruptNotATimeout() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(1))) {
			CountDownLatch release = new CountDownLatch(1);
			executor.defer(() -> {
				release.await();
				return null;
			});
			Thread.currentThread().interrupt();
			try {
				assertThatThrownBy(() -> executor.defer(() -> null)).isInstanceOf(UformException.class)
					.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INTERRUPTED))
					.hasMessageContaining("not submitted");
				assertThat(Thread.currentThread().isInterrupted()).as("the interrupt flag is kept").isTrue();
			}
			finally {
				Thread.interrupted();
				release.countDown();
			}
		}
	}

	static void awaitRefusal(Executor executor) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			try {
				executor.defer(() -> null, Duration.ZERO).cancel(false);
			}
			catch (UformException ex) {
				if (ex.status() == Status.FREED) {
					return;
				}
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("free() never started refusing calls");
			}
			Thread.sleep(2);
		}
	}

	private static Throwable catchThrowable(Runnable call) {
		try {
			call.run();
		}
		catch (Throwable ex) {
			return ex;
		}
		throw new AssertionError("nothing was thrown");
	}
}
