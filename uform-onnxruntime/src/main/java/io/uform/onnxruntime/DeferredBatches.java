package io.uform.onnxruntime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.uform.Executor;
import io.uform.UformException;

/**
 * A model's request path on its executor: each request submits one deferred call (so requests keep
 * the executor's {@code deferred-limit}, its order and its clear saturation error), but a call takes
 * every request waiting, and those that arrive while it runs, up to a token budget, and embeds them
 * together: the executor's threads take texts one at a time, so none idles at a batch's tail while
 * another finishes a long text, and a request queued meanwhile does not wait for the batch to end.
 * A call that finds its request already served by an earlier one returns at once, giving its slot back.
 *
 * <h2>Where threads meet</h2>
 * <table>
 * <caption>shared state</caption>
 * <tr><th>field</th><th>written by</th><th>read by</th><th>why it is safe</th></tr>
 * <tr><td>{@code waiting}</td><td>callers (add; remove when their deferred call was refused or never
 * ran) and deferred calls (take)</td><td>the same</td><td>every access under this object's monitor;
 * a request is taken by one call or withdrawn by its caller, whichever gets it out of the queue
 * first, and only that one completes it</td></tr>
 * <tr><td>a batch's requests taken and its next text</td><td>the executor's threads of its call</td>
 * <td>the same</td><td>under this object's monitor; a text's session call runs outside it</td></tr>
 * <tr><td>a request's {@code vectors}</td><td>the thread that embeds each text, one writer per
 * index</td><td>the caller</td><td>each write comes before the thread's decrement of
 * {@code remaining}; the last decrement completes {@code result}, which publishes them all</td></tr>
 * <tr><td>a request's {@code result}</td><td>its owner (the call that took it, or the caller or
 * completion that withdrew it)</td><td>the caller</td><td>{@code CompletableFuture} publishes
 * it</td></tr>
 * </table>
 */
final class DeferredBatches {

	private static final System.Logger LOG = System.getLogger(DeferredBatches.class.getName());

	private final ArrayDeque<Request> waiting = new ArrayDeque<>();

	private final Executor executor;

	private final Lanes lanes;

	private final TextEmbeddingOptions options;

	/**
	 * @param executor where the calls run
	 * @param lanes runs a loop on each of the executor's threads (or devices), from a deferred call
	 * @param options the token budget, slot wait and listener
	 */
	DeferredBatches(Executor executor, Lanes lanes, TextEmbeddingOptions options) {
		this.executor = executor;
		this.lanes = lanes;
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
		Request request = new Request(ids, tokens);
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

	/**
	 * One deferred call: a batch of the requests waiting, grown while it runs. The executor's threads
	 * (or devices) each take the batch's next text until none is left; when the texts taken run out, the
	 * batch takes the next waiting request, within the token budget (the first one always), so a request
	 * that arrives while the batch runs joins it instead of waiting for a whole batch to end, and no
	 * thread idles at a batch's tail while another finishes a long text.
	 */
	private Void serveWaiting() {
		Batch batch = new Batch();
		if (!batch.hasWork()) {
			// Its request was served by an earlier call (or withdrawn): give the slot back at once.
			return null;
		}
		try {
			this.lanes.run(batch::work);
		}
		catch (RuntimeException | Error ex) {
			batch.fail(ex);
			throw ex;
		}
		try {
			this.options.listener().embedded(batch.soFar());
		}
		catch (RuntimeException ex) {
			LOG.log(System.Logger.Level.WARNING, "the EmbeddingListener of model '" + this.options.name()
					+ "' failed; the vectors were delivered", ex);
		}
		return null;
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
	 * @param batch the batch that served it, as it stood when the request's last text was embedded (a
	 *        batch grows while it runs; the listener hears it whole when its call ends)
	 */
	record Served(float[][] vectors, EmbeddingBatch batch) {
	}

	/**
	 * A request waiting to be served: the ids of its texts, their tokens, its vectors as they are made,
	 * and its answer, completed by the thread that makes its last vector (the count's decrement orders
	 * every thread's vector before it). Equal by identity: two requests with equal texts are two.
	 */
	private static final class Request {

		private final List<long[]> ids;

		private final long tokens;

		private final CompletableFuture<Served> result = new CompletableFuture<>();

		private final float[][] vectors;

		private final AtomicInteger remaining;

		Request(List<long[]> ids, long tokens) {
			this.ids = ids;
			this.tokens = tokens;
			this.vectors = new float[ids.size()][];
			this.remaining = new AtomicInteger(ids.size());
		}

		List<long[]> ids() {
			return this.ids;
		}

		long tokens() {
			return this.tokens;
		}

		CompletableFuture<Served> result() {
			return this.result;
		}

		/** Embeds text {@code index}; the last one answers the caller, a failure answers it at once. */
		void embed(int index, ModelSession session, Batch batch) {
			if (this.result.isDone()) {
				// An earlier text of it failed: the caller has its answer.
				return;
			}
			try {
				this.vectors[index] = session.embed(this.ids.get(index));
			}
			catch (RuntimeException ex) {
				this.result.completeExceptionally(ex);
				return;
			}
			if (this.remaining.decrementAndGet() == 0) {
				this.result.complete(new Served(this.vectors, batch.soFar()));
			}
		}
	}

	/**
	 * The requests one deferred call serves, and which text is next. Every field is read and written
	 * under the {@link DeferredBatches} monitor (the threads take texts from it one at a time; a text's
	 * session call, far longer, runs outside it).
	 */
	private final class Batch {

		private final List<Request> taken = new ArrayList<>();

		private final long start = System.nanoTime();

		private Request current;

		private int next;

		private int texts;

		private long tokens;

		/**
		 * Takes the first request waiting, if any.
		 * @return whether there is one
		 */
		boolean hasWork() {
			synchronized (DeferredBatches.this) {
				return take();
			}
		}

		/** One thread's share: texts until none is left. */
		void work(ModelSession session) {
			while (true) {
				Request request;
				int index;
				synchronized (DeferredBatches.this) {
					if (this.current == null || (this.next == this.current.ids().size() && !take())) {
						return;
					}
					request = this.current;
					index = this.next++;
					this.texts++;
				}
				request.embed(index, session, this);
			}
		}

		/** Takes the next waiting request within the budget; the caller holds the monitor. */
		private boolean take() {
			Request waitingNext = DeferredBatches.this.waiting.peek();
			if (waitingNext == null
					|| (!this.taken.isEmpty() && this.tokens + waitingNext.tokens() > DeferredBatches.this.options.maxBatchTokens())) {
				return false;
			}
			DeferredBatches.this.waiting.poll();
			this.taken.add(waitingNext);
			this.tokens += waitingNext.tokens();
			this.current = waitingNext;
			this.next = 0;
			return true;
		}

		/** The executor's fork failed (an Error, or the executor itself): every request taken fails. */
		void fail(Throwable failure) {
			List<Request> all;
			synchronized (DeferredBatches.this) {
				all = List.copyOf(this.taken);
			}
			for (Request request : all) {
				request.result().completeExceptionally(failure);
			}
		}

		/** The batch as it stands now: what a request answered before the call ends is told. */
		EmbeddingBatch soFar() {
			synchronized (DeferredBatches.this) {
				return new EmbeddingBatch(DeferredBatches.this.options.name(), this.texts, this.tokens, this.taken.size(),
						System.nanoTime() - this.start);
			}
		}
	}

	/** Runs one loop on each of the executor's threads, or on each of its devices, with its session. */
	@FunctionalInterface
	interface Lanes {

		/**
		 * Runs {@code work} on every lane and returns when all have returned.
		 * @param work gets the session its lane calls
		 */
		void run(Consumer<ModelSession> work);
	}
}
