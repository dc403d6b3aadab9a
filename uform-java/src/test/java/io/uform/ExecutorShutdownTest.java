package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bounded shutdown: {@code drain(mood, timeout)} and {@code free(period)} give up on a call that
 * never returns, report it by name, and still free what they can; the collector frees executors
 * without ever blocking on one; threads that fail to start leak nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorShutdownTest {

	@Test
	void drainWithATimeoutReportsWhetherEverythingFinished() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CountDownLatch release = new CountDownLatch(1);
			executor.defer(() -> {
				release.await();
				return null;
			});
			long start = System.nanoTime();
			assertThat(executor.drain(Mood.GRINDING, Duration.ofMillis(100))).isFalse();
			assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
			assertThat(executor.statistics().mood()).as("mood unchanged after a drain that timed out").isEqualTo(Mood.PARKED);
			assertThat(executor.drain(Mood.PARKED, Duration.ZERO)).isFalse();
			release.countDown();
			assertThat(executor.drain(Mood.GRINDING, Duration.ofSeconds(10))).isTrue();
			assertThat(executor.statistics().mood()).isEqualTo(Mood.GRINDING);
			assertThat(executor.statistics().deferredInFlight()).isZero();
		}
	}

	@Test
	void drainWithATimeoutAlsoWaitsForAForkInProgress() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CountDownLatch inFork = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Thread forker = new Thread(() -> executor.forThreads((thread, colocation) -> {
				if (thread == 0) {
					inFork.countDown();
					awaitQuietly(release);
				}
			}));
			forker.start();
			inFork.await();
			assertThat(executor.drain(Mood.PARKED, Duration.ofMillis(50))).isFalse();
			release.countDown();
			forker.join(10_000);
			assertThat(executor.drain(Mood.PARKED, Duration.ofSeconds(10))).isTrue();
		}
	}

	@Test
	void freeWithAPeriodGivesUpOnAStuckCallNamesItAndFreesTheRest() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3).withDeferredLimit(8));
		String workers = "uform-" + executor.name() + "-worker-";
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		CompletableFuture<String> stuck = executor.defer(new StuckCall(running, release));
		AtomicInteger ran = new AtomicInteger();
		List<CompletableFuture<Integer>> queued = new ArrayList<>();
		for (int c = 0; c < 5; c++) {
			queued.add(executor.defer(ran::incrementAndGet));
		}
		running.await();
		long start = System.nanoTime();
		assertThatThrownBy(() -> executor.free(Duration.ofMillis(200))).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
			.hasMessageContaining("'" + executor.name() + "'")
			.hasMessageContaining("deferred call #1")
			.hasMessageContaining(StuckCall.class.getName())
			.hasMessageContaining("StuckCall.call")
			.hasMessageContaining("5 queued call(s) were dropped")
			.hasMessageContaining("freed all the same");
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(tookMillis).isBetween(200L, 5_000L);
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
		for (CompletableFuture<Integer> future : queued) {
			assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.cause().isInstanceOf(UformException.class).hasMessageContaining("ran out of time");
		}
		assertThat(ran).as("dropped calls never run").hasValue(0);
		// Idle workers were joined although the stuck call's thread lives on.
		assertThat(ExecutorLifecycleTest.liveThreads((name) -> name.startsWith(workers))).isEmpty();
		assertThatThrownBy(() -> executor.defer(() -> 1)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED));
		executor.free();
		release.countDown();
		assertThat(stuck.get(10, TimeUnit.SECONDS)).isEqualTo("late");
		ExecutorStatistics stats = executor.statistics();
		assertThat(stats.deferredCancelled()).isEqualTo(5);
		assertThat(stats.deferredCompleted()).isEqualTo(1);
		assertThat(stats.deferredRejected()).isEqualTo(1);
	}

	@Test
	void anUnboundedFreeDuringABoundedOneWaitsOnlyForThatOne() throws Exception {
		// Spring frees with a period in its lifecycle and may call the destroy method's free() while that
		// runs: the second call must end with the first, not wait for the stuck call itself.
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(new StuckCall(running, release));
		running.await();
		try {
			ExecutorService callers = Executors.newFixedThreadPool(2);
			CompletableFuture<Void> bounded = CompletableFuture.runAsync(() -> executor.free(Duration.ofMillis(500)),
					callers);
			Thread.sleep(100);
			CompletableFuture<Void> unbounded = CompletableFuture.runAsync(executor::free, callers);
			callers.shutdown();
			// Without the hand-over it waits for the stuck call, which never returns before release.
			unbounded.get(5, TimeUnit.SECONDS);
			assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThatThrownBy(() -> bounded.get(10, TimeUnit.SECONDS)).hasRootCauseInstanceOf(UformException.class)
				.rootCause()
				.hasMessageContaining("did not finish its work within PT0.5S");
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void freeWithAPeriodThatSufficesReturnsNormallyAfterRunningTheQueue() {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		AtomicInteger ran = new AtomicInteger();
		for (int c = 0; c < 50; c++) {
			executor.defer(() -> {
				executor.forN(4, (index) -> {
				});
				ran.incrementAndGet();
			});
		}
		executor.free(Duration.ofSeconds(20));
		assertThat(ran).hasValue(50);
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void freeWithAZeroPeriodFreesAnIdleExecutorWithoutReportingUnfinishedWork() {
		// Spring Boot's await-termination=false frees with a period of zero: idle threads that have not
		// ended yet by then are no unfinished work. Many rounds, as it went wrong only some of the time.
		for (int round = 0; round < 40; round++) {
			Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(4));
			if (round % 2 == 0) {
				executor.forN(8, (index) -> {
				});
				executor.defer(() -> 1).join();
			}
			String workers = "uform-" + executor.name() + "-";
			executor.free(Duration.ZERO);
			assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThat(Thread.getAllStackTraces().keySet()).as("threads of %s after free", executor.name())
				.noneMatch((thread) -> thread.getName().startsWith(workers) && thread.isAlive());
		}
	}

	@Test
	void aZeroPeriodFreeOfAStuckCallSaysItDidNotWaitRatherThanWithinPT0S() throws Exception {
		// The Spring starter frees with a zero period after refuseDeferred has spent the shutdown period
		// on the call: "did not finish its work within PT0S" would say the call had no time at all.
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(new StuckCall(running, release));
		running.await();
		try {
			assertThatThrownBy(() -> executor.free(Duration.ZERO)).isInstanceOfSatisfying(UformException.class, (ex) -> {
				assertThat(ex.status()).isEqualTo(Status.TIMEOUT);
				assertThat(ex.getMessage()).startsWith("Executor '" + executor.name() + "' was freed without waiting for "
						+ "its work: deferred call #1 (" + StuckCall.class.getName() + ")")
					.doesNotContain("within");
			});
			assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aSubmitterWaitingForASlotIsRefusedWhenAFreeGivesUpOnAStuckCall() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(1));
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(new StuckCall(running, release));
		running.await();
		AtomicReference<Throwable> refused = new AtomicReference<>();
		Thread submitter = new Thread(() -> {
			try {
				executor.defer(() -> "late");
			}
			catch (Throwable ex) {
				refused.set(ex);
			}
		}, "waits-for-a-slot");
		try {
			submitter.start();
			// Until it waits for the one slot, which the stuck call holds.
			while (submitter.getState() != Thread.State.WAITING && submitter.isAlive()) {
				Thread.sleep(5);
			}
			assertThatThrownBy(() -> executor.free(Duration.ofMillis(100))).isInstanceOf(UformException.class)
				.hasMessageContaining(StuckCall.class.getName());
			submitter.join(5_000);
			assertThat(submitter.isAlive()).as("the submitter still waiting for a slot after free gave up").isFalse();
			assertThat(refused.get()).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED));
			assertThat(executor.statistics().deferredInFlight()).as("the stuck call, still running").isEqualTo(1);
		}
		finally {
			release.countDown();
		}
		submitter.join(5_000);
	}

	@Test
	void aDeferWithoutWaitFromAnInterruptedThreadTakesAFreeSlot() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			Thread.currentThread().interrupt();
			CompletableFuture<String> future;
			try {
				future = executor.defer(() -> "ran", Duration.ZERO);
			}
			finally {
				assertThat(Thread.interrupted()).as("the interrupt flag, kept").isTrue();
			}
			assertThat(future.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
		}
	}

	@Test
	void aWaitForASlotOfCenturiesMeansNoLimitRatherThanAnOverflow() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			assertThat(executor.defer(() -> "ran", java.time.temporal.ChronoUnit.FOREVER.getDuration())
				.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
			assertThat(executor.defer(() -> "ran too", Duration.ofDays(400L * 365)).get(10, TimeUnit.SECONDS))
				.isEqualTo("ran too");
			assertThat(executor.statistics().deferredRejected()).isZero();
		}
	}

	@Test
	void anInterruptedFreeStopsWaitingFreesTheExecutorAndKeepsTheFlag() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(new StuckCall(running, release));
		running.await();
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		AtomicReference<Boolean> flag = new AtomicReference<>();
		Thread freer = new Thread(() -> {
			try {
				executor.free();
			}
			catch (Throwable ex) {
				thrown.set(ex);
			}
			flag.set(Thread.currentThread().isInterrupted());
		});
		freer.start();
		ExecutorFaultsTest.awaitRefusal(executor);
		freer.interrupt();
		freer.join(10_000);
		assertThat(freer.isAlive()).isFalse();
		assertThat(thrown.get()).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INTERRUPTED))
			.hasMessageContaining("deferred call #1");
		assertThat(flag.get()).isTrue();
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
		release.countDown();
	}

	@Test
	void badPeriodsAndTimeoutsAreRejectedByName() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThatThrownBy(() -> executor.free(Duration.ofSeconds(-1))).isInstanceOf(UformException.class)
				.hasMessageContaining("period");
			assertThatThrownBy(() -> executor.free(null)).isInstanceOf(UformException.class).hasMessageContaining("period");
			assertThatThrownBy(() -> executor.drain(Mood.PARKED, null)).isInstanceOf(UformException.class)
				.hasMessageContaining("timeout");
			assertThatThrownBy(() -> executor.drain(Mood.PARKED, Duration.ofMillis(-5)))
				.isInstanceOf(UformException.class)
				.hasMessageContaining("timeout");
			assertThat(executor.drain(Mood.PARKED, Duration.ofDays(365 * 1000))).isTrue();
		}
	}

	@Test
	void aStuckCallInOneDroppedExecutorDoesNotStopTheCollectorFreeingAnother() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		String stuckName = dropExecutorWithAStuckCall(running, release);
		running.await();
		// Let the collector reach the first executor's cleaning before the second is dropped.
		for (int i = 0; i < 5; i++) {
			System.gc();
			Thread.sleep(20);
		}
		String prefix = "uform-" + dropExecutor() + "-";
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		try {
			while (!ExecutorLifecycleTest.liveThreads((name) -> name.startsWith(prefix)).isEmpty()) {
				if (System.nanoTime() > deadline) {
					throw new AssertionError("a dropped executor was not freed while " + stuckName + " has a stuck call");
				}
				System.gc();
				Thread.sleep(20);
			}
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void workersStartedBeforeAThreadFailedToStartAreStoppedAndJoined() {
		AtomicInteger starts = new AtomicInteger();
		List<Thread> started = new ArrayList<>();
		assertThatThrownBy(() -> Executor.forRam(ExecutorForRamConfig.defaults().withThreads(4), (thread) -> {
			if (starts.incrementAndGet() == 3) {
				throw new OutOfMemoryError("unable to create native thread: possibly out of memory");
			}
			started.add(thread);
			thread.start();
		})).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.OUT_OF_MEMORY))
			.hasMessageContaining("could not start worker 3 of its 3")
			.hasMessageContaining("ulimit");
		assertThat(started).hasSize(2).allSatisfy((thread) -> assertThat(thread.isAlive()).isFalse());
	}

	@Test
	void workersAreStoppedWhenTheDeferredThreadFailsToStart() {
		List<Thread> started = new ArrayList<>();
		assertThatThrownBy(() -> Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3), (thread) -> {
			if (thread.getName().endsWith("-deferred")) {
				throw new OutOfMemoryError("unable to create native thread");
			}
			started.add(thread);
			thread.start();
		})).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.OUT_OF_MEMORY))
			.hasMessageContaining("deferred-call thread");
		assertThat(started).hasSize(2).allSatisfy((thread) -> assertThat(thread.isAlive()).isFalse());
	}

	/** Makes an executor whose only call never returns until {@code release}, and lets go of it. */
	private static String dropExecutorWithAStuckCall(CountDownLatch running, CountDownLatch release) {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		// The call must not capture the executor, or the executor would stay reachable.
		executor.defer(new StuckCall(running, release));
		return executor.name();
	}

	private static String dropExecutor() {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		executor.forN(4, (index) -> {
		});
		return executor.name();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A deferred call that blocks until released: a named class, so reports can name it. */
	static final class StuckCall implements java.util.concurrent.Callable<String> {

		private final CountDownLatch running;

		private final CountDownLatch release;

		StuckCall(CountDownLatch running, CountDownLatch release) {
			this.running = running;
			this.release = release;
		}

		@Override
		public String call() {
			this.running.countDown();
			while (true) {
				try {
					this.release.await();
					return "late";
				}
				catch (InterruptedException ex) {
					// Stuck means stuck: ignores interrupts, as a badly written model call might.
				}
			}
		}
	}
}
