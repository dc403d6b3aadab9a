package io.uform.sample.embedding;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.uform.onnxruntime.Embeddings;

/**
 * The embedding model's meters, tagged {@code use} = what the texts were embedded for ({@code query},
 * {@code embed} or {@code index}):
 * <ul>
 * <li>{@code sample.embedding} (timer): requests to the model, each with the time of the batch that
 * served it;
 * <li>{@code sample.embedding.texts} (counter): texts embedded;
 * <li>{@code sample.embedding.tokens} (counter): word pieces fed to the model;
 * <li>{@code sample.embedding.batch.size} (distribution summary, texts): texts in the batch that
 * served each request (requests waiting together are embedded together).
 * </ul>
 */
public final class EmbeddingMetrics {

	private final MeterRegistry registry;

	/**
	 * @param registry where the meters go
	 */
	public EmbeddingMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Records one request to the model.
	 * @param use {@code query}, {@code embed} or {@code index}
	 * @param embedded what the request got
	 */
	public void record(String use, Embeddings embedded) {
		Timer.builder("sample.embedding")
			.description("Requests to the embedding model, timed by the batch that served each")
			.tag("use", use)
			.register(this.registry)
			.record(embedded.batch().nanos(), TimeUnit.NANOSECONDS);
		Counter.builder("sample.embedding.texts")
			.description("Texts embedded")
			.baseUnit("texts")
			.tag("use", use)
			.register(this.registry)
			.increment(embedded.vectors().length);
		Counter.builder("sample.embedding.tokens")
			.description("Word pieces fed to the embedding model")
			.baseUnit("tokens")
			.tag("use", use)
			.register(this.registry)
			.increment(embedded.totalTokens());
		DistributionSummary.builder("sample.embedding.batch.size")
			.description("Texts in the batch of the embedding model that served each request")
			.baseUnit("texts")
			.tag("use", use)
			.register(this.registry)
			.record(embedded.batch().texts());
	}
}
