package io.uform;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Forks on a RAM executor: every index exactly once, whatever the schedule and thread count;
 * failures reach the caller; nested and concurrent forks are safe.
 */
class ExecutorForkTest {

	private static Executor executor(int threads) {
		return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(threads));
	}

	@ParameterizedTest
	@ValueSource(ints = { 1, 2, 3, 4, 7 })
	void everyIndexIsVisitedExactlyOnceAcrossRandomSizesAndSchedules(int threads) {
		Random random = new Random(42 + threads);
		try (Executor executor = executor(threads)) {
			for (int round = 0; round < 1500; round++) {
				int n = (round % 10 == 0) ? random.nextInt(100_000) : random.nextInt(300);
				AtomicIntegerArray visits = new AtomicIntegerArray(Math.max(n, 1));
				AtomicIntegerArray byThread = new AtomicIntegerArray(threads);
				switch (random.nextInt(3)) {
					case 0 -> executor.forN(n, (index, thread, colocation) -> {
						visits.incrementAndGet(index);
						byThread.incrementAndGet(thread);
					});
					case 1 -> executor.forNDynamic(n, (index, thread, colocation) -> {
						visits.incrementAndGet(index);
						byThread.incrementAndGet(thread);
					});
					default -> executor.forSlices(n, (first, count, thread, colocation) -> {
						assertThat(count).isPositive();
						for (int i = first; i < first + count; i++) {
							visits.incrementAndGet(i);
							byThread.incrementAndGet(thread);
						}
					});
				}
				for (int i = 0; i < n; i++) {
					if (visits.get(i) != 1) {
						throw new AssertionError("round " + round + ": index " + i + " of " + n + " visited " + visits.get(i) + " times");
					}
				}
				long total = 0;
				for (int t = 0; t < threads; t++) {
					total += byThread.get(t);
				}
				assertThat(total).isEqualTo(n);
			}
		}
	}

	@Test
	void staticSlicesAreContiguousAndBalanced() {
		try (Executor executor = executor(3)) {
			int[] firstOf = new int[3];
			int[] countOf = new int[3];
			executor.forSlices(10, (first, count, thread, colocation) -> {
				firstOf[thread] = first;
				countOf[thread] = count;
			});
			assertThat(firstOf).containsExactly(0, 3, 6);
			assertThat(countOf).containsExactly(3, 3, 4);
		}
	}

	@Test
	void forThreadsRunsOncePerThreadWithItsColocation() {
		try (Executor executor = executor(4)) {
			AtomicIntegerArray runs = new AtomicIntegerArray(4);
			executor.forThreads((thread, colocation) -> {
				runs.incrementAndGet(thread);
				assertThat(colocation).isBetween(0, executor.colocations() - 1);
			});
			for (int t = 0; t < 4; t++) {
				assertThat(runs.get(t)).isEqualTo(1);
			}
		}
	}

	@Test
	void callerIsThreadZero() {
		try (Executor executor = executor(3)) {
			Thread caller = Thread.currentThread();
			List<Thread> seen = new ArrayList<>(List.of(caller, caller, caller));
			executor.forThreads((thread, colocation) -> seen.set(thread, Thread.currentThread()));
			assertThat(seen.get(0)).isSameAs(caller);
			assertThat(seen.get(1).getName()).startsWith("uform-" + executor.name() + "-worker-");
			assertThat(seen.get(2)).isNotSameAs(seen.get(1)).isNotSameAs(caller);
		}
	}

	@Test
	void aFailingTaskReachesTheCallerWithOthersSuppressedAndThePoolStaysUsable() {
		try (Executor executor = executor(4)) {
			assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> {
				throw new IllegalStateException("boom on " + thread);
			})).isInstanceOf(IllegalStateException.class)
				.hasMessageStartingWith("boom on ")
				.satisfies((ex) -> assertThat(ex.getSuppressed()).hasSize(3));

			assertThatThrownBy(() -> executor.forN(1000, (index) -> {
				if (index == 777) {
					throw new ArithmeticException("index 777");
				}
			})).isInstanceOf(ArithmeticException.class).hasMessage("index 777");

			AtomicInteger after = new AtomicInteger();
			executor.forN(1000, (index) -> after.incrementAndGet());
			assertThat(after).hasValue(1000);
		}
	}

	@Test
	void errorsAreRethrownAsThemselves() {
		try (Executor executor = executor(2)) {
			assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					throw new StackOverflowError("deep");
				}
			})).isInstanceOf(StackOverflowError.class).hasMessage("deep");
		}
	}

	@Test
	void aForkFromInsideATaskRunsInlineOnTheCurrentThread() {
		try (Executor executor = executor(3)) {
			AtomicIntegerArray visits = new AtomicIntegerArray(3 * 50);
			AtomicInteger wrongThread = new AtomicInteger();
			AtomicInteger nestedThreadsRuns = new AtomicInteger();
			executor.forN(3, (outer, thread, colocation) -> {
				executor.forN(50, (inner, innerThread, innerColocation) -> {
					visits.incrementAndGet(outer * 50 + inner);
					if (innerThread != thread) {
						wrongThread.incrementAndGet();
					}
				});
				executor.forThreads((t, c) -> nestedThreadsRuns.incrementAndGet());
			});
			for (int i = 0; i < visits.length(); i++) {
				assertThat(visits.get(i)).isEqualTo(1);
			}
			assertThat(wrongThread).hasValue(0);
			// Nested forThreads runs once per outer task, for the current thread.
			assertThat(nestedThreadsRuns).hasValue(3);
			assertThat(executor.statistics().forks()).isEqualTo(1);
		}
	}

	@Test
	void forksFromManyApplicationThreadsAtOnceAreSerialisedWithoutLoss() throws Exception {
		try (Executor executor = executor(3)) {
			int submitters = 8;
			int forksEach = 300;
			AtomicLong sum = new AtomicLong();
			AtomicInteger badForks = new AtomicInteger();
			CountDownLatch start = new CountDownLatch(1);
			List<Thread> threads = new ArrayList<>();
			for (int s = 0; s < submitters; s++) {
				Thread thread = new Thread(() -> {
					awaitQuietly(start);
					for (int f = 0; f < forksEach; f++) {
						AtomicIntegerArray visits = new AtomicIntegerArray(100);
						executor.forN(100, (index) -> {
							visits.incrementAndGet(index);
							sum.addAndGet(index);
						});
						for (int i = 0; i < 100; i++) {
							if (visits.get(i) != 1) {
								badForks.incrementAndGet();
								break;
							}
						}
					}
				});
				threads.add(thread);
				thread.start();
			}
			start.countDown();
			for (Thread thread : threads) {
				thread.join();
			}
			assertThat(badForks).hasValue(0);
			assertThat(sum.get()).isEqualTo((long) submitters * forksEach * (99 * 100 / 2));
			assertThat(executor.statistics().forks()).isEqualTo((long) submitters * forksEach);
		}
	}

	@Test
	void negativeCountIsRejectedWithItsValue() {
		try (Executor executor = executor(2)) {
			assertThatThrownBy(() -> executor.forN(-5, (index) -> {
			})).isInstanceOf(UformException.class)
				.hasMessageContaining("n = -5")
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(UformException.Status.INVALID_ARGUMENT));
		}
	}

	static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}
}
