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
	void aRequestOnAFreedExecutorFailsWithTheExecutorsOwnError() {
		Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
		try (TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS)) {
			assertThat(model.embed("GPU")).hasSize(MiniLm.DIMENSIONS);
			executor.free();
			for (List<String> texts : List.of(List.of("GPU"), MiniLm.TEXTS)) {
				assertThatThrownBy(() -> model.embed(texts)).isInstanceOfSatisfying(UformException.class,
						ex -> assertThat(ex.status()).isEqualTo(UformException.Status.FREED));
			}
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
