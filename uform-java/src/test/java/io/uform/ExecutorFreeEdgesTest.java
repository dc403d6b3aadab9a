package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The edges of freeing and draining a RAM executor that the common paths miss: interrupts and two
 * frees at once, continuations of dropped calls that drain or free, what a free that gives up promises
 * about the dropped futures, the inheritable context of the executor's threads, and a stale interrupt
 * flag on a thread that need not wait.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorFreeEdgesTest {

	/** Defers a call that runs until {@code release} opens, and waits until it has started. */
	static void occupyDeferredThread(Executor executor, CountDownLatch release) throws InterruptedException {
		CountDownLatch started = new CountDownLatch(1);
		executor.defer(() -> {
			started.countDown();
			await(release);
			return null;
		});
		started.await();
	}

	static void await(CountDownLatch latch) {
		try {
			latch.await(20, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** free() is interrupted while it waits for an application's fork in progress. */
	@Test
	void freeIsInterruptibleWhileAForkIsInProgress() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch inFork = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread forker = new Thread(() -> executor.forN(2, (index) -> {
			inFork.countDown();
			await(release);
		}));
		forker.start();
		inFork.await();
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		Thread freer = new Thread(() -> {
			try {
				executor.free();
				outcome.set(new AssertionError("returned normally"));
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		});
		freer.start();
		Thread.sleep(300);
		freer.interrupt();
		freer.join(2000);
		boolean stuck = freer.isAlive();
		release.countDown();
		freer.join(10_000);
		forker.join(10_000);
		assertThat(stuck).as("free() still blocked 2 s after its interrupt (outcome later: %s)", outcome.get()).isFalse();
		assertThat(outcome.get()).isInstanceOf(UformException.class);
		assertThat(((UformException) outcome.get()).status()).isEqualTo(Status.INTERRUPTED);
	}

	/** free(period) on a second thread is bounded by its period while an unbounded free() runs on another. */
	@Test
	void freeWithAPeriodIsBoundedEvenWhileAnotherThreadRunsAnUnboundedFree() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		CountDownLatch release = new CountDownLatch(1);
		occupyDeferredThread(executor, release);
		Thread unbounded = new Thread(executor::free);
		unbounded.setDaemon(true);
		unbounded.start();
		Thread.sleep(200);
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		Thread bounded = new Thread(() -> {
			try {
				executor.free(Duration.ofMillis(200));
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		});
		long start = System.nanoTime();
		bounded.start();
		bounded.join(5_000);
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		boolean stuck = bounded.isAlive();
		release.countDown();
		bounded.join(10_000);
		unbounded.join(10_000);
		assertThat(stuck).as("free(200 ms) still waiting after %d ms", millis).isFalse();
		assertThat(outcome.get()).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(Status.TIMEOUT);
			assertThat(ex.getMessage()).contains("was being freed by another thread");
		});
		assertThat(unbounded.isAlive()).as("the unbounded free returned once the call did").isFalse();
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
	}

	/**
	 * A (non-async) continuation of a call that free(period) dropped runs drain(): it waits for the call
	 * still running, never for its own call's count, so it returns once that call does.
	 */
	@Test
	void aContinuationOfADroppedCallThatDrainsDoesNotHang() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(64));
		CountDownLatch release = new CountDownLatch(1);
		occupyDeferredThread(executor, release);
		CompletableFuture<String> drained = new CompletableFuture<>();
		CompletableFuture<Object> first = executor.defer(() -> "never");
		first.whenComplete((value, failure) -> {
			try {
				executor.drain();
				drained.complete("returned");
			}
			catch (Throwable ex) {
				drained.complete("threw " + ex);
			}
		});
		for (int i = 0; i < 60; i++) {
			executor.defer(() -> "never");
		}
		try {
			executor.free(Duration.ofMillis(100));
			fail("free(period) should have given up on the stuck call");
		}
		catch (UformException ex) {
			assertThat(ex.status()).isEqualTo(Status.TIMEOUT);
		}
		release.countDown();
		try {
			assertThat(drained.get(10, TimeUnit.SECONDS)).isNotNull();
		}
		catch (java.util.concurrent.TimeoutException ex) {
			fail("drain() inside the dropped call's continuation never returned (it waits for its own call)");
		}
	}

	/** When free(period) throws TIMEOUT saying the dropped calls' futures completed with FREED, they have. */
	@Test
	void droppedFuturesAreCompleteWhenFreeWithAPeriodGivesUp() throws Exception {
		int notDone = 0;
		int rounds = 100;
		for (int round = 0; round < rounds; round++) {
			Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(64));
			CountDownLatch release = new CountDownLatch(1);
			occupyDeferredThread(executor, release);
			List<CompletableFuture<Object>> queued = new ArrayList<>();
			for (int i = 0; i < 63; i++) {
				queued.add(executor.defer(() -> "never"));
			}
			try {
				executor.free(Duration.ZERO);
				fail("free(ZERO) should have given up");
			}
			catch (UformException ex) {
				assertThat(ex.getMessage()).contains("63 queued call(s) were dropped (their futures completed with FREED)");
				for (CompletableFuture<Object> future : queued) {
					if (!future.isDone()) {
						notDone++;
						break;
					}
				}
			}
			finally {
				release.countDown();
			}
		}
		assertThat(notDone).as("rounds where free(period) threw before the dropped futures were complete").isZero();
	}

	/** A slow continuation is named as what free(period) waited for, not a fork that does not exist. */
	@Test
	void freeWithAPeriodNamesWhatItWaitedFor() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		CountDownLatch inContinuation = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<String> call = new CompletableFuture<>();
		CountDownLatch attached = new CountDownLatch(1);
		// The call returns only once the continuation is attached, so that the continuation runs as the
		// call completes (on a completion thread), not on this thread as it attaches.
		executor.defer(() -> {
			await(attached);
			return "done";
		}).whenComplete((value, failure) -> {
			inContinuation.countDown();
			await(release);
		});
		attached.countDown();
		inContinuation.await();
		try {
			executor.free(Duration.ofMillis(100));
			fail("free(period) should have timed out on the slow continuation");
		}
		catch (UformException ex) {
			call.complete(ex.getMessage());
		}
		finally {
			release.countDown();
		}
		assertThat(call.get()).doesNotContain("a fork still in progress")
			.contains("continuations of finished deferred calls still run");
	}

	/** Worker and deferred threads do not inherit the creating thread's InheritableThreadLocals. */
	@Test
	void tasksDoNotSeeTheCreatingThreadsInheritableThreadLocals() throws Exception {
		InheritableThreadLocal<String> user = new InheritableThreadLocal<>();
		user.set("alice");
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		user.remove();
		try {
			AtomicReference<String> seen = new AtomicReference<>();
			executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					seen.set(user.get());
				}
			});
			String inCall = executor.defer(user::get).get(5, TimeUnit.SECONDS);
			assertThat(seen.get()).as("worker thread").isNull();
			assertThat(inCall).as("deferred thread").isNull();
		}
		finally {
			executor.free();
		}
	}

	/** A thread with a stale interrupt flag gets a free slot: INTERRUPTED is for interrupted waits. */
	@Test
	void deferWithAFreeSlotIsNotRefusedForAStaleInterrupt() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			Thread.currentThread().interrupt();
			try {
				CompletableFuture<String> future = executor.defer(() -> "ok");
				Thread.interrupted();
				assertThat(future.get(5, TimeUnit.SECONDS)).isEqualTo("ok");
			}
			catch (UformException ex) {
				Thread.interrupted();
				fail("defer() with a free slot refused: " + ex.status() + ": " + ex.getMessage());
			}
		}
	}
}
