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
