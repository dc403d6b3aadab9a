package io.uform.spring.autoconfigure.models;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.uform.onnxruntime.EmbeddingBatch;
import io.uform.onnxruntime.EmbeddingListener;
import io.uform.onnxruntime.EmbeddingRefusedException;

/**
 * One configured model's counters and the listeners that hear its batches (the meters): the
 * {@link EmbeddingListener} the model is loaded with, made before the model so that meters can be bound
 * whatever order the beans are made in.
 *
 * <table>
 * <caption>Where threads meet</caption>
 * <tr><th>field</th><th>written by</th><th>read by</th><th>why it is safe</th></tr>
 * <tr><td>the counters</td><td>the executor's deferred thread (batches), callers' threads
 * (refusals)</td><td>Actuator's threads</td><td>{@link LongAdder}s: sums, no order between them
 * needed</td></tr>
 * <tr><td>{@code hearers}</td><td>the meter binder, when bound and destroyed</td><td>the deferred
 * thread</td><td>copy-on-write: a batch hears the list as it was when it finished</td></tr>
 * <tr><td>{@code loaded}</td><td>the thread that makes the model's bean, once</td><td>Actuator's
 * threads</td><td>volatile, one immutable value</td></tr>
 * </table>
 */
final class ModelActivity implements EmbeddingListener {

	private static final Log logger = LogFactory.getLog(ModelActivity.class);

	private final String name;

	private final String executor;

	private final String pooling;

	private final String file;

	private final LongAdder calls = new LongAdder();

	private final LongAdder texts = new LongAdder();

	private final LongAdder tokens = new LongAdder();

	private final LongAdder refused = new LongAdder();

	private final List<EmbeddingListener> hearers = new CopyOnWriteArrayList<>();

	private volatile @Nullable Loaded loaded;

	ModelActivity(String name, String executor, String pooling, String file) {
		this.name = name;
		this.executor = executor;
		this.pooling = pooling;
		this.file = file;
	}

	String name() {
		return this.name;
	}

	/** The bean name of the executor the model runs on. */
	String executor() {
		return this.executor;
	}

	@Override
	public void embedded(EmbeddingBatch batch) {
		this.calls.add(batch.requests());
		this.texts.add(batch.texts());
		this.tokens.add(batch.tokens());
		for (EmbeddingListener hearer : this.hearers) {
			hearer.embedded(batch);
		}
	}

	@Override
	public void refused(String model, EmbeddingRefusedException refusal) {
		this.refused.increment();
		for (EmbeddingListener hearer : this.hearers) {
			hearer.refused(model, refusal);
		}
	}

	/** Adds a listener of this model's batches and refusals; keep it quick, it runs on the executor. */
	void hear(EmbeddingListener hearer) {
		this.hearers.add(hearer);
	}

	void stopHearing(EmbeddingListener hearer) {
		this.hearers.remove(hearer);
	}

	long calls() {
		return this.calls.sum();
	}

	long texts() {
		return this.texts.sum();
	}

	long tokens() {
		return this.tokens.sum();
	}

	long refusedCount() {
		return this.refused.sum();
	}

	/** The model's bean loaded it: from now on the report shows its dimensions and load time. */
	void loaded(int dimensions, Instant at, long millis) {
		this.loaded = new Loaded(dimensions, at, millis);
		if (logger.isInfoEnabled()) {
			logger.info("Model '" + this.name + "' loaded on " + this.executor + " in " + millis + " ms ("
					+ ((dimensions > 0) ? dimensions + " dimensions" : "dimensions from the first vector") + ", "
					+ this.pooling + " pooling, " + this.file + ")");
		}
	}

	ModelReport report() {
		Loaded now = this.loaded;
		return new ModelReport(this.name, this.file, (now != null) ? now.dimensions() : -1, this.pooling,
				this.executor, (now != null) ? now.at() : null, (now != null) ? now.millis() : 0, calls(), texts(),
				tokens(), refusedCount());
	}

	private record Loaded(int dimensions, Instant at, long millis) {
	}
}
