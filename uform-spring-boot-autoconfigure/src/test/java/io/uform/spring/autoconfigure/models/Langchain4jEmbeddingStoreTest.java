package io.uform.spring.autoconfigure.models;

import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import dev.langchain4j.store.embedding.inmemory.InMemoryEmbeddingStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real langchain4j consumer of the starter's model: langchain4j's {@link InMemoryEmbeddingStore} holds
 * segments embedded by the uform model and answers searches embedded by it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Langchain4jEmbeddingStoreTest {

	private static final List<String> SEGMENTS = List.of(
			"An executor owns threads and scratch memory; models borrow it, so one executor serves several models.",
			"The mesh joins when its bean is made, so the web server opens only after every process has arrived.",
			"Prometheus scrapes the actuator endpoint every fifteen seconds and Grafana draws the dashboards.",
			"Bread rises when yeast ferments the sugars in the dough and releases carbon dioxide.");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformModelsAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2")
		.withPropertyValues(MiniLm.entry("minilm"));

	@Test
	void inMemoryEmbeddingStoreFindsTheNearestSegmentThroughTheUformModel() {
		this.runner.run((context) -> {
			EmbeddingModel model = context.getBean(EmbeddingModel.class);
			List<TextSegment> segments = SEGMENTS.stream().map(TextSegment::from).toList();
			Response<List<Embedding>> embedded = model.embedAll(segments);
			assertThat(embedded.tokenUsage().inputTokenCount()).isGreaterThan(SEGMENTS.size() * 10);
			InMemoryEmbeddingStore<TextSegment> store = new InMemoryEmbeddingStore<>();
			store.addAll(embedded.content(), segments);
			assertThat(nearest(store, model, "Which rooms share one pool of worker threads between models?"))
				.isEqualTo(SEGMENTS.get(0));
			assertThat(nearest(store, model, "How do I bake a loaf?")).isEqualTo(SEGMENTS.get(3));
			assertThat(model.dimension()).isEqualTo(MiniLm.DIMENSIONS);
			assertThat(model.modelName()).isEqualTo("minilm");
			assertThat(embedded.content().get(2).vector())
				.isEqualTo(context.getBean(TextEmbeddingModel.class).embed(SEGMENTS.get(2)));
		});
	}

	private static String nearest(InMemoryEmbeddingStore<TextSegment> store, EmbeddingModel model, String query) {
		List<EmbeddingMatch<TextSegment>> matches = store.search(EmbeddingSearchRequest.builder()
			.queryEmbedding(model.embed(query).content())
			.maxResults(1)
			.build()).matches();
		assertThat(matches).hasSize(1);
		return matches.get(0).embedded().text();
	}
}
