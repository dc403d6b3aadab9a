package io.uform.sample.openai;

import java.util.List;
import java.util.Optional;

/**
 * The embedding models this application serves on {@code /v1}, by the id a client names in
 * {@code model}. The one seam between the OpenAI-compatible route and whatever runs the models: every
 * {@code TextEmbeddingModel} bean ({@link ModelBeansServedModels}), the starter's {@code uform.models}
 * entries among them, then every {@link ServedModel} bean (how a build adds a model that is not a
 * {@code TextEmbeddingModel}: the {@code transformers-peer} profile's Spring AI model).
 */
public interface ServedModels {

	/**
	 * Every model served, in a stable order.
	 * @return the models
	 */
	List<ServedModel> all();

	/**
	 * The model with an id.
	 * @param id as a client names it
	 * @return the model, or empty when none has that id
	 */
	default Optional<ServedModel> named(String id) {
		return all().stream().filter((model) -> model.id().equals(id)).findFirst();
	}

	/** One model, as the route needs it; a bean of this type is served as well. */
	interface ServedModel {

		/**
		 * Its id, as clients name it in {@code model}.
		 * @return the id
		 */
		String id();

		/**
		 * Floats per vector.
		 * @return the dimension
		 */
		int dimensions();

		/**
		 * Texts one call takes at most.
		 * @return at least 1
		 */
		int maxTexts();

		/**
		 * Embeds texts, refusing bad ones before they cost the executor.
		 * @param texts from 1 to {@link #maxTexts()}
		 * @param field what the request calls them, for a refusal
		 * @return a unit vector and a token count per text
		 */
		Embedded embed(List<String> texts, String field);
	}

	/**
	 * Texts' embeddings.
	 *
	 * @param vectors a unit vector per text, in order
	 * @param tokens each text's tokens
	 */
	record Embedded(float[][] vectors, int[] tokens) {
	}
}
