package io.uform.spring.autoconfigure.models;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;
import org.springframework.ai.embedding.observation.EmbeddingModelObservationContext;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.SimpleVectorStore;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real Spring AI consumer of the starter's model: Spring AI's {@link SimpleVectorStore} adds documents
 * and answers similarity searches through the uform model, every call observed as Spring AI observes its
 * own models.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringAiVectorStoreTest {

	private static final List<String> DOCUMENTS = List.of(
			"An executor owns threads and scratch memory; models borrow it, so one executor serves several models.",
			"The mesh joins when its bean is made, so the web server opens only after every process has arrived.",
			"Prometheus scrapes the actuator endpoint every fifteen seconds and Grafana draws the dashboards.",
			"Bread rises when yeast ferments the sugars in the dough and releases carbon dioxide.");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformModelsAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2")
		.withPropertyValues(MiniLm.entry("minilm"));

	@Test
	void simpleVectorStoreAddsDocumentsAndFindsTheNearestThroughTheUformModel() {
		this.runner.run((context) -> {
			EmbeddingModel model = context.getBean(EmbeddingModel.class);
			SimpleVectorStore store = SimpleVectorStore.builder(model).build();
			store.add(DOCUMENTS.stream().map(Document::new).toList());
			assertThat(nearest(store, "Which rooms share one pool of worker threads between models?"))
				.isEqualTo(DOCUMENTS.get(0));
			assertThat(nearest(store, "How do I bake a loaf?")).isEqualTo(DOCUMENTS.get(3));
			assertThat(nearest(store, "monitoring with time series and charts")).isEqualTo(DOCUMENTS.get(2));
			// The store's vectors are the uform model's, not a copy made some other way.
			assertThat(model.embed(DOCUMENTS.get(1)))
				.isEqualTo(context.getBean(TextEmbeddingModel.class).embed(DOCUMENTS.get(1)));
		});
	}

	@Test
	void aCallAnswersWithItsVectorsInOrderTheModelsNameAndTheTokensAsUsage() {
		this.runner.run((context) -> {
			EmbeddingModel model = context.getBean(EmbeddingModel.class);
			assertThat(model.dimensions()).isEqualTo(MiniLm.DIMENSIONS);
			EmbeddingResponse response = model.call(new EmbeddingRequest(List.of("uform", "executors own threads"), null));
			assertThat(response.getResults()).hasSize(2);
			assertThat(response.getResults().get(1).getIndex()).isEqualTo(1);
			assertThat(response.getResults().get(1).getOutput()).isEqualTo(model.embed("executors own threads"));
			assertThat(response.getMetadata().getModel()).isEqualTo("minilm");
			// [CLS] u ##form [SEP] and [CLS] executor ##s own threads [SEP]: the tokenizer's count, specials included.
			assertThat(response.getMetadata().getUsage().getPromptTokens()).isGreaterThanOrEqualTo(8);
			assertThat(response.getMetadata().getUsage().getTotalTokens())
				.isEqualTo(response.getMetadata().getUsage().getPromptTokens());
		});
	}

	@Test
	void everyCallIsObservedAsSpringAiObservesItsOwnEmbeddingModels() {
		List<EmbeddingModelObservationContext> observed = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<EmbeddingModelObservationContext>() {

			@Override
			public void onStop(EmbeddingModelObservationContext context) {
				observed.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof EmbeddingModelObservationContext;
			}
		});
		this.runner.withBean(ObservationRegistry.class, () -> observations).run((context) -> {
			EmbeddingResponse response = context.getBean(EmbeddingModel.class)
				.call(new EmbeddingRequest(List.of("uform on the executor"), null));
			assertThat(observed).singleElement().satisfies((call) -> {
				assertThat(call.getName()).isEqualTo("gen_ai.client.operation");
				Map<String, String> low = keyValues(call.getLowCardinalityKeyValues());
				assertThat(low).containsEntry("gen_ai.operation.name", "embedding")
					.containsEntry("gen_ai.request.model", "minilm")
					.containsEntry("gen_ai.response.model", "minilm");
				assertThat(keyValues(call.getHighCardinalityKeyValues())).containsEntry("gen_ai.usage.input_tokens",
						String.valueOf(response.getMetadata().getUsage().getPromptTokens()));
			});
		});
	}

	private static Map<String, String> keyValues(Iterable<KeyValue> values) {
		Map<String, String> map = new java.util.LinkedHashMap<>();
		values.forEach((value) -> map.put(value.getKey(), value.getValue()));
		return map;
	}

	private static String nearest(SimpleVectorStore store, String query) {
		List<Document> found = store.similaritySearch(SearchRequest.builder().query(query).topK(1).build());
		assertThat(found).hasSize(1);
		return found.get(0).getText();
	}
}
