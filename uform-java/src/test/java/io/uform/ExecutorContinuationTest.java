package io.uform;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code drain()} and {@code free()} from a continuation of a deferred call's future. One attached
 * before the call finished runs as the call completes, and the call counts as finished only once it
 * returns: waiting there for the executor's calls would wait for itself, for ever, and left the
 * executor stuck in {@code DRAINING}. It is refused; the {@code ...Async} form works.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorContinuationTest {

	@Test
	void drainInAContinuationIsRefusedInsteadOfWaitingForItself() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			CountDownLatch go = new CountDownLatch(1);
			CompletableFuture<Integer> call = executor.defer(() -> {
				go.await();
				return 1;
			});
			CompletableFuture<Boolean> drained = call.thenApply((value) -> executor.drain(Mood.PARKED,
					java.time.Duration.ofSeconds(30)));
			go.countDown();
			assertThatThrownBy(() -> drained.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.cause()
				.isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
				.hasMessageContaining("drain() was called from a continuation of a deferred call")
				.hasMessageContaining("would wait for itself")
				.hasMessageContaining("thenRunAsync");
			assertThat(executor.drain(Mood.PARKED, java.time.Duration.ofSeconds(10))).isTrue();
			assertThat(executor.statistics().state()).isEqualTo(Executor.State.RUNNING);
			assertThat(executor.defer(() -> "still serving").get(10, TimeUnit.SECONDS)).isEqualTo("still serving");
		}
	}

	@Test
	void aContinuationOfACallDroppedByAFreeMayFreeTheExecutorToo() throws Exception {
		// Nothing waits for a dropped call's count, so its cleanup may free: it waits for the free under way.
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		executor.defer(() -> {
			running.countDown();
			release.await();
			return 1;
		});
		running.await();
		java.util.concurrent.atomic.AtomicReference<Throwable> inContinuation = new java.util.concurrent.atomic.AtomicReference<>();
		CountDownLatch continuationDone = new CountDownLatch(1);
		executor.defer(() -> 2).whenComplete((value, failure) -> {
			try {
				executor.free();
			}
			catch (Throwable ex) {
				inContinuation.set(ex);
			}
			finally {
				continuationDone.countDown();
			}
		});
		try {
			assertThatThrownBy(() -> executor.free(java.time.Duration.ofMillis(200))).isInstanceOf(UformException.class)
				.hasMessageContaining("1 queued call(s) were dropped");
		}
		finally {
			release.countDown();
		}
		assertThat(continuationDone.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(inContinuation.get()).isNull();
	}

	@Test
	void aContinuationOfOneExecutorDrainsAnother() throws Exception {
		try (Executor a = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
				Executor b = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			b.defer(() -> 1);
			CompletableFuture<Boolean> drained = a.defer(() -> 1)
				.thenApply((value) -> b.drain(Mood.PARKED, java.time.Duration.ofSeconds(5)));
			assertThat(drained.get(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void freeInAContinuationIsRefusedAndTheAsyncFormFreesTheExecutor() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch go = new CountDownLatch(1);
		CompletableFuture<Integer> call = executor.defer(() -> {
			go.await();
			return 1;
		});
		CompletableFuture<Integer> freedInside = call.whenComplete((value, failure) -> executor.free());
		CompletableFuture<Integer> freedAfter = call.whenCompleteAsync((value, failure) -> executor.free());
		go.countDown();
		assertThatThrownBy(() -> freedInside.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(UformException.class)
			.hasMessageContaining("free() was called from a continuation of a deferred call");
		assertThat(freedAfter.get(10, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
	}
}
