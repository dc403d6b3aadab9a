package io.uform.spring.autoconfigure.models;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.AbstractEmbeddingModel;
import org.springframework.ai.embedding.Embedding;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingOptions;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;
import org.springframework.ai.embedding.EmbeddingResponseMetadata;
import org.springframework.ai.embedding.observation.DefaultEmbeddingModelObservationConvention;
import org.springframework.ai.embedding.observation.EmbeddingModelObservationContext;
import org.springframework.ai.embedding.observation.EmbeddingModelObservationConvention;
import org.springframework.ai.embedding.observation.EmbeddingModelObservationDocumentation;
import org.springframework.ai.observation.conventions.AiProvider;
import org.springframework.beans.factory.ObjectProvider;

import io.uform.onnxruntime.Embeddings;
import io.uform.onnxruntime.TextEmbeddingModel;

/**
 * A uform {@link TextEmbeddingModel} as a Spring AI {@link EmbeddingModel}: every call runs on the
 * model's executor, answers with the tokens it took as its usage, and is observed as Spring AI observes
 * its own models ({@code gen_ai.client.operation}, {@code gen_ai.operation.name=embedding}, the token
 * usage), so that Spring AI's dashboards show it, where the application has an
 * {@link ObservationRegistry}.
 */
public class UformSpringAiEmbeddingModel implements EmbeddingModel {

	private static final EmbeddingModelObservationConvention DEFAULT_CONVENTION = new DefaultEmbeddingModelObservationConvention();

	private final TextEmbeddingModel model;

	private final ObservationRegistry observations;

	private final @Nullable EmbeddingModelObservationConvention convention;

	/**
	 * Adapts a model, observed through the application's registry and convention where it has them.
	 * @param model the uform model
	 * @param observations the application's registry, if any
	 * @param convention the application's convention, if any (Spring AI's default otherwise)
	 */
	public UformSpringAiEmbeddingModel(TextEmbeddingModel model, ObjectProvider<ObservationRegistry> observations,
			ObjectProvider<EmbeddingModelObservationConvention> convention) {
		this.model = model;
		this.observations = observations.getIfUnique(() -> ObservationRegistry.NOOP);
		this.convention = convention.getIfUnique();
	}

	@Override
	public EmbeddingResponse call(EmbeddingRequest request) {
		EmbeddingRequest named = named(request);
		EmbeddingModelObservationContext context = EmbeddingModelObservationContext.builder()
			.embeddingRequest(named)
			.provider(AiProvider.ONNX.value())
			.build();
		return EmbeddingModelObservationDocumentation.EMBEDDING_MODEL_OPERATION
			.observation(this.convention, DEFAULT_CONVENTION, () -> context, this.observations)
			.observe(() -> {
				Embeddings embedded = this.model.embedDetailed(named.getInstructions());
				List<Embedding> results = new ArrayList<>(embedded.vectors().length);
				for (int i = 0; i < embedded.vectors().length; i++) {
					results.add(new Embedding(embedded.vectors()[i], i));
				}
				int tokens = (int) Math.min(Integer.MAX_VALUE, embedded.totalTokens());
				EmbeddingResponse response = new EmbeddingResponse(results,
						new EmbeddingResponseMetadata(this.model.name(), new DefaultUsage(tokens, 0, tokens)));
				context.setResponse(response);
				return response;
			});
	}

	/**
	 * The request with this model's name in its options, so that the observation names the model; a
	 * request for other dimensions than the model's is refused, since a model cannot change them.
	 */
	private EmbeddingRequest named(EmbeddingRequest request) {
		EmbeddingOptions options = request.getOptions();
		Integer dimensions = (options != null) ? options.getDimensions() : null;
		if (dimensions != null && this.model.dimensions() > 0 && dimensions != this.model.dimensions()) {
			throw new IllegalArgumentException("model '" + this.model.name() + "' makes " + this.model.dimensions()
					+ "-dimensional vectors, and the request asked for " + dimensions + ": leave dimensions unset, or "
					+ "configure a model of that size");
		}
		if (options != null && options.getModel() != null) {
			return request;
		}
		return new EmbeddingRequest(request.getInstructions(),
				EmbeddingOptions.builder().model(this.model.name()).dimensions(dimensions).build());
	}

	@Override
	public float[] embed(Document document) {
		return embed(getEmbeddingContent(document));
	}

	@Override
	public int dimensions() {
		int dimensions = this.model.dimensions();
		return (dimensions > 0) ? dimensions : AbstractEmbeddingModel.dimensions(this, this.model.name(), "uform");
	}

	@Override
	public String toString() {
		return "UformSpringAiEmbeddingModel[" + this.model + "]";
	}
}
