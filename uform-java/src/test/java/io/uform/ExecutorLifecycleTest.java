package io.uform;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Drain moods, free, and what happens after free: nothing lost, nothing left running.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorLifecycleTest {

	@Test
	void freeRunsTheDeferredCallsStillQueued() throws Exception {
		AtomicInteger ran = new AtomicInteger();
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(200));
		CountDownLatch firstStarted = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		executor.defer(() -> {
			firstStarted.countDown();
			release.await();
			ran.incrementAndGet();
			return null;
		});
		List<CompletableFuture<Void>> queued = new java.util.ArrayList<>();
		for (int c = 0; c < 100; c++) {
			queued.add(executor.defer(() -> {
				// Queued calls may still fork while free() runs them.
				executor.forN(10, (index) -> {
				});
				ran.incrementAndGet();
			}));
		}
		firstStarted.await();
		Thread freer = new Thread(executor::free);
		freer.start();
		// Once free() refuses new calls it is running: it must now wait for the queue, not drop it.
		ExecutorFaultsTest.awaitRefusal(executor);
		Thread.sleep(50);
		assertThat(freer.isAlive()).as("free() returned while calls were still queued").isTrue();
		assertThat(queued).noneSatisfy((future) -> assertThat(future).isDone());
		release.countDown();
		freer.join(30_000);
		assertThat(freer.isAlive()).isFalse();
		assertThat(ran).hasValue(101);
		assertThat(queued).allSatisfy((future) -> assertThat(future).isCompletedWithValue(null));
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void noUformThreadOfTheExecutorIsAliveAfterFree() {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(4));
		String prefix = "uform-" + executor.name() + "-";
		executor.forN(100, (index) -> {
		});
		executor.defer(() -> {
		});
		assertThat(liveThreads((name) -> name.startsWith(prefix))).hasSize(4);
		executor.free();
		assertThat(liveThreads((name) -> name.startsWith(prefix))).isEmpty();
	}

	@Test
	void secondFreeDoesNothingAndEveryWorkCallAfterFreeFailsWithFreed() {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		executor.free();
		executor.free();
		executor.close();
		List<Runnable> calls = List.of(() -> executor.forN(3, (index) -> {
		}), () -> executor.forNDynamic(3, (index) -> {
		}), () -> executor.forSlices(3, (first, count, thread, colocation) -> {
		}), () -> executor.forThreads((thread, colocation) -> {
		}), () -> executor.defer(() -> 1), () -> executor.defer(() -> 1, Duration.ZERO), executor::drain,
				() -> executor.drain(Mood.GRINDING));
		for (Runnable call : calls) {
			assertThatThrownBy(call::run).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED))
				.hasMessageContaining(executor.name());
		}
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void freeFromInsideATaskFailsInsteadOfWaitingForItself() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> executor.free()))
				.isInstanceOf(UformException.class)
				.hasMessageContaining("would wait for itself");
			executor.forN(4, (index) -> {
			});
		}
	}

	@Test
	void parkedWorkersSleepAndGrindingWorkersSpin() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3))) {
			String prefix = "uform-" + executor.name() + "-worker-";
			executor.forN(100, (index) -> {
			});
			executor.drain(Mood.PARKED);
			assertThat(executor.statistics().mood()).isEqualTo(Mood.PARKED);
			awaitWorkersIn(prefix, Set.of(Thread.State.WAITING));
			// Measured in CPU time, not sampled thread states: a parked pool burns (almost) none.
			assertThat(workerCpuMillis(prefix, 300)).allSatisfy((millis) -> assertThat(millis).isLessThan(30));

			executor.drain(Mood.GRINDING);
			assertThat(executor.statistics().mood()).isEqualTo(Mood.GRINDING);
			// Two grinding workers on however many cores: each gets a good part of the window, even on a
			// loaded 2-core machine (a 300 ms window there gave one worker 37-52 ms: too close to call),
			// while a parked worker gets almost nothing of any window.
			assertThat(workerCpuMillis(prefix, 1500)).allSatisfy((millis) -> assertThat(millis).isGreaterThan(60));
			// Grinding workers still take forks.
			AtomicInteger count = new AtomicInteger();
			executor.forN(1000, (index) -> count.incrementAndGet());
			assertThat(count).hasValue(1000);

			executor.drain(Mood.PARKED);
			awaitWorkersIn(prefix, Set.of(Thread.State.WAITING));
			assertThat(workerCpuMillis(prefix, 300)).allSatisfy((millis) -> assertThat(millis).isLessThan(30));
		}
	}

	/** CPU time each worker used over a window of {@code windowMillis}, in milliseconds. */
	private static List<Long> workerCpuMillis(String prefix, long windowMillis) throws InterruptedException {
		ThreadMXBean threadsBean = ManagementFactory.getThreadMXBean();
		List<Thread> workers = liveThreads((name) -> name.startsWith(prefix));
		assertThat(workers).isNotEmpty();
		long[] before = workers.stream().mapToLong((worker) -> threadsBean.getThreadCpuTime(worker.getId())).toArray();
		Thread.sleep(windowMillis);
		List<Long> used = new java.util.ArrayList<>();
		for (int w = 0; w < workers.size(); w++) {
			used.add(TimeUnit.NANOSECONDS.toMillis(threadsBean.getThreadCpuTime(workers.get(w).getId()) - before[w]));
		}
		return used;
	}

	@Test
	void anExecutorNobodyHoldsIsFreedByTheCollector() throws Exception {
		String prefix = "uform-" + makeAndDropExecutor() + "-";
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!liveThreads((name) -> name.startsWith(prefix)).isEmpty()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("threads of a dropped executor still alive: "
						+ liveThreads((name) -> name.startsWith(prefix)));
			}
			System.gc();
			Thread.sleep(20);
		}
	}

	/** Makes an executor, uses it, and lets go of it; returns only its name. */
	private static String makeAndDropExecutor() {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3));
		executor.forN(10, (index) -> {
		});
		executor.defer(() -> {
		});
		return executor.name();
	}

	@Test
	void interruptedThreadsStillSleepWhenIdleAndCallersKeepTheirFlag() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			String prefix = "uform-" + executor.name() + "-worker-";
			// A task interrupts its own worker; the idle worker must still park, not spin.
			executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					Thread.currentThread().interrupt();
				}
			});
			awaitWorkersIn(prefix, Set.of(Thread.State.WAITING));
			// An interrupted caller waits for a long fork and keeps its interrupt flag.
			Thread.currentThread().interrupt();
			executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					ExecutorDeferredTest.sleep(20);
				}
			});
			assertThat(Thread.interrupted()).isTrue();
		}
	}

	@Test
	void statisticsDescribeTheExecutor() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(8))) {
			executor.forN(10, (index) -> {
			});
			executor.forThreads((thread, colocation) -> {
			});
			ExecutorStatistics stats = executor.statistics();
			assertThat(stats.kind()).isEqualTo(Executor.Kind.RAM);
			assertThat(stats.state()).isEqualTo(Executor.State.RUNNING);
			assertThat(stats.threads()).isEqualTo(2);
			assertThat(stats.forks()).isEqualTo(2);
			assertThat(stats.deferredLimit()).isEqualTo(8);
			assertThat(stats.memoryDomains()).isNotEmpty();
			assertThat(stats.colocations()).isEqualTo(executor.colocations());
			assertThat(stats.cpuClass()).isEqualTo(io.uform.host.CpuClasses.system().best());
			assertThat(stats.pinning()).isNotBlank();
			assertThat(executor.toString()).contains(executor.name()).contains("threads=2");
		}
	}

	static List<Thread> liveThreads(Predicate<String> name) {
		return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
			.filter((thread) -> name.test(thread.getName())).toList();
	}

	private static void awaitWorkersIn(String prefix, Set<Thread.State> states) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			List<Thread> workers = liveThreads((name) -> name.startsWith(prefix));
			assertThat(workers).isNotEmpty();
			if (workers.stream().allMatch((worker) -> states.contains(worker.getState()))) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("workers not in " + states + ": "
						+ workers.stream().map((worker) -> worker.getName() + "=" + worker.getState()).toList());
			}
			Thread.sleep(5);
		}
	}
}
