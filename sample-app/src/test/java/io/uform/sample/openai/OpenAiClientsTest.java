package io.uform.sample.openai;

import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.exception.ModelNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.ai.openai.OpenAiEmbeddingModel;
import org.springframework.ai.openai.OpenAiEmbeddingOptions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.embedding.MiniLm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Real OpenAI clients pointed at the running sample get exactly the vectors the model gives: Spring
 * AI's {@code OpenAiEmbeddingModel} (on OpenAI's Java SDK, which asks for base64 and decodes it) and
 * langchain4j's {@code OpenAiEmbeddingModel} (floats); an unknown model is langchain4j's
 * {@code ModelNotFoundException}. (Same properties as {@code TextSearchApiTest}: one application.)
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.corpus.path=src/test/resources/corpus", "sample.corpus.batch-size=3",
				"uform.models.all-minilm-l6-v2-q.max-texts=4", "uform.ram.threads=2" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenAiClientsTest {

	private static final List<String> TEXTS = List.of("How do I set the number of threads?",
			"a second, longer text about executors, deferred calls and the scratch", "bread");

	@Value("${local.server.port}")
	int port;

	@Autowired
	TextEmbeddingModel model;

	@Autowired
	@Qualifier("all-minilm-l6-v2EmbeddingModel")
	TextEmbeddingModel fullPrecision;

	@Test
	void springAisOpenAiClientGetsTheModelsVectors() {
		for (OpenAiEmbeddingOptions.EncodingFormat format : OpenAiEmbeddingOptions.EncodingFormat.values()) {
			OpenAiEmbeddingModel client = OpenAiEmbeddingModel.builder()
				.options(OpenAiEmbeddingOptions.builder()
					.baseUrl(baseUrl())
					.apiKey("not-checked")
					.model(MiniLm.NAME)
					.encodingFormat(format)
					.maxRetries(0)
					.build())
				.build();
			List<float[]> vectors = client.embed(TEXTS);
			for (int i = 0; i < TEXTS.size(); i++) {
				assertThat(vectors.get(i)).as("%s text %d", format, i).containsExactly(expected(TEXTS.get(i)));
			}
			assertThat(client.dimensions()).isEqualTo(MiniLm.DIMENSIONS);
		}
	}

	@Test
	void langchain4jsOpenAiClientGetsTheModelsVectorsAndHearsOfAnUnknownModel() {
		dev.langchain4j.model.openai.OpenAiEmbeddingModel client = langchain4j(MiniLm.NAME);
		List<Embedding> embeddings = client.embedAll(TEXTS.stream().map(TextSegment::from).toList()).content();
		for (int i = 0; i < TEXTS.size(); i++) {
			assertThat(embeddings.get(i).vector()).as("text %d", i).containsExactly(expected(TEXTS.get(i)));
		}
		assertThat(client.embed("one more").content().vector()).containsExactly(expected("one more"));
		assertThatExceptionOfType(ModelNotFoundException.class)
			.isThrownBy(() -> langchain4j("text-embedding-3-small").embed("hello"))
			.withMessageContaining("The model 'text-embedding-3-small' does not exist; this server has "
					+ "[all-minilm-l6-v2, all-minilm-l6-v2-q]");
	}

	@Test
	void theSecondModelIsServedTooByTheNameOfItsEntry() {
		// uform.models.all-minilm-l6-v2 (sample-models.yml): full precision, on the same executor.
		float[] full = langchain4j("all-minilm-l6-v2").embed(TEXTS.get(0)).content().vector();
		assertThat(full).containsExactly(this.fullPrecision.embed(TEXTS.get(0)));
		assertThat(full).isNotEqualTo(expected(TEXTS.get(0)));
		assertThat(this.fullPrecision.executor()).isSameAs(this.model.executor());
	}

	private dev.langchain4j.model.openai.OpenAiEmbeddingModel langchain4j(String model) {
		return dev.langchain4j.model.openai.OpenAiEmbeddingModel.builder()
			.baseUrl(baseUrl())
			.apiKey("not-checked")
			.modelName(model)
			.maxRetries(0)
			.build();
	}

	private float[] expected(String text) {
		return this.model.embed(text);
	}

	private String baseUrl() {
		return "http://127.0.0.1:" + this.port + "/v1";
	}
}
