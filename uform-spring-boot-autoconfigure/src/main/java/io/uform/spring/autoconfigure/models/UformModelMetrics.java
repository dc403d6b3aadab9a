package io.uform.spring.autoconfigure.models;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.DisposableBean;

import io.uform.onnxruntime.EmbeddingBatch;
import io.uform.onnxruntime.EmbeddingListener;

/**
 * Binds every configured model, tagged {@code model} (its name in {@code uform.models}) and
 * {@code executor} (its executor's bean name): {@code uform.model.texts}, {@code uform.model.tokens}
 * and {@code uform.model.refused} (counters), {@code uform.model.batch.size} (texts per batch, a
 * distribution) and {@code uform.model.call} (a timer: each batch's time on the executor). Bound before
 * or after the models are loaded alike; the meters leave the registry when the context closes, so that a
 * registry that outlives it keeps none of a closed model's.
 */
final class UformModelMetrics implements MeterBinder, DisposableBean {

	private final UformModels models;

	private final List<Bound> bound = new ArrayList<>();

	UformModelMetrics(UformModels models) {
		this.models = models;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (ModelActivity activity : this.models.activities()) {
			Tags tags = Tags.of("model", activity.name(), "executor", activity.executor());
			List<Meter> meters = new ArrayList<>();
			meters.add(FunctionCounter.builder("uform.model.texts", activity, ModelActivity::texts)
				.description("Texts the model embedded")
				.baseUnit("texts")
				.tags(tags)
				.register(registry));
			meters.add(FunctionCounter.builder("uform.model.tokens", activity, ModelActivity::tokens)
				.description("Tokens the model was fed, special tokens included")
				.baseUnit("tokens")
				.tags(tags)
				.register(registry));
			meters.add(FunctionCounter.builder("uform.model.refused", activity, ModelActivity::refusedCount)
				.description("Requests refused before they reached the executor: no texts, too many, an empty or too "
						+ "long text")
				.baseUnit("requests")
				.tags(tags)
				.register(registry));
			DistributionSummary batchSize = DistributionSummary.builder("uform.model.batch.size")
				.description("Texts per batch the model embedded in one deferred call")
				.baseUnit("texts")
				.tags(tags)
				.register(registry);
			Timer call = Timer.builder("uform.model.call")
				.description("Time of each batch on the executor, from its start to its last vector")
				.tags(tags)
				.register(registry);
			meters.add(batchSize);
			meters.add(call);
			EmbeddingListener hearer = (EmbeddingBatch batch) -> {
				batchSize.record(batch.texts());
				call.record(batch.nanos(), TimeUnit.NANOSECONDS);
			};
			activity.hear(hearer);
			synchronized (this.bound) {
				this.bound.add(new Bound(registry, activity, hearer, meters));
			}
		}
	}

	@Override
	public void destroy() {
		synchronized (this.bound) {
			for (Bound binding : this.bound) {
				binding.activity().stopHearing(binding.hearer());
				binding.meters().forEach(binding.registry()::remove);
			}
			this.bound.clear();
		}
	}

	private record Bound(MeterRegistry registry, ModelActivity activity, EmbeddingListener hearer, List<Meter> meters) {
	}
}
