package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link java.util.concurrent.Executor} view: deferred-call semantics (order, one at a time,
 * forks across every thread), the deferred limit, refusal once the executor closes, inline runs on the
 * executor's own threads, and failures reported rather than lost.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeferredCallExecutorTest {

	private final List<Throwable> reported = Collections.synchronizedList(new ArrayList<>());

	private final List<String> reportedOn = Collections.synchronizedList(new ArrayList<>());

	private Thread.UncaughtExceptionHandler before;

	@BeforeEach
	void catchReports() {
		this.before = Thread.getDefaultUncaughtExceptionHandler();
		Thread.setDefaultUncaughtExceptionHandler((thread, ex) -> {
			this.reportedOn.add(thread.getName());
			this.reported.add(ex);
		});
	}

	@AfterEach
	void restoreReports() {
		Thread.setDefaultUncaughtExceptionHandler(this.before);
	}

	@Test
	void manySubmittersTasksRunOnceEachOneAtATimeInEachSubmittersOrderAndForkOnEveryThread() throws Exception {
		int submitters = 16;
		int tasksEach = 300;
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(4))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			int[] lastSeen = new int[submitters];
			java.util.Arrays.fill(lastSeen, -1);
			AtomicInteger running = new AtomicInteger();
			AtomicInteger overlaps = new AtomicInteger();
			AtomicInteger outOfOrder = new AtomicInteger();
			AtomicInteger ran = new AtomicInteger();
			Set<String> runners = ConcurrentHashMap.newKeySet();
			Set<Integer> forkThreads = ConcurrentHashMap.newKeySet();
			CountDownLatch start = new CountDownLatch(1);
			List<Thread> threads = new ArrayList<>();
			for (int s = 0; s < submitters; s++) {
				int submitter = s;
				Thread thread = new Thread(() -> {
					ExecutorForkTest.awaitQuietly(start);
					for (int t = 0; t < tasksEach; t++) {
						int task = t;
						view.execute(() -> {
							if (running.incrementAndGet() != 1) {
								overlaps.incrementAndGet();
							}
							runners.add(Thread.currentThread().getName());
							// Only the deferred thread writes lastSeen, one task at a time.
							if (lastSeen[submitter] != task - 1) {
								outOfOrder.incrementAndGet();
							}
							lastSeen[submitter] = task;
							executor.forThreads((index, colocation) -> forkThreads.add(index));
							ran.incrementAndGet();
							running.decrementAndGet();
						});
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
			assertThat(ran).hasValue(submitters * tasksEach);
			assertThat(overlaps).hasValue(0);
			assertThat(outOfOrder).hasValue(0);
			assertThat(runners).containsExactly("uform-" + executor.name() + "-deferred");
			assertThat(forkThreads).containsExactlyInAnyOrder(0, 1);
			assertThat(this.reported).isEmpty();
		}
	}

	@Test
	void saturatedWithoutWaitingIsRejectedNamingTheLimitAndTheTaskNeverRuns() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(2))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor, Duration.ZERO);
			CountDownLatch release = new CountDownLatch(1);
			view.execute(() -> ExecutorForkTest.awaitQuietly(release));
			view.execute(() -> {
			});
			AtomicInteger ranRejected = new AtomicInteger();
			assertThatThrownBy(() -> view.execute(ranRejected::incrementAndGet))
				.isInstanceOf(RejectedExecutionException.class)
				.hasMessageContaining("all 2 deferred-call slots")
				.hasMessageContaining("raise deferredLimit")
				.hasCauseInstanceOf(UformException.class);
			release.countDown();
			executor.drain();
			assertThat(ranRejected).hasValue(0);
			assertThat(executor.statistics().deferredRejected()).isEqualTo(1);
		}
	}

	@Test
	void saturatedWithAWaitBlocksTheSubmitterUntilASlotFrees() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(1))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor, Duration.ofSeconds(30));
			CountDownLatch release = new CountDownLatch(1);
			view.execute(() -> ExecutorForkTest.awaitQuietly(release));
			CountDownLatch secondRan = new CountDownLatch(1);
			Thread submitter = new Thread(() -> view.execute(secondRan::countDown));
			submitter.start();
			submitter.join(300);
			assertThat(submitter.isAlive()).as("waits for the slot the first task holds").isTrue();
			release.countDown();
			submitter.join();
			assertThat(secondRan.await(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void anInterruptedWaitIsRejectedAndKeepsTheFlag() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(1))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			CountDownLatch release = new CountDownLatch(1);
			view.execute(() -> ExecutorForkTest.awaitQuietly(release));
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			AtomicReference<Boolean> flag = new AtomicReference<>();
			Thread submitter = new Thread(() -> {
				try {
					view.execute(() -> {
					});
				}
				catch (Throwable ex) {
					thrown.set(ex);
					flag.set(Thread.currentThread().isInterrupted());
				}
			});
			submitter.start();
			while (submitter.getState() != Thread.State.WAITING) {
				Thread.onSpinWait();
			}
			submitter.interrupt();
			submitter.join();
			release.countDown();
			assertThat(thrown.get()).isInstanceOf(RejectedExecutionException.class).hasMessageContaining("interrupted");
			assertThat(flag.get()).isTrue();
		}
	}

	@Test
	void onceTheExecutorRefusesDeferredCallsTasksAreRejectedSayingWhy() {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		DeferredCallExecutor view = DeferredCallExecutor.of(executor);
		executor.refuseDeferred(Duration.ZERO);
		assertThatThrownBy(() -> view.execute(() -> {
		})).isInstanceOf(RejectedExecutionException.class).hasMessageContaining("refuses new deferred calls");
		executor.free();
		assertThatThrownBy(() -> view.execute(() -> {
		})).isInstanceOf(RejectedExecutionException.class).hasMessageContaining("was freed");
	}

	@Test
	void submittersRacingAFreeEitherAreRejectedOrTheirTaskRunsOrIsReportedDropped() throws Exception {
		for (int round = 0; round < 20; round++) {
			Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(8));
			DeferredCallExecutor view = DeferredCallExecutor.of(executor, Duration.ofSeconds(10));
			AtomicInteger accepted = new AtomicInteger();
			AtomicInteger rejected = new AtomicInteger();
			AtomicInteger ran = new AtomicInteger();
			CountDownLatch start = new CountDownLatch(1);
			List<Thread> threads = new ArrayList<>();
			for (int s = 0; s < 8; s++) {
				Thread thread = new Thread(() -> {
					ExecutorForkTest.awaitQuietly(start);
					for (int t = 0; t < 200; t++) {
						try {
							view.execute(() -> {
								executor.forN(64, (int index) -> {
								});
								ran.incrementAndGet();
							});
							accepted.incrementAndGet();
						}
						catch (RejectedExecutionException ex) {
							rejected.incrementAndGet();
						}
					}
				});
				threads.add(thread);
				thread.start();
			}
			start.countDown();
			Thread.sleep(round % 4);
			try {
				// Zero: whatever is still queued is dropped, and each drop must be reported.
				executor.free(Duration.ZERO);
			}
			catch (UformException ex) {
				assertThat(ex.status()).isEqualTo(UformException.Status.TIMEOUT);
			}
			for (Thread thread : threads) {
				thread.join();
			}
			// A task dropped unstarted is reported; one that was running as the free gave up fails its fork
			// (the executor is freed) and is reported too. None is lost.
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (ran.get() + this.reported.size() < accepted.get() && System.nanoTime() < deadline) {
				Thread.sleep(5);
			}
			assertThat(accepted.get() + rejected.get()).isEqualTo(8 * 200);
			assertThat(ran.get() + this.reported.size()).isEqualTo(accepted.get());
			assertThat(this.reported).allSatisfy((ex) -> assertThat(((UformException) ex).status())
				.isEqualTo(UformException.Status.FREED));
			this.reported.clear();
		}
	}

	@Test
	void aFutureTaskThatABoundedFreeDropsIsCancelledSoItsWaiterIsToldAndNothingIsReported() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		DeferredCallExecutor view = DeferredCallExecutor.of(executor);
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		view.execute(() -> {
			running.countDown();
			ExecutorForkTest.awaitQuietly(release);
		});
		running.await();
		// What Spring's TaskExecutorAdapter.submit (and so @Async) hands the view.
		java.util.concurrent.FutureTask<String> dropped = new java.util.concurrent.FutureTask<>(() -> "never");
		view.execute(dropped);
		Thread freeing = new Thread(() -> {
			try {
				executor.free(Duration.ofMillis(50));
			}
			catch (UformException ex) {
				// The running task outlived the period: expected.
			}
		});
		freeing.start();
		assertThatThrownBy(() -> dropped.get(10, TimeUnit.SECONDS))
			.isInstanceOf(java.util.concurrent.CancellationException.class);
		release.countDown();
		freeing.join();
		assertThat(this.reported).isEmpty();
	}

	@Test
	void aTaskThatSubmitsAnotherAndWaitsForItCompletesEvenWithEverySlotTaken() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(1))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor, Duration.ZERO);
			CompletableFuture<String> outer = CompletableFuture.supplyAsync(() -> {
				String submitter = Thread.currentThread().getName();
				return CompletableFuture.supplyAsync(() -> Thread.currentThread().getName().equals(submitter) ? "inline"
						: "queued", view).join();
			}, view);
			assertThat(outer.get(10, TimeUnit.SECONDS)).isEqualTo("inline");
		}
	}

	@Test
	void aTaskSubmittedFromInsideAForkRunsInlineOnThatThread() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2).withDeferredLimit(1))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor, Duration.ZERO);
			Set<Boolean> sameThread = ConcurrentHashMap.newKeySet();
			CompletableFuture<Void> outer = CompletableFuture.runAsync(() -> executor.forThreads((thread, colocation) -> {
				Thread forking = Thread.currentThread();
				CountDownLatch done = new CountDownLatch(1);
				view.execute(() -> {
					sameThread.add(Thread.currentThread() == forking);
					done.countDown();
				});
				ExecutorForkTest.awaitQuietly(done);
			}), view);
			outer.get(10, TimeUnit.SECONDS);
			assertThat(sameThread).containsExactly(true);
		}
	}

	@Test
	void aTaskThatThrowsIsReportedAndTheNextStillRuns() throws Exception {
		assertAThrowingTaskIsReportedAndTheNextRuns();
	}

	/** A task that throws is reported once, counted failed, and the task behind it still runs. */
	private void assertAThrowingTaskIsReportedAndTheNextRuns() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			IllegalStateException boom = new IllegalStateException("boom");
			view.execute(() -> {
				throw boom;
			});
			CompletableFuture<String> next = CompletableFuture.supplyAsync(() -> "next", view);
			assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("next");
			awaitReports(1);
			assertThat(this.reported).containsExactly(boom);
			assertThat(executor.statistics().deferredFailed()).isEqualTo(1);
		}
	}

	@Test
	void aTaskThatThrowsIsReportedOnTheDeferredThreadBeforeADrainReturns() {
		// No future reaches the submitter, so none is completed on a completion thread: the failure is
		// reported on the deferred thread, and the task counts as finished only after that.
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			IllegalStateException boom = new IllegalStateException("boom");
			view.execute(() -> {
				throw boom;
			});
			executor.drain();
			assertThat(this.reported).containsExactly(boom);
			assertThat(this.reportedOn).containsExactly("uform-" + executor.name() + "-deferred");
		}
	}

	@Test
	void aFailureHandlerThatThrowsDoesNotStopTheTasksBehind() throws Exception {
		Thread.setDefaultUncaughtExceptionHandler((thread, ex) -> {
			this.reported.add(ex);
			throw new IllegalStateException("the handler fails too");
		});
		assertAThrowingTaskIsReportedAndTheNextRuns();
	}

	@Test
	void theHooksHearEachTaskEndOnceOnTheDeferredThreadAndEachRefusalAtOnce() throws Exception {
		List<String> heard = Collections.synchronizedList(new ArrayList<>());
		DeferredCallDecorator listen = (executor) -> new DeferredCallDecorator.Decoration() {

			@Override
			public ExecutorHooks.Scope open() {
				return () -> {
				};
			}

			@Override
			public void completed(Throwable failure) {
				heard.add(((failure != null) ? failure.getClass().getSimpleName() : "returned") + " on "
						+ Thread.currentThread().getName());
			}
		};
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(1), ExecutorHooks.NONE.withDeferredCalls(listen))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			view.execute(() -> {
			});
			view.execute(() -> {
				throw new IllegalStateException("boom");
			});
			executor.drain();
			CountDownLatch release = new CountDownLatch(1);
			view.execute(() -> ExecutorForkTest.awaitQuietly(release));
			String submitter = Thread.currentThread().getName();
			assertThatThrownBy(() -> DeferredCallExecutor.of(executor, Duration.ZERO).execute(() -> {
			})).isInstanceOf(RejectedExecutionException.class);
			release.countDown();
			executor.drain();
			String deferred = "uform-" + executor.name() + "-deferred";
			assertThat(heard).containsExactly("returned on " + deferred, "IllegalStateException on " + deferred,
					"UformException on " + submitter, "returned on " + deferred);
		}
	}

	@Test
	void aTaskThatThrowsInlineIsReportedNotThrownAtItsSubmitter() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			IllegalStateException boom = new IllegalStateException("inner boom");
			CompletableFuture<String> outer = CompletableFuture.supplyAsync(() -> {
				view.execute(() -> {
					throw boom;
				});
				return "went on";
			}, view);
			assertThat(outer.get(10, TimeUnit.SECONDS)).isEqualTo("went on");
			awaitReports(1);
			assertThat(this.reported).containsExactly(boom);
		}
	}

	@Test
	void tasksRunInTheSubmittersContextThroughTheExecutorsHooks() throws Exception {
		ThreadLocal<String> request = new ThreadLocal<>();
		DeferredCallDecorator carry = (executor) -> {
			String captured = request.get();
			return new DeferredCallDecorator.Decoration() {

				@Override
				public ExecutorHooks.Scope open() {
					request.set(captured);
					return request::remove;
				}

				@Override
				public void completed(Throwable failure) {
				}
			};
		};
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1),
				ExecutorHooks.NONE.withDeferredCalls(carry))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			request.set("request-42");
			CompletableFuture<String> seen = CompletableFuture.supplyAsync(request::get, view);
			request.remove();
			assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo("request-42");
		}
	}

	@Test
	void badArgumentsAreRefusedNamingThem() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThatThrownBy(() -> DeferredCallExecutor.of(null)).isInstanceOf(UformException.class)
				.hasMessageContaining("executor");
			assertThatThrownBy(() -> DeferredCallExecutor.of(executor, Duration.ofSeconds(-1)))
				.isInstanceOf(UformException.class)
				.hasMessageContaining("maxWait");
			assertThatThrownBy(() -> DeferredCallExecutor.of(executor).execute(null))
				.isInstanceOf(NullPointerException.class);
		}
	}

	private void awaitReports(int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.reported.size() < count && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
	}
}
