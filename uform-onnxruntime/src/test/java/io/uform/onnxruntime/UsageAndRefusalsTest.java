package io.uform.onnxruntime;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an embeddings API reports and counts: {@code embedCounted} answers the vectors {@code embed}
 * does with the tokens the batch fed the model, and the listener hears every refusal, made on the
 * caller's thread, once.
 */
@Timeout(120)
class UsageAndRefusalsTest {

	@Test
	void embedCountedAnswersTheSameVectorsWithTheTokensTheListenerHeard() {
		List<EmbeddingBatch> batches = new CopyOnWriteArrayList<>();
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withListener(batches::add))) {
			Embeddings counted = model.embedCounted(List.of("uform", "executors own threads"));
			assertThat(counted.vectors()).isDeepEqualTo(model.embed(List.of("uform", "executors own threads")));
			// [CLS] u ##form [SEP]: four tokens, special tokens included.
			assertThat(model.embedCounted(List.of("uform")).tokens()).isEqualTo(4);
			assertThat(batches.get(0).tokens()).isEqualTo(counted.tokens());
		}
		finally {
			assertThat(batches).hasSize(3);
		}
	}

	@Test
	void everyRefusalIsHeardOnceBeforeTheCallerGetsIt() {
		List<String> refused = new CopyOnWriteArrayList<>();
		EmbeddingListener listener = new EmbeddingListener() {

			@Override
			public void embedded(EmbeddingBatch batch) {
			}

			@Override
			public void refused(String model, EmbeddingRefusedException refusal) {
				refused.add(model + ": " + refusal.getMessage());
			}
		};
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withMaxTokens(8).withListener(listener))) {
			assertThatThrownBy(() -> model.embed(" ")).isInstanceOf(EmbeddingRefusedException.class);
			assertThatThrownBy(() -> model.embed("word ".repeat(20))).isInstanceOf(EmbeddingRefusedException.class);
			assertThatThrownBy(() -> model.embed(List.of())).isInstanceOf(EmbeddingRefusedException.class);
			assertThat(model.embed("uform")).hasSize(MiniLm.DIMENSIONS);
		}
		assertThat(refused).hasSize(3).allSatisfy((line) -> assertThat(line).startsWith("all-minilm-l6-v2-q: "));
		assertThat(refused.get(1)).contains("tokens long");
	}
}
