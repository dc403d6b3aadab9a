package io.uform.sample.openai;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link ServedModels.ServedModel} bean is served beside the model beans: how the
 * {@code transformers-peer} build adds Spring AI's model to {@code /v1/embeddings}. No model is loaded.
 */
class ModelBeansServedModelsTest {

	@Test
	void servesServedModelBeansByTheirId() {
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		beans.addBean("peer", new Named("peer-model"));
		ServedModels served = new ModelBeansServedModels(beans);
		assertThat(served.all()).extracting(ServedModels.ServedModel::id).containsExactly("peer-model");
		assertThat(served.named("peer-model")).isPresent();
		assertThat(served.named("other")).isEmpty();
	}

	/** A model that is only a name. */
	private record Named(String id) implements ServedModels.ServedModel {

		@Override
		public int dimensions() {
			return 3;
		}

		@Override
		public int maxTexts() {
			return 1;
		}

		@Override
		public ServedModels.Embedded embed(List<String> texts, String field) {
			return new ServedModels.Embedded(new float[][] { { 1, 0, 0 } }, new int[] { 1 });
		}
	}
}
