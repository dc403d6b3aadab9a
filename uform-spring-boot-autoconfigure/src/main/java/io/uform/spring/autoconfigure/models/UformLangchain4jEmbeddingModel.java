package io.uform.spring.autoconfigure.models;

import java.util.ArrayList;
import java.util.List;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.model.output.TokenUsage;

import io.uform.onnxruntime.Embeddings;
import io.uform.onnxruntime.TextEmbeddingModel;

/**
 * A uform {@link TextEmbeddingModel} as a langchain4j {@link EmbeddingModel}: every call runs on the
 * model's executor and answers with the tokens it took as its usage. It overrides {@link #embedAll}
 * alone of the interface's methods that call each other (its request API reaches it through
 * {@code doEmbed}), and says its dimensions and name without embedding a probe text.
 */
public class UformLangchain4jEmbeddingModel implements EmbeddingModel {

	private final TextEmbeddingModel model;

	/**
	 * Adapts a model.
	 * @param model the uform model
	 */
	public UformLangchain4jEmbeddingModel(TextEmbeddingModel model) {
		this.model = model;
	}

	@Override
	public Response<List<Embedding>> embedAll(List<TextSegment> textSegments) {
		List<String> texts = new ArrayList<>(textSegments.size());
		for (TextSegment segment : textSegments) {
			texts.add(segment.text());
		}
		Embeddings embedded = this.model.embedDetailed(texts);
		List<Embedding> embeddings = new ArrayList<>(texts.size());
		for (float[] vector : embedded.vectors()) {
			embeddings.add(Embedding.from(vector));
		}
		return Response.from(embeddings, new TokenUsage((int) Math.min(Integer.MAX_VALUE, embedded.totalTokens())));
	}

	@Override
	public int dimension() {
		int dimensions = this.model.dimensions();
		return (dimensions > 0) ? dimensions : EmbeddingModel.super.dimension();
	}

	@Override
	public String modelName() {
		return this.model.name();
	}

	@Override
	public String toString() {
		return "UformLangchain4jEmbeddingModel[" + this.model + "]";
	}
}
