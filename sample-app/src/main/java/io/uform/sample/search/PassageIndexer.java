package io.uform.sample.search;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;

import io.uform.UformException;
import io.uform.onnxruntime.Embeddings;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.onnxruntime.Truncation;
import io.uform.sample.passages.Passage;

/**
 * Builds the passage index in the background after startup: a thread of its own hands the model one
 * batch of passages at a time, which the model embeds in a deferred call on the RAM executor across
 * its threads, so searches and {@code /embed} calls interleave with the indexing instead of waiting
 * for all of it. Logs its progress, and keeps the application's readiness at {@code REFUSING_TRAFFIC}
 * until the last batch is in, then publishes {@code ACCEPTING_TRAFFIC}.
 *
 * <p>Where threads meet: {@code thread} and {@code stopping} are written by the lifecycle's start and
 * stop (the context's thread), volatile; the indexer thread reads {@code stopping} after an interrupt,
 * and publishes its work through {@link PassageIndex}'s volatile fields. A batch's vectors are written
 * by the executor's threads and handed to the indexer thread by the model's future, which orders the
 * two.
 */
final class PassageIndexer implements SmartLifecycle {

	/**
	 * After the web server's graceful shutdown (which stops first) and before the executors' (which
	 * stop last), so the executors are still there when the indexer is told to stop.
	 */
	static final int PHASE = Integer.MAX_VALUE / 2 + 1024;

	private static final Log logger = LogFactory.getLog(PassageIndexer.class);

	private final PassageIndex index;

	private final TextEmbeddingModel model;

	private final ApplicationEventPublisher events;

	private final int batchSize;

	private volatile Thread thread;

	/** Set before the indexer thread is interrupted, so that what the interrupt breaks reads as a stop. */
	private volatile boolean stopping;

	PassageIndexer(PassageIndex index, TextEmbeddingModel model, ApplicationEventPublisher events, int batchSize) {
		this.index = index;
		this.model = model;
		this.events = events;
		this.batchSize = batchSize;
	}

	/**
	 * Keeps readiness refused while the index is incomplete: Boot publishes {@code ACCEPTING_TRAFFIC}
	 * once the application has started, which here means only that it runs.
	 * @param event a readiness change
	 */
	@EventListener
	void onReadiness(AvailabilityChangeEvent<ReadinessState> event) {
		if (event.getState() == ReadinessState.ACCEPTING_TRAFFIC && !this.index.ready()) {
			AvailabilityChangeEvent.publish(this.events, this, ReadinessState.REFUSING_TRAFFIC);
			// The index may have been completed, and ACCEPTING published, between the check and the refusal,
			// which would then stand for good: after the refusal, look again.
			if (this.index.ready()) {
				AvailabilityChangeEvent.publish(this.events, this, ReadinessState.ACCEPTING_TRAFFIC);
			}
		}
	}

	@Override
	public void start() {
		Thread indexer = new Thread(this::build, "sample-indexer");
		indexer.setDaemon(true);
		this.thread = indexer;
		indexer.start();
	}

	@Override
	public void stop() {
		Thread indexer = this.thread;
		if (indexer != null) {
			this.stopping = true;
			indexer.interrupt();
			try {
				indexer.join(5_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.thread = null;
	}

	@Override
	public boolean isRunning() {
		Thread indexer = this.thread;
		return indexer != null && indexer.isAlive();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private void build() {
		List<Passage> passages = this.index.passages();
		int total = passages.size();
		long start = System.nanoTime();
		logger.info("Indexing " + total + " passages: batches of " + this.batchSize + " embedded on the RAM executor's "
				+ this.model.executor().threads() + " threads");
		int dimensions = this.model.dimensions();
		float[] vectors = new float[total * dimensions];
		int truncated = 0;
		int nextReport = 1;
		try {
			for (int first = 0; first < total; first += this.batchSize) {
				List<String> texts = new ArrayList<>();
				for (Passage passage : passages.subList(first, Math.min(total, first + this.batchSize))) {
					texts.add(passage.heading() + ": " + passage.text());
				}
				// Passages longer than the model takes are cut (the queries, the clients', are refused).
				Embeddings batch = this.model.embedDetailed(texts, Truncation.TRUNCATE);
				for (int i = 0; i < batch.vectors().length; i++) {
					System.arraycopy(batch.vectors()[i], 0, vectors, (first + i) * dimensions, dimensions);
				}
				truncated += batch.truncated();
				int done = Math.min(total, first + this.batchSize);
				this.index.progress(done);
				// A line per tenth, not per batch: readable for a large corpus, still alive for a slow one.
				if (done * 10L >= (long) nextReport * total) {
					logger.info("Indexed " + done + " of " + total + " passages (" + (done * 100L / total) + "%)");
					nextReport = (int) (done * 10L / total) + 1;
				}
			}
			this.index.complete(vectors, dimensions);
			logger.info("Passage index ready: " + total + " passages in " + (System.nanoTime() - start) / 1_000_000
					+ " ms" + ((truncated > 0) ? " (" + truncated + " cut to the model's " + this.model.options().maxTokens() + " tokens)" : ""));
			AvailabilityChangeEvent.publish(this.events, this, ReadinessState.ACCEPTING_TRAFFIC);
		}
		catch (RuntimeException ex) {
			if (this.stopping || closing(ex)) {
				// Interrupted while waiting for the model, the executor refusing calls (the context's close
				// does that before this indexer is stopped), the model closed or the executor freed: the
				// application stops.
				this.index.failed("stopped before it was complete");
				logger.info("Indexing stopped at " + this.index.embedded() + " of " + total + " passages: the application stops");
				return;
			}
			this.index.failed(String.valueOf(ex));
			logger.error("Indexing failed at " + this.index.embedded() + " of " + total
					+ " passages; readiness stays REFUSING_TRAFFIC", ex);
		}
	}

	/** Whether a batch was refused or dropped because the executor is being freed, or was interrupted. */
	private static boolean closing(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof UformException uform && (uform.status() == UformException.Status.FREED
					|| uform.status() == UformException.Status.INTERRUPTED)) {
				return true;
			}
		}
		return false;
	}
}
