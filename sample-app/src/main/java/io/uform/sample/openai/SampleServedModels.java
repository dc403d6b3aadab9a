package io.uform.sample.openai;

import java.util.List;

import io.uform.onnxruntime.Embeddings;
import io.uform.sample.embedding.MiniLm;
import io.uform.sample.search.TextSearch;

/**
 * The sample's one model, all-MiniLM-L6-v2 quantized, embedding on the RAM executor as
 * {@code POST /embed} does ({@link TextSearch#embedEach}).
 */
final class SampleServedModels implements ServedModels {

	/** The id clients name it by. */
	static final String MINILM_Q = "all-minilm-l6-v2-q";

	private final List<ServedModel> models;

	SampleServedModels(TextSearch text) {
		this.models = List.of(new ServedModel() {
			@Override
			public String id() {
				return MINILM_Q;
			}

			@Override
			public int dimensions() {
				return MiniLm.DIMENSIONS;
			}

			@Override
			public int maxTexts() {
				return text.maxTexts();
			}

			@Override
			public Embedded embed(List<String> texts, String field) {
				Embeddings embeddings = text.embedEach(texts, field);
				return new Embedded(embeddings.vectors(), embeddings.tokens());
			}
		});
	}

	@Override
	public List<ServedModel> all() {
		return this.models;
	}
}
