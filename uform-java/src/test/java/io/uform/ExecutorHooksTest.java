package io.uform;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ExecutorHooks}: a thread-local value set on the forking or submitting thread (standing in for
 * a trace or an MDC entry) is seen by every part of a fork and by the deferred call, restored once per
 * thread and part rather than per index, and gone from the executor's threads once the work is done;
 * a deferred call's decoration hears exactly once how it ended, whether it returned, threw an
 * {@link Error}, was cancelled before it started, or was refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorHooksTest {

	private static final ThreadLocal<String> REQUEST = new ThreadLocal<>();

	/** Captures {@link #REQUEST} on the forking thread; counts restores; restores nothing when unset. */
	private static final class RequestForks implements ForkDecorator {

		final AtomicInteger restores = new AtomicInteger();

		@Override
		public Context capture() {
			String captured = REQUEST.get();
			if (captured == null) {
				return null;
			}
			return () -> {
				this.restores.incrementAndGet();
				String before = REQUEST.get();
				REQUEST.set(captured);
				return () -> REQUEST.set(before);
			};
		}
	}

	/** Records each deferred call's submitter value, the value seen on open, and how it ended. */
	private static final class RequestDeferredCalls implements DeferredCallDecorator {

		final List<Object> completions = new CopyOnWriteArrayList<>();

		final AtomicInteger opens = new AtomicInteger();

		@Override
		public Decoration decorate(Executor executor) {
			String captured = REQUEST.get();
			return new Decoration() {

				@Override
				public ExecutorHooks.Scope open() {
					RequestDeferredCalls.this.opens.incrementAndGet();
					String before = REQUEST.get();
					REQUEST.set(captured);
					return () -> REQUEST.set(before);
				}

				@Override
				public void completed(Throwable failure) {
					RequestDeferredCalls.this.completions.add((failure != null) ? failure : "returned");
				}
			};
		}
	}

	private static Executor executor(RequestDeferredCalls deferred, RequestForks forks) {
		return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3).withDeferredLimit(2),
				new ExecutorHooks(deferred, forks));
	}

	@Test
	void everyPartOfEveryForkShapeSeesTheForkingThreadsValue() {
		RequestForks forks = new RequestForks();
		try (Executor executor = executor(null, forks)) {
			REQUEST.set("request-1");
			int n = 1000;
			AtomicReferenceArray<String> seen = new AtomicReferenceArray<>(n);
			executor.forN(n, (index, thread, colocation) -> seen.set(index, REQUEST.get()));
			assertEvery(seen, "request-1");
			AtomicReferenceArray<String> dynamic = new AtomicReferenceArray<>(n);
			executor.forNDynamic(n, (index, thread, colocation) -> dynamic.set(index, REQUEST.get()));
			assertEvery(dynamic, "request-1");
			AtomicReferenceArray<String> sliced = new AtomicReferenceArray<>(n);
			executor.forSlices(n, (first, count, thread, colocation) -> {
				for (int i = first; i < first + count; i++) {
					sliced.set(i, REQUEST.get());
				}
			});
			assertEvery(sliced, "request-1");
			AtomicReferenceArray<String> perThread = new AtomicReferenceArray<>(executor.threads());
			executor.forThreads((thread, colocation) -> perThread.set(thread, REQUEST.get()));
			assertEvery(perThread, "request-1");
		}
		finally {
			REQUEST.remove();
		}
	}

	@Test
	void eachWorkerRestoresOncePerForkNotOncePerIndex() {
		RequestForks forks = new RequestForks();
		try (Executor executor = executor(null, forks)) {
			REQUEST.set("request-2");
			executor.forN(10_000, (index) -> {
			});
			executor.forNDynamic(10_000, (index) -> {
			});
			// Two workers, two forks: at most four restores (none for a share the forking thread ran).
			assertThat(forks.restores.get()).isBetween(0, 4);
			executor.forThreads((thread, colocation) -> {
			});
			assertThat(forks.restores.get()).isBetween(2, 6);
		}
		finally {
			REQUEST.remove();
		}
	}

	@Test
	void aWorkerKeepsNothingOfTheForkBeforeWhenTheNextForkHasNoContext() {
		RequestForks forks = new RequestForks();
		try (Executor executor = executor(null, forks)) {
			REQUEST.set("request-3");
			executor.forThreads((thread, colocation) -> {
			});
			REQUEST.remove();
			AtomicReferenceArray<String> seen = new AtomicReferenceArray<>(executor.threads());
			executor.forThreads((thread, colocation) -> seen.set(thread, String.valueOf(REQUEST.get())));
			assertEvery(seen, "null");
		}
	}

	@Test
	void aScopeIsClosedOnTheWorkerWhenItsPartThrows() {
		RequestForks forks = new RequestForks();
		try (Executor executor = executor(null, forks)) {
			REQUEST.set("request-4");
			assertThatThrownBy(() -> executor.forThreads((thread, colocation) -> {
				throw new IllegalStateException("part " + thread + " failed");
			})).isInstanceOf(IllegalStateException.class);
			REQUEST.remove();
			AtomicReferenceArray<String> seen = new AtomicReferenceArray<>(executor.threads());
			executor.forThreads((thread, colocation) -> seen.set(thread, String.valueOf(REQUEST.get())));
			assertEvery(seen, "null");
		}
	}

	@Test
	void aForkNestedInATaskRunsInlineAndRestoresNothingMore() {
		RequestForks forks = new RequestForks();
		try (Executor executor = executor(null, forks)) {
			REQUEST.set("request-5");
			AtomicReferenceArray<String> inner = new AtomicReferenceArray<>(executor.threads() * 4);
			executor.forThreads((thread, colocation) -> executor.forN(4,
					(index, same, sameColocation) -> inner.set(thread * 4 + index, REQUEST.get())));
			assertEvery(inner, "request-5");
			assertThat(forks.restores.get()).isEqualTo(executor.threads() - 1);
		}
		finally {
			REQUEST.remove();
		}
	}

	@Test
	void aDeferredCallSeesTheSubmittersValueAndTheDeferredThreadKeepsNothing() throws Exception {
		RequestDeferredCalls deferred = new RequestDeferredCalls();
		try (Executor executor = executor(deferred, null)) {
			REQUEST.set("request-6");
			assertThat(executor.defer(REQUEST::get).get(10, TimeUnit.SECONDS)).isEqualTo("request-6");
			REQUEST.remove();
			// The next call, submitted without a value, runs on the same deferred thread.
			assertThat(executor.defer(() -> String.valueOf(REQUEST.get())).get(10, TimeUnit.SECONDS)).isEqualTo("null");
			executor.drain();
			assertThat(deferred.completions).containsExactly("returned", "returned");
		}
	}

	@Test
	void aDeferredCallThatThrowsAnErrorIsHeardWithTheError() throws Exception {
		RequestDeferredCalls deferred = new RequestDeferredCalls();
		try (Executor executor = executor(deferred, null)) {
			StackOverflowError error = new StackOverflowError("deep model");
			CompletableFuture<Object> future = executor.defer(() -> {
				throw error;
			});
			assertThat(future).failsWithin(Duration.ofSeconds(10));
			executor.drain();
			assertThat(deferred.completions).containsExactly(error);
		}
	}

	@Test
	void aCallCancelledBeforeItStartsNeverOpensAndIsHeardAsCancelled() throws Exception {
		RequestDeferredCalls deferred = new RequestDeferredCalls();
		try (Executor executor = executor(deferred, null)) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> blocker = executor.defer(() -> ExecutorForkTest.awaitQuietly(release));
			CompletableFuture<String> queued = executor.defer(() -> "never");
			assertThat(queued.cancel(false)).isTrue();
			release.countDown();
			blocker.get(10, TimeUnit.SECONDS);
			executor.drain();
			assertThat(deferred.opens.get()).isEqualTo(1);
			assertThat(deferred.completions).hasSize(2).contains("returned")
				.anySatisfy((completion) -> assertThat(completion).isInstanceOf(CancellationException.class));
		}
	}

	@Test
	void aRefusedCallIsHeardWithTheRefusalAndNeverOpens() throws Exception {
		RequestDeferredCalls deferred = new RequestDeferredCalls();
		try (Executor executor = executor(deferred, null)) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> first = executor.defer(() -> ExecutorForkTest.awaitQuietly(release));
			CompletableFuture<Void> second = executor.defer(() -> ExecutorForkTest.awaitQuietly(release));
			assertThatThrownBy(() -> executor.defer(() -> "refused", Duration.ZERO)).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT));
			release.countDown();
			CompletableFuture.allOf(first, second).get(10, TimeUnit.SECONDS);
			executor.drain();
			assertThat(deferred.opens.get()).isEqualTo(2);
			assertThat(deferred.completions).hasSize(3)
				.anySatisfy((completion) -> assertThat(completion).isInstanceOf(UformException.class));
		}
	}

	@Test
	void aDecoratorThatReturnsNothingLeavesTheCallAsItIs() throws Exception {
		AtomicReference<Executor> seen = new AtomicReference<>();
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2),
				ExecutorHooks.NONE.withDeferredCalls((submittedTo) -> {
					seen.set(submittedTo);
					return null;
				}))) {
			assertThat(executor.defer(() -> 42).get(10, TimeUnit.SECONDS)).isEqualTo(42);
			assertThat(seen.get()).isSameAs(executor);
		}
	}

	@Test
	void aTimedOutFreeNamesTheApplicationsCallNotTheDecoration() throws Exception {
		Executor executor = executor(new RequestDeferredCalls(), null);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(new ExecutorShutdownTest.StuckCall(running, release));
		running.await();
		try {
			assertThatThrownBy(() -> executor.free(Duration.ZERO)).isInstanceOf(UformException.class)
				.hasMessageContaining("deferred call #1 (" + ExecutorShutdownTest.StuckCall.class.getName() + ")");
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void missingHooksAreRefusedNamingTheFix() {
		assertThatThrownBy(() -> Executor.forRam(ExecutorForRamConfig.defaults(), (ExecutorHooks) null))
			.isInstanceOf(UformException.class)
			.hasMessageContaining("hooks")
			.hasMessageContaining("ExecutorHooks.NONE");
	}

	private static void assertEvery(AtomicReferenceArray<String> seen, String expected) {
		for (int i = 0; i < seen.length(); i++) {
			assertThat(seen.get(i)).as("index %d", i).isEqualTo(expected);
		}
	}
}
