package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

@Timeout(120)
class TextEmbeddingModelTest {

	private static Executor executor;

	private static TextEmbeddingModel model;

	@BeforeAll
	static void load() {
		executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
		model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS);
	}

	@AfterAll
	static void free() {
		model.close();
		executor.free();
	}

	@Test
	void aTextsVectorIsTheSameBitForBitAloneOrInAnyBatch() {
		float[][] batched = model.embed(MiniLm.TEXTS);
		List<String> reversed = new ArrayList<>(MiniLm.TEXTS);
		java.util.Collections.reverse(reversed);
		float[][] backwards = model.embed(reversed);
		for (int i = 0; i < MiniLm.TEXTS.size(); i++) {
			float[] alone = model.embed(MiniLm.TEXTS.get(i));
			assertThat(batched[i]).as("text %d in a batch", i).containsExactly(alone);
			assertThat(backwards[MiniLm.TEXTS.size() - 1 - i]).as("text %d in the reversed batch", i).containsExactly(alone);
		}
	}

	@Test
	void vectorsHaveTheModelsDimensionsAndUnitLength() {
		assertThat(model.dimensions()).isEqualTo(MiniLm.DIMENSIONS);
		for (float[] vector : model.embed(MiniLm.TEXTS)) {
			assertThat(vector).hasSize(MiniLm.DIMENSIONS);
			double squares = 0;
			for (float x : vector) {
				squares += x * x;
			}
			assertThat(Math.sqrt(squares)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
		}
	}

	@Test
	void aDetailedRequestTellsEachTextsTokensAndTheBatchThatServedIt() {
		Embeddings embedded = model.embedDetailed(List.of("uform", "GPU executors"));
		// Word pieces and [CLS] and [SEP], as the model's tokenizer.json splits these two texts
		assertThat(embedded.tokens()).containsExactly(4, 8);
		assertThat(embedded.totalTokens()).isEqualTo(12);
		assertThat(embedded.batch().texts()).isEqualTo(2);
		assertThat(embedded.batch().tokens()).isEqualTo(12);
		assertThat(embedded.batch().model()).isEqualTo("all-minilm-l6-v2-q");
		assertThat(embedded.vectors()[1]).containsExactly(model.embed("GPU executors"));
	}

	@Test
	void refusalsNameTheTextAndHappenBeforeAnythingIsQueued() {
		assertThatThrownBy(() -> model.embed((String) null)).isInstanceOf(EmbeddingRefusedException.class)
			.hasMessageContaining("the text is null");
		assertThatThrownBy(() -> model.embed(List.of())).isInstanceOf(EmbeddingRefusedException.class)
			.hasMessageContaining("no texts");
		assertThatThrownBy(() -> model.embed(List.of("fine", " "))).isInstanceOf(EmbeddingRefusedException.class)
			.hasMessageContaining("texts[1] is blank");
		assertThatThrownBy(() -> model.embed("word ".repeat(300))).isInstanceOf(EmbeddingRefusedException.class)
			.hasMessageContaining("302 tokens long").hasMessageContaining("at most 256");
		List<String> many = java.util.Collections.nCopies(MiniLm.OPTIONS.maxTexts() + 1, "a");
		assertThatThrownBy(() -> model.embed(many)).isInstanceOf(EmbeddingRefusedException.class)
			.hasMessageContaining("1025 texts");
	}
}
