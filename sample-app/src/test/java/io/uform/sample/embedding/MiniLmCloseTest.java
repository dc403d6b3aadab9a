package io.uform.sample.embedding;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Closing the model while other threads embed with it: the shutdown of a context whose index was still
 * being built closed the ONNX session under a running call, and the JVM died of a SIGSEGV in ONNX
 * Runtime. A close now waits for the calls in flight, and a call after it fails in Java.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MiniLmCloseTest {

	@Test
	void aCloseWaitsForTheEmbedsInFlightAndLaterOnesFailInJava() throws Exception {
		MiniLm model = MiniLm.load();
		long[] ids = model.truncate(model.tokenize("the executor owns the threads; the model owns the weights"));
		CountDownLatch embedding = new CountDownLatch(2);
		AtomicInteger embedded = new AtomicInteger();
		AtomicReference<Throwable> unexpected = new AtomicReference<>();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 2; t++) {
			Thread thread = new Thread(() -> {
				try {
					while (true) {
						assertThat(model.embed(ids)).hasSize(MiniLm.DIMENSIONS);
						embedded.incrementAndGet();
						embedding.countDown();
					}
				}
				catch (IllegalStateException ex) {
					if (!ex.getMessage().contains("was closed")) {
						unexpected.compareAndSet(null, ex);
					}
				}
				catch (Throwable ex) {
					unexpected.compareAndSet(null, ex);
				}
			}, "embedder-" + t);
			thread.start();
			threads.add(thread);
		}
		assertThat(embedding.await(30, TimeUnit.SECONDS)).as("both threads embedded").isTrue();
		model.close();
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(30));
			assertThat(thread.isAlive()).as(thread.getName() + " stopped").isFalse();
		}
		assertThat(unexpected.get()).isNull();
		assertThat(embedded.get()).isGreaterThanOrEqualTo(2);
		assertThatIllegalStateException().isThrownBy(() -> model.embed(ids)).withMessageContaining("was closed");
		assertThatIllegalStateException().isThrownBy(() -> model.tokenize("after")).withMessageContaining("was closed");
		model.close();
	}
}
