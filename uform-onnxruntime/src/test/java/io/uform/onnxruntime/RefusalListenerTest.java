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
 * The listener hears every refusal, made on the caller's thread, once, before the caller gets it; a
 * listener that throws does not change what the caller gets.
 */
@Timeout(120)
class RefusalListenerTest {

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

	@Test
	void aListenerThatThrowsOnARefusalLeavesTheCallerItsRefusal() {
		EmbeddingListener throwing = new EmbeddingListener() {

			@Override
			public void embedded(EmbeddingBatch batch) {
			}

			@Override
			public void refused(String model, EmbeddingRefusedException refusal) {
				throw new IllegalStateException("listener broke");
			}
		};
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withListener(throwing))) {
			assertThatThrownBy(() -> model.embed(" ")).isInstanceOf(EmbeddingRefusedException.class)
				.satisfies((refusal) -> assertThat(refusal.getSuppressed()).singleElement()
					.hasFieldOrPropertyWithValue("message", "listener broke"));
		}
	}
}
