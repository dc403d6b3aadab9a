package io.uform.sample.embedding;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The embedding model's meters, tagged {@code use} = what the texts were embedded for ({@code query},
 * {@code embed} or {@code index}):
 * <ul>
 * <li>{@code sample.embedding} (timer): calls of the model on a batch, and their time;
 * <li>{@code sample.embedding.texts} (counter): texts embedded;
 * <li>{@code sample.embedding.tokens} (counter): word pieces fed to the model;
 * <li>{@code sample.embedding.batch.size} (distribution summary, texts): texts per call.
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
	 * Records one call of the model on a batch.
	 * @param use {@code query}, {@code embed} or {@code index}
	 * @param texts texts in the batch
	 * @param tokens word pieces in the batch, {@code [CLS]} and {@code [SEP]} included
	 * @param nanos the call's time
	 */
	public void record(String use, int texts, long tokens, long nanos) {
		Timer.builder("sample.embedding")
			.description("Calls of the embedding model on a batch of texts")
			.tag("use", use)
			.register(this.registry)
			.record(nanos, TimeUnit.NANOSECONDS);
		Counter.builder("sample.embedding.texts")
			.description("Texts embedded")
			.baseUnit("texts")
			.tag("use", use)
			.register(this.registry)
			.increment(texts);
		Counter.builder("sample.embedding.tokens")
			.description("Word pieces fed to the embedding model")
			.baseUnit("tokens")
			.tag("use", use)
			.register(this.registry)
			.increment(tokens);
		DistributionSummary.builder("sample.embedding.batch.size")
			.description("Texts per call of the embedding model")
			.baseUnit("texts")
			.tag("use", use)
			.register(this.registry)
			.record(texts);
	}
}
