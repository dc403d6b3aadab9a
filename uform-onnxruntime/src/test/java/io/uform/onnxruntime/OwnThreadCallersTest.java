package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.DeferredCallExecutor;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * A model called from its executor's own threads (a deferred call, an {@code @Async} task on the
 * executor's view, a task of a fork) embeds inline there: a call deferred from such a thread would
 * queue behind the very work that waits for it, and the executor would hang for good. Each case
 * waits a bounded time, so the old behaviour fails rather than hangs the build.
 */
@Timeout(60)
class OwnThreadCallersTest {

	@Test
	void aDeferredCallOfTheExecutorEmbedsInlineAndGetsTheVectorsAnOutsideCallerGets() throws Exception {
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 4));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS)) {
			float[][] outside = model.embed(MiniLm.TEXTS);
			float[][] inside = executor.defer(() -> model.embed(MiniLm.TEXTS)).get(20, TimeUnit.SECONDS);
			assertThat(inside).isDeepEqualTo(outside);
		}
	}

	@Test
	void aTaskOnTheExecutorsViewEmbedsInlineAndTheExecutorServesOthersAfterwards() throws Exception {
		List<EmbeddingBatch> heard = new CopyOnWriteArrayList<>();
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 4));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withListener(heard::add))) {
			DeferredCallExecutor view = DeferredCallExecutor.of(executor);
			float[] async = CompletableFuture.supplyAsync(() -> model.embed("an @Async embedding"), view)
				.get(20, TimeUnit.SECONDS);
			assertThat(async).containsExactly(model.embed("an @Async embedding"));
			// The inline batch is heard as any batch: one request, one text.
			assertThat(heard.get(0).texts()).isEqualTo(1);
			assertThat(heard.get(0).requests()).isEqualTo(1);
		}
	}

	@Test
	void everyThreadOfAForkEmbedsInlineWithItsOwnSession() throws Exception {
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 4));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS)) {
			float[][] outside = model.embed(MiniLm.TEXTS.subList(0, 2));
			float[][] perThread = new float[2][];
			// From the test thread (the fork's caller) and from the deferred thread alike.
			executor.forThreads((thread, colocation) -> perThread[thread] = model.embed(MiniLm.TEXTS.get(thread)));
			assertThat(perThread).isDeepEqualTo(outside);
			float[][] deferred = new float[2][];
			executor.defer(() -> executor.forThreads(
					(thread, colocation) -> deferred[thread] = model.embed(MiniLm.TEXTS.get(thread))))
				.get(20, TimeUnit.SECONDS);
			assertThat(deferred).isDeepEqualTo(outside);
		}
	}
}
