package io.uform.sample.search;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.uform.Executor;
import io.uform.UformException;
import io.uform.sample.embedding.EmbeddingMetrics;
import io.uform.sample.embedding.ExecutorEmbedder;
import io.uform.sample.embedding.MiniLm;

/**
 * Serves text searches in batches: each search still submits one deferred call (so searches keep the
 * executor's {@code deferred-limit}, its 503 on saturation and its order), but a call takes every query
 * waiting at that moment, not only its own, embeds them together sliced across the executor's threads,
 * then scans the passages for each. A query alone is one text on one thread; queries that arrive
 * together keep every thread embedding. A call that finds its query already served has nothing to do.
 * Each text is still its own session call, so a query's vector and hits are those it would get alone.
 *
 * <p>Where threads meet: {@code waiting} is a lock-free queue; request threads add to it, deferred
 * calls (one at a time, on the executor's deferred thread) take from it. A query is taken by exactly
 * one call ({@code poll}), or withdrawn by its own request ({@code remove}) when its deferred call was
 * refused, or by the completion of its call when that call failed without running (the executor
 * freed first); whichever succeeds owns it. Its future is completed by its owner and read by the
 * request thread.
 */
final class QueryBatch {

	private final ConcurrentLinkedQueue<Query> waiting = new ConcurrentLinkedQueue<>();

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
	 * @param text the query, checked to be non-blank and of a sane length
	 * @param k hits, from 1 to the corpus's rows
	 * @param corpus the passages' embeddings
	 * @return what was found
	 */
	TextSearch.Result search(String text, int k, Corpus corpus) {
		Query query = new Query(text, k, corpus, new CompletableFuture<>());
		this.waiting.add(query);
		CompletableFuture<Void> call;
		try {
			call = this.executor.defer(this::serveWaiting, this.slotWait);
		}
		catch (UformException ex) {
			if (this.waiting.remove(query)) {
				// Nobody took it: it is refused as the call was (saturated, or shutting down).
				throw ex;
			}
			// An earlier call took it meanwhile and will answer it.
			return DeferredSearch.await(query.result());
		}
		// A call that never ran (the executor freed first) must not leave its query waiting forever.
		call.whenComplete((ignored, failure) -> {
			if (failure != null && this.waiting.remove(query)) {
				query.result().completeExceptionally(failure);
			}
		});
		return DeferredSearch.await(query.result());
	}

	/** One deferred call: every query waiting now, up to the batch's size. */
	private Void serveWaiting() {
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
		return null;
	}

	private void serve(List<Query> batch) {
		long start = System.nanoTime();
		List<String> texts = new ArrayList<>(batch.size());
		for (Query query : batch) {
			texts.add(query.text());
		}
		long[][] ids = this.embedder.tokenize(texts);
		List<Query> fitting = new ArrayList<>(batch.size());
		List<long[]> fittingIds = new ArrayList<>(batch.size());
		long tokens = 0;
		for (int i = 0; i < ids.length; i++) {
			if (ids[i].length > MiniLm.MAX_TOKENS) {
				batch.get(i).result().completeExceptionally(TextSearch.tooLong("query", ids[i].length));
				continue;
			}
			fitting.add(batch.get(i));
			fittingIds.add(ids[i]);
			tokens += ids[i].length;
		}
		if (fitting.isEmpty()) {
			return;
		}
		float[][] vectors = this.embedder.embed(fittingIds);
		long embedded = System.nanoTime();
		this.metrics.record("query", fitting.size(), tokens, embedded - start);
		for (int i = 0; i < fitting.size(); i++) {
			Query query = fitting.get(i);
			long scanStart = System.nanoTime();
			RamExecutorSearch scan = new RamExecutorSearch(this.executor, query.corpus(), this.slotWait);
			List<Hit> nearest = scan.scan(vectors[i], query.k());
			long scanned = System.nanoTime();
			List<TextSearch.Found> found = new ArrayList<>(nearest.size());
			for (Hit hit : nearest) {
				found.add(new TextSearch.Found(this.index.passages().get(hit.row()), hit.score()));
			}
			query.result().complete(new TextSearch.Result(fittingIds.get(i).length, fitting.size(),
					(embedded - start) / 1_000, scan.path(), (scanned - scanStart) / 1_000, query.corpus().rows(), found));
		}
	}

	/** A query waiting to be served. */
	private record Query(String text, int k, Corpus corpus, CompletableFuture<TextSearch.Result> result) {
	}
}
