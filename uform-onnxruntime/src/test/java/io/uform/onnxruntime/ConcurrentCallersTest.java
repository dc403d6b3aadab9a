package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.UformException;

/** Callers that arrive together are embedded together, each getting its own vectors. */
@Timeout(120)
class ConcurrentCallersTest {

	private static final int CALLERS = 32;

	@Test
	void callersWaitingTogetherAreServedByOneBatchEachWithItsOwnVectors() throws Exception {
		List<EmbeddingBatch> batches = new CopyOnWriteArrayList<>();
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withListener(batches::add))) {
			ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
			List<String> texts = new ArrayList<>();
			List<float[]> alone = new ArrayList<>();
			for (int i = 0; i < CALLERS; i++) {
				texts.add(MiniLm.TEXTS.get(i % MiniLm.TEXTS.size()) + " (caller " + i + ")");
				alone.add(model.embed(texts.get(i)));
			}
			settle(executor);
			batches.clear();
			// Hold the deferred thread so that every caller queues behind it.
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> blocker = executor.defer(() -> {
				release.await();
				return null;
			});
			List<Future<float[]>> answers = new ArrayList<>();
			for (int i = 0; i < CALLERS; i++) {
				String text = texts.get(i);
				answers.add(callers.submit(() -> model.embed(text)));
			}
			while (executor.statistics().deferredInFlight() < CALLERS + 1) {
				Thread.sleep(5);
			}
			release.countDown();
			blocker.get();
			for (int i = 0; i < CALLERS; i++) {
				assertThat(answers.get(i).get()).as("caller %d", i).containsExactly(alone.get(i));
			}
			settle(executor);
			assertThat(batches).as("the first call takes every waiting request; the other calls, spares now, find nothing left")
				.hasSize(1);
			assertThat(batches.get(0).requests()).isEqualTo(CALLERS);
			assertThat(batches.get(0).texts()).isEqualTo(CALLERS);
			assertThat(executor.statistics().deferredCompleted()).isGreaterThanOrEqualTo(CALLERS + 1);
			callers.shutdown();
		}
	}

	/**
	 * Waits until no deferred call is in flight: the listener hears a batch after its callers have
	 * their vectors, still inside the deferred call.
	 */
	static void settle(Executor executor) throws InterruptedException {
		while (executor.statistics().deferredInFlight() > 0) {
			Thread.sleep(5);
		}
	}

	@Test
	void theTokenBudgetSplitsWaitingCallersOverSeveralBatches() throws Exception {
		List<EmbeddingBatch> batches = new CopyOnWriteArrayList<>();
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withMaxBatchTokens(40).withListener(batches::add))) {
			ExecutorService callers = Executors.newFixedThreadPool(8);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> blocker = executor.defer(() -> {
				release.await();
				return null;
			});
			List<Future<float[]>> answers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				// [CLS] a b c d e f g h [SEP]: 10 tokens each, so 4 fit the budget of 40
				String text = "a b c d e f g " + (char) ('h' + i);
				answers.add(callers.submit(() -> model.embed(text)));
			}
			while (executor.statistics().deferredInFlight() < 9) {
				Thread.sleep(5);
			}
			release.countDown();
			blocker.get();
			for (Future<float[]> answer : answers) {
				assertThat(answer.get()).hasSize(MiniLm.DIMENSIONS);
			}
			settle(executor);
			assertThat(batches).extracting(EmbeddingBatch::requests).containsExactly(4, 4);
			assertThat(batches).extracting(EmbeddingBatch::tokens).containsExactly(40L, 40L);
			callers.shutdown();
		}
	}

	@Test
	void aRequestThatArrivesWhileABatchRunsJoinsItInsteadOfWaitingForItsEnd() throws Exception {
		List<EmbeddingBatch> batches = new CopyOnWriteArrayList<>();
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withListener(batches::add))) {
			float[] alone = model.embed(MiniLm.TEXTS.get(1));
			settle(executor);
			batches.clear();
			// The first request's only text holds its session call until the second request is queued.
			CountDownLatch started = new CountDownLatch(1);
			CountDownLatch queued = new CountDownLatch(1);
			model.sessions().get(0).probe = (thread) -> {
				if (started.getCount() > 0) {
					started.countDown();
					try {
						queued.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
			};
			ExecutorService callers = Executors.newFixedThreadPool(2);
			Future<float[]> first = callers.submit(() -> model.embed(MiniLm.TEXTS.get(0)));
			started.await();
			Future<float[]> second = callers.submit(() -> model.embed(MiniLm.TEXTS.get(1)));
			while (executor.statistics().deferredInFlight() < 2) {
				Thread.sleep(1);
			}
			queued.countDown();
			assertThat(first.get()).hasSize(MiniLm.DIMENSIONS);
			assertThat(second.get()).containsExactly(alone);
			settle(executor);
			assertThat(batches).as("the running call took the second request; its own call, a spare now, found nothing left")
				.extracting(EmbeddingBatch::requests).containsExactly(2);
			callers.shutdown();
		}
	}

	@Test
	void aSaturatedExecutorRefusesWithItsOwnErrorAndTheRequestIsNotServedLater() throws Exception {
		List<EmbeddingBatch> batches = new CopyOnWriteArrayList<>();
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 1));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withSlotWait(Duration.ZERO).withListener(batches::add))) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> blocker = executor.defer(() -> {
				release.await();
				return null;
			});
			assertThatThrownBy(() -> model.embed("GPU")).isInstanceOfSatisfying(UformException.class,
					ex -> assertThat(ex.status()).isEqualTo(UformException.Status.TIMEOUT));
			release.countDown();
			blocker.get();
			assertThat(model.embed("uform")).hasSize(MiniLm.DIMENSIONS);
			settle(executor);
			assertThat(batches).as("the refused request was withdrawn, not embedded for nobody").hasSize(1);
			assertThat(batches.get(0).requests()).isEqualTo(1);
		}
	}
}
