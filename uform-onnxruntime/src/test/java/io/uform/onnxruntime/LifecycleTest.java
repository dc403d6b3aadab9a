package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.UformException;

/**
 * Close under load: many callers, a close mid-flight, no crash (closing a session under a running
 * call is a SIGSEGV), every caller answered or refused clearly; and the executor freed under a model.
 */
@Timeout(120)
class LifecycleTest {

	private static final int CALLERS = 12;

	@Test
	void closeMidFlightWaitsForCallsInFlightAndRefusesLaterOnesClearly() throws Exception {
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 4))) {
			TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS);
			AtomicInteger answered = new AtomicInteger();
			Map<String, Integer> outcomes = new ConcurrentHashMap<>();
			CountDownLatch running = new CountDownLatch(CALLERS);
			List<Thread> callers = new ArrayList<>();
			for (int c = 0; c < CALLERS; c++) {
				List<String> texts = (c % 2 == 0) ? MiniLm.TEXTS : List.of(MiniLm.TEXTS.get(c % MiniLm.TEXTS.size()));
				Thread caller = new Thread(() -> {
					running.countDown();
					while (true) {
						try {
							float[][] vectors = model.embed(texts);
							assertThat(vectors.length).isEqualTo(texts.size());
							answered.incrementAndGet();
						}
						catch (IllegalStateException ex) {
							outcomes.merge(ex.getMessage(), 1, Integer::sum);
							return;
						}
						catch (RuntimeException | Error ex) {
							outcomes.merge("unexpected: " + ex, 1, Integer::sum);
							return;
						}
					}
				}, "caller-" + c);
				caller.start();
				callers.add(caller);
			}
			running.await();
			while (answered.get() < CALLERS) {
				Thread.sleep(5);
			}
			model.close();
			for (Thread caller : callers) {
				caller.join();
			}
			assertThat(outcomes).containsOnlyKeys(
					"model 'all-minilm-l6-v2-q' is closed; nothing more can be embedded with it (load it again to use it)");
			assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CALLERS);
			model.close();
			assertThatThrownBy(() -> model.embed("GPU")).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("is closed");
			// The executor is unharmed.
			executor.forN(4, i -> {
			});
		}
	}

	@Test
	void aCallerInterruptedWhileItsRequestWaitsGetsTheInterruptedErrorAndTheModelStaysUsable() throws Exception {
		List<EmbeddingBatch> batches = new java.util.concurrent.CopyOnWriteArrayList<>();
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withListener(batches::add))) {
			CountDownLatch release = new CountDownLatch(1);
			var blocker = executor.defer(() -> {
				release.await();
				return null;
			});
			Map<String, Object> outcome = new ConcurrentHashMap<>();
			Thread caller = new Thread(() -> {
				try {
					model.embed("GPU");
					outcome.put("answered", true);
				}
				catch (UformException ex) {
					outcome.put("status", ex.status());
					outcome.put("interrupt kept", Thread.currentThread().isInterrupted());
				}
			}, "interrupted-caller");
			caller.start();
			while (executor.statistics().deferredInFlight() < 2) {
				Thread.sleep(5);
			}
			caller.interrupt();
			caller.join();
			release.countDown();
			blocker.get();
			assertThat(outcome).containsEntry("status", UformException.Status.INTERRUPTED)
				.containsEntry("interrupt kept", true);
			assertThat(model.embed("uform")).hasSize(MiniLm.DIMENSIONS);
			ConcurrentCallersTest.settle(executor);
			assertThat(batches).as("the withdrawn request was not embedded for nobody").hasSize(1);
			// Leaving the block closes the model: it returns, since the interrupted caller left it.
		}
	}

	@Test
	void aRequestOnAFreedExecutorFailsWithTheExecutorsOwnError() {
		Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
		try (TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS)) {
			assertThat(model.embed("GPU")).hasSize(MiniLm.DIMENSIONS);
			executor.free();
			for (List<String> texts : List.of(List.of("GPU"), MiniLm.TEXTS)) {
				assertThatThrownBy(() -> model.embed(texts)).isInstanceOfSatisfying(UformException.class,
						ex -> assertThat(ex.status()).isEqualTo(UformException.Status.FREED));
			}
			assertThatThrownBy(() -> TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS))
				.isInstanceOfSatisfying(UformException.class,
						ex -> assertThat(ex.status()).isEqualTo(UformException.Status.FREED))
				.hasMessageContaining("load model 'all-minilm-l6-v2-q' on a running executor");
		}
	}

	@Test
	void freeingTheExecutorUnderLoadAnswersEveryCallerWithVectorsOrTheFreedError() throws Exception {
		Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 4));
		try (TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS)) {
			AtomicInteger answered = new AtomicInteger();
			Map<String, Integer> failures = new ConcurrentHashMap<>();
			List<Thread> callers = new ArrayList<>();
			for (int c = 0; c < CALLERS; c++) {
				String text = MiniLm.TEXTS.get(c % MiniLm.TEXTS.size());
				Thread caller = new Thread(() -> {
					while (true) {
						try {
							model.embed(text);
							answered.incrementAndGet();
						}
						catch (UformException ex) {
							failures.merge(ex.status().name(), 1, Integer::sum);
							return;
						}
						catch (RuntimeException | Error ex) {
							failures.merge("unexpected: " + ex, 1, Integer::sum);
							return;
						}
					}
				}, "caller-" + c);
				caller.start();
				callers.add(caller);
			}
			while (answered.get() < CALLERS) {
				Thread.sleep(5);
			}
			executor.free();
			for (Thread caller : callers) {
				caller.join();
			}
			assertThat(failures).containsOnlyKeys("FREED");
		}
	}
}
