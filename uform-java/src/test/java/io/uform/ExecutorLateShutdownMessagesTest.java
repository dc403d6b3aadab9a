package io.uform;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a late shutdown (the Spring starter's: {@code refuseDeferred(period)}, then {@code free} without
 * waiting) tells the calls it gives up on: a dropped call names the period the calls had, not
 * {@code free(PT0S)}, and a call still running is told to return, not to make a new executor.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorLateShutdownMessagesTest {

	@Test
	void aCallDroppedAfterARefusalThatRanOutNamesThatPeriodNotAZeroFree() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		executor.defer(() -> {
			running.countDown();
			release.await();
			return null;
		});
		CompletableFuture<Object> queued = executor.defer(() -> "never");
		running.await();
		try {
			assertThat(executor.refuseDeferred(Duration.ofMillis(100))).isFalse();
			assertThatThrownBy(() -> executor.free(Duration.ZERO)).isInstanceOfSatisfying(UformException.class,
					(ex) -> assertThat(ex.getMessage())
						.contains("was freed without waiting for its work after refuseDeferred(PT0.1S) had given it that long"));
			assertThatThrownBy(queued::get).isInstanceOf(ExecutionException.class)
				.cause()
				.hasMessageContaining("the calls had PT0.1S to finish (refuseDeferred(PT0.1S)")
				.hasMessageNotContaining("PT0S");
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aCallStillRunningWhenTheExecutorIsFreedIsToldToReturnNotToMakeANewExecutor() throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicReference<Throwable> forkFailure = new AtomicReference<>();
		CompletableFuture<Object> stuck = executor.defer(() -> {
			running.countDown();
			release.await();
			try {
				executor.forN(4, (int index) -> {
				});
			}
			catch (Throwable ex) {
				forkFailure.set(ex);
			}
			return null;
		});
		running.await();
		assertThatThrownBy(() -> executor.free(Duration.ZERO)).isInstanceOf(UformException.class);
		release.countDown();
		stuck.get(10, TimeUnit.SECONDS);
		assertThat(forkFailure.get()).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(Status.FREED);
			assertThat(ex.getMessage()).contains("was freed while this deferred call was still running")
				.contains("return from the call")
				.doesNotContain("make a new executor");
		});
	}
}
