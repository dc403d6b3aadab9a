package io.uform.sample.openai;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.springframework.beans.factory.ListableBeanFactory;

import io.uform.onnxruntime.EmbeddingRefusedException;
import io.uform.onnxruntime.Embeddings;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.search.BadSearchException;
import io.uform.sample.search.TextChecks;

/**
 * Every {@link TextEmbeddingModel} bean of the application, by its name: each {@code uform.models.<name>}
 * entry the starter loads, with that entry's {@code max-texts}. Texts are checked on the request thread
 * first ({@link TextChecks}), so a text that cannot fit never reaches the model's executor. Beside them,
 * every {@link ServedModel} bean as it is: none in this application's own build; the
 * {@code transformers-peer} Maven profile adds Spring AI's model that way, for issue #43's benchmark.
 */
final class ModelBeansServedModels implements ServedModels {

	private final ListableBeanFactory beans;

	private volatile List<ServedModel> models;

	/**
	 * @param beans where the model beans are
	 */
	ModelBeansServedModels(ListableBeanFactory beans) {
		this.beans = beans;
	}

	@Override
	public List<ServedModel> all() {
		List<ServedModel> all = this.models;
		if (all == null) {
			// Looked up on first use, not at construction: the models are loaded beans of their own.
			List<ServedModel> found = new ArrayList<>();
			this.beans.getBeansOfType(TextEmbeddingModel.class).values().stream()
				.sorted(Comparator.comparing(TextEmbeddingModel::name))
				.forEach((model) -> found.add(new Served(model)));
			this.beans.getBeansOfType(ServedModel.class).values().stream()
				.sorted(Comparator.comparing(ServedModel::id))
				.forEach(found::add);
			all = List.copyOf(found);
			this.models = all;
		}
		return all;
	}

	/** One model bean, served under its name. */
	private record Served(TextEmbeddingModel model) implements ServedModel {

		@Override
		public int maxTexts() {
			return this.model.options().maxTexts();
		}

		@Override
		public String id() {
			return this.model.name();
		}

		@Override
		public int dimensions() {
			return this.model.dimensions();
		}

		@Override
		public Embedded embed(List<String> texts, String field) {
			int maxTokens = this.model.options().maxTokens();
			for (int i = 0; i < texts.size(); i++) {
				TextChecks.check(texts.get(i), field + "[" + i + "]", maxTokens);
			}
			try {
				Embeddings embeddings = this.model.embedDetailed(texts);
				return new Embedded(embeddings.vectors(), embeddings.tokens());
			}
			catch (EmbeddingRefusedException ex) {
				throw (ex.tokens() > 0) ? TextChecks.tooLong(field + "[" + ex.text() + "]", ex.tokens(), maxTokens)
						: new BadSearchException(ex.getMessage());
			}
		}
	}
}
