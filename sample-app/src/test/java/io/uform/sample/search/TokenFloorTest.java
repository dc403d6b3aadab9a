package io.uform.sample.search;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.onnxruntime.EmbeddingRefusedException;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.embedding.MiniLm;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token floor never exceeds what the model's tokenizer counts, or a text that fits would be
 * refused: checked on every paragraph of the project's docs and on text built to trip it (punctuation
 * runs, CJK, control and format characters, non-breaking and other Unicode spaces, accents).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TokenFloorTest {

	@Test
	void theFloorIsNeverAboveTheTokenizersCount() throws IOException {
		List<String> texts = new ArrayList<>(List.of("", " ", "a", "a,b", "...!!!", "naïve café résumé",
				"深度学习模型 and 日本語のテキスト", "a\u0001b\u0000c\u200bd\u00ad e", "a\u00a0b\u2003c\u3000d",
				"x".repeat(16_384), "emoji 😀😀 🚀 done", "don't stop-the (music) [now] {ok} <tag> @home #1 $5 %50 ^_^ ~ `q`",
				"Ünïcödé «quotes» “curly” ‘single’ — dash – en … ellipsis", "tokenization ".repeat(50)));
		try (Stream<Path> docs = Files.walk(Path.of("../docs"))) {
			for (Path doc : docs.filter((path) -> path.toString().endsWith(".md")).toList()) {
				texts.addAll(List.of(Files.readString(doc).split("\n\n")));
			}
		}
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
				TextEmbeddingModel model = MiniLm.load(executor, 1, null)) {
			int counted = 0;
			for (String text : texts) {
				int tokens = tokens(model, text);
				if (tokens >= 0) {
					assertThat(TokenFloor.of(text)).as(text).isLessThanOrEqualTo(tokens);
					counted++;
				}
			}
			assertThat(counted).as("texts the tokenizer counted").isGreaterThan(200);
		}
		assertThat(texts).hasSizeGreaterThan(200);
	}

	/** The tokenizer's count: the model's, or its refusal's for a text too long; -1 for a blank one. */
	private static int tokens(TextEmbeddingModel model, String text) {
		try {
			return model.embedDetailed(List.of(text)).tokens()[0];
		}
		catch (EmbeddingRefusedException ex) {
			return ex.tokens();
		}
	}

	@Test
	void theFloorCountsWordsPunctuationAndIdeographs() {
		assertThat(TokenFloor.of("")).isEqualTo(2);
		assertThat(TokenFloor.of("how many threads?")).isEqualTo(2 + 3 + 1);
		assertThat(TokenFloor.of("a,b")).isEqualTo(2 + 3);
		assertThat(TokenFloor.of("深度学习")).isEqualTo(2 + 4);
		assertThat(TokenFloor.of("word ".repeat(300))).isEqualTo(302);
	}
}
