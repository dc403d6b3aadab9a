package io.uform.sample.search;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import io.uform.Executor;
import io.uform.UformException;
import io.uform.sample.embedding.EmbeddingMetrics;
import io.uform.sample.embedding.ExecutorEmbedder;

/**
 * Serves text searches in batches: one deferred call takes every query waiting when it starts (up to
 * the batch's size), embeds them together sliced across the executor's threads, then scans the
 * passages for each. A query alone is one text on one thread; queries that arrive together keep every
 * thread embedding. Each text is still its own session call, so a query's vector and hits are those it
 * would get alone.
 *
 * <p>At most one call is pending (submitted, not started) at a time: a query that finds one pending
 * joins it instead of submitting its own, so searches hold at most two of the executor's
 * {@code deferred-limit} slots (one running, one pending) however many wait, and a search is refused
 * (503) only when the limit is really reached, by other calls, for a whole slot wait. The requests'
 * own threads bound how many wait.
 *
 * <p>Where threads meet:
 * <table>
 * <caption>Shared state</caption>
 * <tr><th>state</th><th>written by</th><th>read by</th><th>how</th></tr>
 * <tr><td>{@code waiting}</td><td>request threads (add), the deferred thread (poll), a refusal or failure (drain)</td>
 * <td>the deferred thread</td><td>lock-free queue; a query is taken by exactly one {@code poll}, or
 * taken by a refusal's or a failed call's drain (the pending call was refused, or failed without
 * running); whichever succeeds owns it and completes its future</td></tr>
 * <tr><td>{@code pending}</td><td>request threads (set, by compare-and-set), the deferred thread and a
 * failed call's completion (clear)</td><td>request threads</td><td>the call clears it before it polls:
 * a query added after the clear submits a new call, one added before it is polled or drained</td></tr>
 * </table>
 */
final class QueryBatch {

	private final ConcurrentLinkedQueue<Query> waiting = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean pending = new AtomicBoolean();

	private final ExecutorEmbedder embedder;

	private final Executor executor;

	private final PassageIndex index;

	private final EmbeddingMetrics metrics;

	private final Duration slotWait;

	private final int maxBatch;

	/**
	 * @param maxBatch queries one call takes at most
	 */
	QueryBatch(ExecutorEmbedder embedder, Executor executor, PassageIndex index, EmbeddingMetrics metrics,
			Duration slotWait, int maxBatch) {
		this.embedder = embedder;
		this.executor = executor;
		this.index = index;
		this.metrics = metrics;
		this.slotWait = slotWait;
		this.maxBatch = maxBatch;
	}

	/**
	 * Searches, waiting for the call that serves the query.
	 * @param ids the query's tokens, at most the model's limit
	 * @param k hits, from 1 to the corpus's rows
	 * @param corpus the passages' embeddings
	 * @return what was found
	 */
	TextSearch.Result search(long[] ids, int k, Corpus corpus) {
		Query query = new Query(ids, k, corpus, new CompletableFuture<>());
		this.waiting.add(query);
		if (this.pending.compareAndSet(false, true)) {
			submit(true);
		}
		return DeferredSearch.await(query.result());
	}

	/**
	 * Submits the pending call, on behalf of every query waiting; {@code pending} is set.
	 * @param refuseWaiting whether a refusal is every waiting query's (a request's submission: they
	 *        all counted on this call; saturated, or shutting down) or not (the follow-up from a
	 *        running call, which then serves them itself)
	 * @return whether the call was accepted; if not, {@code pending} is cleared
	 */
	private boolean submit(boolean refuseWaiting) {
		CompletableFuture<Void> call;
		try {
			call = this.executor.defer(this::serveWaiting, this.slotWait);
		}
		catch (UformException ex) {
			if (refuseWaiting) {
				// Cleared first: a query added from now submits its own call rather than wait for none.
				failWaiting(ex);
			}
			else {
				this.pending.set(false);
			}
			return false;
		}
		// A call that never ran (the executor freed first) must not leave its queries waiting forever.
		call.whenComplete((ignored, failure) -> {
			if (failure != null) {
				failWaiting(failure);
			}
		});
		return true;
	}

	private void failWaiting(Throwable failure) {
		this.pending.set(false);
		for (Query query = this.waiting.poll(); query != null; query = this.waiting.poll()) {
			query.result().completeExceptionally(failure);
		}
	}

	/**
	 * One deferred call: the queries waiting now, a batch; a full batch leaves the rest to a follow-up
	 * call behind whatever else was deferred meanwhile, or serves them itself where none can be had.
	 */
	private Void serveWaiting() {
		// Before polling: a query added from here on submits a call of its own.
		this.pending.set(false);
		while (true) {
			List<Query> batch = new ArrayList<>();
			while (batch.size() < this.maxBatch) {
				Query query = this.waiting.poll();
				if (query == null) {
					break;
				}
				batch.add(query);
			}
			if (batch.isEmpty()) {
				return null;
			}
			try {
				serve(batch);
			}
			catch (RuntimeException | Error ex) {
				for (Query query : batch) {
					query.result().completeExceptionally(ex);
				}
				throw ex;
			}
			if (batch.size() < this.maxBatch || this.waiting.isEmpty()) {
				// The queue was emptied; whatever came since has a call of its own.
				return null;
			}
			if (this.pending.compareAndSet(false, true) && submit(false)) {
				return null;
			}
			// Either a query that came since submitted the follow-up (it will serve the rest), or no slot
			// was free for one: serve the rest here.
			if (!this.pending.get()) {
				continue;
			}
			return null;
		}
	}

	private void serve(List<Query> batch) {
		long start = System.nanoTime();
		List<long[]> ids = new ArrayList<>(batch.size());
		long tokens = 0;
		for (Query query : batch) {
			ids.add(query.ids());
			tokens += query.ids().length;
		}
		float[][] vectors = this.embedder.embed(ids);
		long embedded = System.nanoTime();
		this.metrics.record("query", batch.size(), tokens, embedded - start);
		for (int i = 0; i < batch.size(); i++) {
			Query query = batch.get(i);
			long scanStart = System.nanoTime();
			RamExecutorSearch scan = new RamExecutorSearch(this.executor, query.corpus(), this.slotWait);
			List<Hit> nearest = scan.scan(vectors[i], query.k());
			long scanned = System.nanoTime();
			List<TextSearch.Found> found = new ArrayList<>(nearest.size());
			for (Hit hit : nearest) {
				found.add(new TextSearch.Found(this.index.passages().get(hit.row()), hit.score()));
			}
			query.result().complete(new TextSearch.Result(query.ids().length, batch.size(),
					(embedded - start) / 1_000, scan.path(), (scanned - scanStart) / 1_000, query.corpus().rows(), found));
		}
	}

	/** A query waiting to be served. */
	private record Query(long[] ids, int k, Corpus corpus, CompletableFuture<TextSearch.Result> result) {
	}
}
