package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Executor#refuseDeferred}, the first half of a late shutdown: new deferred calls are refused
 * at once (waiting submitters included), the ones already submitted all run, forks go on until the
 * free, and a caller that would wait for itself is refused before anything changes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorRefuseDeferredTest {

	@Test
	void submittedCallsRunNewOnesAreRefusedAndForksGoOnUntilFree() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(8));
		try {
			CountDownLatch release = new CountDownLatch(1);
			List<CompletableFuture<Integer>> queued = new ArrayList<>();
			queued.add(executor.defer(() -> {
				release.await();
				return 0;
			}));
			for (int c = 1; c <= 4; c++) {
				int value = c;
				queued.add(executor.defer(() -> value));
			}
			assertThat(executor.refuseDeferred(Duration.ZERO)).as("a call is still held").isFalse();
			assertThatThrownBy(() -> executor.defer(() -> 99)).isInstanceOfSatisfying(UformException.class, (ex) -> {
				assertThat(ex.status()).isEqualTo(Status.FREED);
				assertThat(ex.getMessage()).contains("refuses new deferred calls", "refuseDeferred()", "Forks still run");
			});
			assertThat(executor.statistics().deferredInFlight()).isEqualTo(5);
			release.countDown();
			assertThat(executor.refuseDeferred(Duration.ofSeconds(10))).isTrue();
			for (int c = 0; c < queued.size(); c++) {
				assertThat(queued.get(c)).isCompletedWithValue(c);
			}
			ExecutorStatistics stats = executor.statistics();
			assertThat(stats.state()).isEqualTo(Executor.State.CLOSING);
			assertThat(stats.deferredInFlight()).isZero();
			assertThat(stats.deferredCompleted()).isEqualTo(5);
			assertThat(stats.deferredRejected()).isEqualTo(1);
			// Forks still use every thread.
			AtomicInteger threads = new AtomicInteger();
			executor.forThreads((thread, colocation) -> threads.incrementAndGet());
			assertThat(threads).hasValue(2);
		}
		finally {
			executor.free(Duration.ofSeconds(10));
		}
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
		assertThatThrownBy(() -> executor.defer(() -> 1)).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.getMessage()).contains("was freed"));
		assertThat(executor.refuseDeferred(Duration.ZERO)).as("after free").isTrue();
	}

	@Test
	void aSubmitterWaitingForASlotIsRefusedAtOnceNotWhenTheHeldCallEnds() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(1))) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<String> held = executor.defer(() -> {
				release.await();
				return "held";
			});
			AtomicReference<Throwable> waiterFailure = new AtomicReference<>();
			CountDownLatch waiterDone = new CountDownLatch(1);
			Thread waiter = new Thread(() -> {
				try {
					executor.defer(() -> "never", null);
				}
				catch (Throwable ex) {
					waiterFailure.set(ex);
				}
				finally {
					waiterDone.countDown();
				}
			});
			waiter.start();
			try {
				awaitWaiting(waiter);
				assertThat(executor.refuseDeferred(Duration.ZERO)).isFalse();
				assertThat(waiterDone.await(10, TimeUnit.SECONDS)).as("the waiter ends while the held call still runs")
					.isTrue();
				assertThat(held).isNotDone();
				assertThat(waiterFailure.get()).isInstanceOfSatisfying(UformException.class,
						(ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));
			}
			finally {
				// Also when an assertion failed: the free at the end would wait for the held call.
				release.countDown();
			}
			assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("held");
			assertThat(executor.statistics().deferredInFlight()).isZero();
		}
	}

	@Test
	void manySubmittersRacingTheRefusalLoseNoAcceptedCall() throws Exception {
		for (int round = 0; round < 20; round++) {
			Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(4));
			try {
				int submitters = 6;
				CyclicBarrier start = new CyclicBarrier(submitters + 1);
				AtomicLong ran = new AtomicLong();
				List<CompletableFuture<Long>> accepted = new ArrayList<>();
				AtomicInteger refused = new AtomicInteger();
				AtomicReference<Throwable> unexpected = new AtomicReference<>();
				List<Thread> threads = new ArrayList<>();
				for (int t = 0; t < submitters; t++) {
					Thread thread = new Thread(() -> {
						try {
							start.await();
							while (true) {
								CompletableFuture<Long> future = executor.defer(ran::incrementAndGet);
								synchronized (accepted) {
									accepted.add(future);
								}
							}
						}
						catch (UformException ex) {
							if (ex.status() == Status.FREED) {
								refused.incrementAndGet();
							}
							else {
								unexpected.set(ex);
							}
						}
						catch (Throwable ex) {
							unexpected.set(ex);
						}
					});
					thread.start();
					threads.add(thread);
				}
				start.await();
				Thread.sleep(round % 3);
				assertThat(executor.refuseDeferred(Duration.ofSeconds(20))).isTrue();
				for (Thread thread : threads) {
					thread.join(10_000);
					assertThat(thread.isAlive()).isFalse();
				}
				assertThat(unexpected.get()).isNull();
				assertThat(refused).hasValue(submitters);
				synchronized (accepted) {
					// Every call accepted before the refusal has run and its future is complete.
					for (CompletableFuture<Long> future : accepted) {
						assertThat(future).isDone();
					}
					assertThat(ran.get()).isEqualTo(accepted.size());
					assertThat(executor.statistics().deferredCompleted()).isEqualTo(accepted.size());
				}
				assertThat(executor.statistics().deferredRejected()).isEqualTo(submitters);
			}
			finally {
				executor.free(Duration.ofSeconds(10));
			}
		}
	}

	@Test
	void fromInsideADeferredCallOrATaskItIsRefusedAndNothingChanges() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CompletableFuture<Object> fromCall = executor.defer(() -> executor.refuseDeferred(Duration.ZERO));
			assertThatThrownBy(() -> fromCall.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.cause()
				.isInstanceOfSatisfying(UformException.class, (ex) -> {
					assertThat(ex.status()).isEqualTo(Status.INVALID_ARGUMENT);
					assertThat(ex.getMessage()).contains("refuseDeferred()", "would wait for itself");
				});
			AtomicReference<Throwable> fromTask = new AtomicReference<>();
			executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					try {
						executor.refuseDeferred(Duration.ZERO);
					}
					catch (Throwable ex) {
						fromTask.set(ex);
					}
				}
			});
			assertThat(fromTask.get()).isInstanceOfSatisfying(UformException.class, (ex) -> {
				assertThat(ex.status()).isEqualTo(Status.INVALID_ARGUMENT);
				assertThat(ex.getMessage()).contains("inside a task", "after the fork returns");
			});
			assertThat(executor.defer(() -> "still open").get(10, TimeUnit.SECONDS)).isEqualTo("still open");
		}
	}

	@Test
	void aCallThatDefersAfterTheRefusalIsRefusedAndCarriesOn() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CountDownLatch refused = new CountDownLatch(1);
			CompletableFuture<String> outer = executor.defer(() -> {
				refused.await();
				try {
					executor.defer(() -> "inner");
					return "accepted";
				}
				catch (UformException ex) {
					return ex.status().name();
				}
			});
			Thread refuser = new Thread(() -> executor.refuseDeferred(Duration.ofSeconds(20)));
			refuser.start();
			awaitRefusing(executor);
			refused.countDown();
			assertThat(outer.get(10, TimeUnit.SECONDS)).isEqualTo("FREED");
			refuser.join(10_000);
			assertThat(refuser.isAlive()).isFalse();
		}
	}

	@Test
	void anInterruptedWaitKeepsRefusingAndSaysSo() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<String> held = executor.defer(() -> {
				release.await();
				return "held";
			});
			Thread.currentThread().interrupt();
			try {
				assertThatThrownBy(() -> executor.refuseDeferred(null)).isInstanceOfSatisfying(UformException.class,
						(ex) -> {
							assertThat(ex.status()).isEqualTo(Status.INTERRUPTED);
							assertThat(ex.getMessage()).contains("new ones stay refused");
						});
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
			finally {
				Thread.interrupted();
			}
			assertThatThrownBy(() -> executor.defer(() -> 1)).isInstanceOf(UformException.class);
			release.countDown();
			assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("held");
		}
	}

	@Test
	void withNothingSubmittedAnInterruptedThreadIsAnsweredNotInterrupted() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			Thread.currentThread().interrupt();
			try {
				// Nothing to wait for, so nothing for the interrupt to end.
				assertThat(executor.refuseDeferred(Duration.ZERO)).isTrue();
				assertThat(Thread.currentThread().isInterrupted()).as("the flag is left as it was").isTrue();
			}
			finally {
				Thread.interrupted();
			}
			assertThat(executor.statistics().state()).isEqualTo(Executor.State.CLOSING);
		}
	}

	@Test
	void aNegativeTimeoutIsRefusedNamingIt() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThatThrownBy(() -> executor.refuseDeferred(Duration.ofMillis(-1)))
				.isInstanceOfSatisfying(UformException.class, (ex) -> {
					assertThat(ex.status()).isEqualTo(Status.INVALID_ARGUMENT);
					assertThat(ex.getMessage()).contains("timeout");
				});
			assertThat(executor.defer(() -> 1).join()).isEqualTo(1);
		}
	}

	/** Until {@code thread} parks (waiting for a slot). */
	private static void awaitWaiting(Thread thread) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (thread.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
			Thread.sleep(1);
		}
		assertThat(thread.getState()).isEqualTo(Thread.State.WAITING);
	}

	/** Until a submission is refused: the refusal has begun. */
	private static void awaitRefusing(Executor executor) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			try {
				executor.defer(() -> null, Duration.ZERO);
			}
			catch (UformException ex) {
				if (ex.status() == Status.FREED) {
					return;
				}
			}
			Thread.sleep(1);
		}
		throw new AssertionError("refuseDeferred() did not begin");
	}
}
