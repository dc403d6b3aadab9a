package io.uform.spring.autoconfigure.models;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

import io.uform.Executor;
import io.uform.UformException;
import io.uform.onnxruntime.ModelSource;
import io.uform.onnxruntime.Pooling;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.onnxruntime.TextEmbeddingOptions;
import io.uform.onnxruntime.Truncation;

/**
 * Loads the models of {@code uform.models}, one per call of {@link #load}, the factory method of each
 * entry's {@code <name>EmbeddingModel} bean, and reports on them. The bean closes its model when the
 * context destroys it, which is before its executor is freed: the bean depends on the executor's.
 */
public final class UformModels implements ModelReports {

	/** The name of this bean. */
	public static final String BEAN_NAME = "uformModels";

	private final Map<String, UformModelProperties> entries;

	private final Map<String, ModelActivity> activities = new LinkedHashMap<>();

	private final Environment environment;

	private final BeanFactory beans;

	UformModels(Environment environment, BeanFactory beans) {
		this.environment = environment;
		this.beans = beans;
		this.entries = ModelEntries.bind(environment);
		this.entries.forEach((name, entry) -> this.activities.put(name, new ModelActivity(name,
				ModelEntries.executorBean(entry), entry.getPooling().name().toLowerCase(Locale.ROOT),
				(entry.getModel() != null) ? entry.getModel().getDescription() : "no model file")));
	}

	/**
	 * Loads one entry's model on its executor, synchronously, logging how long it took.
	 * @param name the entry's name in {@code uform.models}
	 * @return the model; its bean closes it
	 * @throws InvalidConfigurationPropertyValueException naming the entry's property that the model could
	 *         not be loaded with: a file that is missing or not a model, an executor it cannot run on
	 */
	public TextEmbeddingModel load(String name) {
		UformModelProperties entry = this.entries.get(name);
		ModelActivity activity = this.activities.get(name);
		if (entry == null || activity == null) {
			throw new IllegalArgumentException("no uform.models entry named '" + name + "'; entries: "
					+ this.entries.keySet());
		}
		Executor executor = this.beans.getBean(activity.executor(), Executor.class);
		List<InputStream> opened = new ArrayList<>();
		try {
			ModelSource model = ModelResources.source(this.environment, name, "model", entry.getModel(), opened);
			ModelSource tokenizer = ModelResources.source(this.environment, name, "tokenizer", entry.getTokenizer(),
					opened);
			long start = System.nanoTime();
			TextEmbeddingModel loaded = load(name, entry, executor, model, tokenizer, activity);
			activity.loaded(loaded.dimensions(), Instant.now(), (System.nanoTime() - start) / 1_000_000);
			return loaded;
		}
		finally {
			for (InputStream in : opened) {
				try {
					in.close();
				}
				catch (IOException ex) {
					// Read to its end already; nothing is lost.
				}
			}
		}
	}

	private TextEmbeddingModel load(String name, UformModelProperties entry, Executor executor, ModelSource model,
			ModelSource tokenizer, ModelActivity activity) {
		TextEmbeddingOptions options = TextEmbeddingOptions.defaults()
			.withName(name)
			.withPooling((entry.getPooling() == UformModelProperties.Pooling.CLS) ? Pooling.CLS : Pooling.MEAN)
			.withNormalize(entry.isNormalize())
			.withMaxTokens(entry.getMaxTokens())
			.withTruncation(entry.isTruncate() ? Truncation.TRUNCATE : Truncation.REFUSE)
			.withMaxTexts(entry.getMaxTexts())
			.withMaxBatchTokens(entry.getMaxBatchTokens())
			.withSlotWait(entry.getSlotWait())
			.withListener(activity);
		try {
			return TextEmbeddingModel.load(executor, model, tokenizer, options);
		}
		catch (UformException ex) {
			// The executor cannot run it (a VRAM executor without ONNX Runtime's CUDA provider, say): the
			// entry's executor property is what asked for that executor.
			throw new InvalidConfigurationPropertyValueException(ModelEntries.property(name, "executor"),
					entry.getExecutor(), "model '" + name + "' cannot run on executor bean '" + activity.executor()
							+ "': " + ex.getMessage());
		}
		catch (UncheckedIOException | IllegalArgumentException ex) {
			// The tokenizer's own refusals say so first; ONNX Runtime's name the model.
			String message = String.valueOf(ex.getMessage());
			String field = (message.startsWith("the tokenizer") || message.startsWith("could not read the tokenizer"))
					? "tokenizer" : "model";
			throw new InvalidConfigurationPropertyValueException(ModelEntries.property(name, field),
					this.environment.getProperty(ModelEntries.property(name, field)), ex.getMessage());
		}
	}

	@Override
	public Map<String, ModelReport> reports() {
		Map<String, ModelReport> reports = new LinkedHashMap<>();
		this.activities.forEach((name, activity) -> reports.put(name, activity.report()));
		return reports;
	}

	/** Every entry's counters and listeners, for the meters. */
	Collection<ModelActivity> activities() {
		return this.activities.values();
	}
}
