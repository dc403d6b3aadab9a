package io.uform.onnxruntime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

import io.uform.Executor;
import io.uform.UformException;

/**
 * A model's request path on its executor: each request submits one deferred call (so requests keep
 * the executor's {@code deferred-limit}, its order and its clear saturation error), but a call takes
 * every request waiting at that moment, up to a token budget, and embeds them together. A call that
 * finds its request already served by an earlier one returns at once, giving its slot back.
 *
 * <h2>Where threads meet</h2>
 * <table>
 * <caption>shared state</caption>
 * <tr><th>field</th><th>written by</th><th>read by</th><th>why it is safe</th></tr>
 * <tr><td>{@code waiting}</td><td>callers (add; remove when their deferred call was refused or never
 * ran) and deferred calls (take)</td><td>the same</td><td>every access under this object's monitor;
 * a request is taken by one call or withdrawn by its caller, whichever gets it out of the queue
 * first, and only that one completes it</td></tr>
 * <tr><td>a request's {@code result}</td><td>its owner (the call that took it, or the caller or
 * completion that withdrew it)</td><td>the caller</td><td>{@code CompletableFuture} publishes
 * it</td></tr>
 * </table>
 */
final class DeferredBatches {

	private static final System.Logger LOG = System.getLogger(DeferredBatches.class.getName());

	private final ArrayDeque<Request> waiting = new ArrayDeque<>();

	private final Executor executor;

	private final Function<List<long[]>, float[][]> embedder;

	private final TextEmbeddingOptions options;

	/**
	 * @param executor where the calls run
	 * @param embedder embeds tokenized texts on the executor's threads, from a deferred call
	 * @param options the token budget, slot wait and listener
	 */
	DeferredBatches(Executor executor, Function<List<long[]>, float[][]> embedder, TextEmbeddingOptions options) {
		this.executor = executor;
		this.embedder = embedder;
		this.options = options;
	}

	/**
	 * Embeds a request's texts, waiting for the call that serves it.
	 * @param ids each text's token ids
	 * @param tokens their sum
	 * @return a vector per text, in order, and the batch that served them
	 * @throws UformException the executor's own: saturated ({@code TIMEOUT}), freed ({@code FREED}),
	 *         interrupted
	 */
	Served embed(List<long[]> ids, long tokens) {
		Request request = new Request(ids, tokens, new CompletableFuture<>());
		synchronized (this) {
			this.waiting.add(request);
		}
		CompletableFuture<Void> call;
		try {
			call = this.executor.defer(this::serveWaiting, this.options.slotWait());
		}
		catch (RuntimeException ex) {
			if (withdraw(request)) {
				// Nobody took it: it is refused as the call was (saturated, freed, interrupted).
				throw ex;
			}
			// An earlier call took it and answers it.
			return await(request);
		}
		// A call that never ran (the executor freed first) must not leave its request waiting forever.
		call.whenComplete((ignored, failure) -> {
			if (failure != null && withdraw(request)) {
				request.result().completeExceptionally(failure);
			}
		});
		return await(request);
	}

	private synchronized boolean withdraw(Request request) {
		return this.waiting.remove(request);
	}

	/** One deferred call: the requests waiting now, within the token budget (the first one always). */
	private Void serveWaiting() {
		List<Request> batch = new ArrayList<>();
		long tokens = 0;
		synchronized (this) {
			Request next;
			while ((next = this.waiting.peek()) != null
					&& (batch.isEmpty() || tokens + next.tokens() <= this.options.maxBatchTokens())) {
				batch.add(this.waiting.poll());
				tokens += next.tokens();
			}
		}
		if (batch.isEmpty()) {
			return null;
		}
		try {
			serve(batch, tokens);
		}
		catch (RuntimeException | Error ex) {
			for (Request request : batch) {
				request.result().completeExceptionally(ex);
			}
			throw ex;
		}
		return null;
	}

	private void serve(List<Request> batch, long tokens) {
		long start = System.nanoTime();
		List<long[]> texts = new ArrayList<>();
		for (Request request : batch) {
			texts.addAll(request.ids());
		}
		float[][] vectors = this.embedder.apply(texts);
		EmbeddingBatch served = new EmbeddingBatch(this.options.name(), texts.size(), tokens, batch.size(),
				System.nanoTime() - start);
		int next = 0;
		for (Request request : batch) {
			float[][] own = new float[request.ids().size()][];
			System.arraycopy(vectors, next, own, 0, own.length);
			next += own.length;
			request.result().complete(new Served(own, served));
		}
		try {
			this.options.listener().embedded(served);
		}
		catch (RuntimeException ex) {
			LOG.log(System.Logger.Level.WARNING, "the EmbeddingListener of model '" + this.options.name()
					+ "' failed; the vectors were delivered", ex);
		}
	}

	private Served await(Request request) {
		try {
			return request.result().get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			withdraw(request);
			throw new UformException(UformException.Status.INTERRUPTED, "interrupted while waiting for model '"
					+ this.options.name() + "' to embed " + request.ids().size() + " texts; they were not embedded, or "
					+ "were embedded for nobody", ex);
		}
		catch (CancellationException ex) {
			throw new UformException(UformException.Status.FREED, "the call embedding with model '"
					+ this.options.name() + "' was cancelled", ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException("model '" + this.options.name() + "' failed: " + cause, cause);
		}
	}

	/**
	 * A request's answer.
	 * @param vectors its texts' vectors, in order
	 * @param batch the batch that served it
	 */
	record Served(float[][] vectors, EmbeddingBatch batch) {
	}

	/** A request waiting to be served: the ids of its texts, their tokens, and its answer. */
	private record Request(List<long[]> ids, long tokens, CompletableFuture<Served> result) {

		// Identity, not the record's value equality: two requests with equal texts are two requests.
		@Override
		public boolean equals(Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this);
		}
	}
}
