package io.uform.host;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runner's take of the next call allocates (the lock's and the condition's queue nodes), so it can
 * run out of memory between two calls; a child JVM once saw the runner die of that, leaving every later
 * call's future pending. No heap can be filled at exactly that moment on purpose, so the take is made
 * to throw through the hook its package-private constructor takes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DeferredCallsTakeFailureTest {

	@Test
	void outOfMemoryWhileTakingTheNextCallLeavesTheRunnerServing() throws Exception {
		AtomicBoolean stopped = new AtomicBoolean();
		AtomicBoolean armed = new AtomicBoolean();
		AtomicInteger failuresLeft = new AtomicInteger(3);
		AtomicInteger thrown = new AtomicInteger();
		Runnable beforeTake = () -> {
			if (armed.get() && failuresLeft.getAndDecrement() > 0) {
				thrown.incrementAndGet();
				throw new OutOfMemoryError("simulated: no room for the condition's queue node");
			}
		};
		DeferredCalls calls = new DeferredCalls("take-oom", 4, () -> false, () -> stopped.set(true), null, Thread::start,
				beforeTake, Fixtures.ERRORS);
		try {
			assertThat(calls.submit(() -> "first", null).get(5, TimeUnit.SECONDS)).isEqualTo("first");
			armed.set(true);
			// The take after this call throws three times before it waits.
			assertThat(calls.submit(() -> "second", null).get(5, TimeUnit.SECONDS)).isEqualTo("second");
			CompletableFuture<String> third = calls.submit(() -> "third", null);
			assertThat(third.get(5, TimeUnit.SECONDS)).isEqualTo("third");
			assertThat(thrown.get()).isEqualTo(3);
			assertThat(stopped).isFalse();
			assertThat(calls.counts().completed()).isEqualTo(3);
		}
		finally {
			calls.shutdown();
			assertThat(calls.awaitTermination(System.nanoTime() + Duration.ofSeconds(5).toNanos())).isTrue();
		}
		assertThat(stopped).isTrue();
	}
}
