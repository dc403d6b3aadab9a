package io.uform.onnxruntime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.uform.Executor;
import io.uform.UformException;

/**
 * A model's request path on its executor. Every waiting request is backed by one deferred call
 * that will take it, so requests keep the executor's {@code deferred-limit}, its order and its clear
 * saturation error; but a call takes every request waiting, and those that arrive while it runs, up to
 * a token budget, and embeds them together: the executor's threads take texts one at a time, so none
 * idles at a batch's tail while another finishes a long text, and a request queued meanwhile does not
 * wait for the batch to end.
 *
 * <p>A request taken by another call than its backer no longer needs that backer, which is still
 * queued and holds a slot until the executor runs it: the backer becomes a <em>spare</em>, and the
 * model's next request adopts it instead of submitting a call of its own. So the slots a model holds
 * are its waiting requests, its running call and its spares; a served request's client that comes back
 * takes its old slot again rather than a second one, and only a request that finds no spare asks the
 * executor for a slot (and gets its saturation error on its own thread). A spare nobody adopts runs
 * when its turn comes, serves whatever is waiting then, or returns at once.
 *
 * <p>A request made on one of the executor's own threads (its deferred thread, a task of a fork) is
 * served inline there instead, alone: deferred and awaited, it would wait behind its own caller.
 *
 * <p>A call runs its backed request first (its <em>owner</em>, which may be newer than the head of
 * the queue when it adopted a spare: it is served in the order of the slot it holds), then the
 * waiting requests in arrival order.
 *
 * <h2>Where threads meet</h2>
 * <table>
 * <caption>shared state</caption>
 * <tr><th>field</th><th>written by</th><th>read by</th><th>why it is safe</th></tr>
 * <tr><td>{@code waiting}, {@code spares}, every {@code Call}'s {@code owner}, {@code confirmed},
 * {@code started}, and every {@code Request}'s {@code backer}</td><td>callers (add, adopt a spare,
 * confirm their submission, withdraw on refusal or interrupt), deferred calls (start, take) and the
 * completion of a call dropped unstarted</td><td>the same</td><td>every access under this object's
 * monitor. Invariant after each: every request in {@code waiting} has a backer that has not started
 * and either is confirmed (its {@code defer} returned) or is being submitted by the request's own
 * caller; a backer's {@code owner} is that request; {@code spares} holds exactly the confirmed calls
 * that have not started and back nobody. Only a confirmed spare is adopted, so a submission that fails
 * strands nobody but its own request, which its caller withdraws (or, taken meanwhile, awaits); a
 * started call takes its owner first, so a backed request is never left behind by its budget; a call
 * dropped unstarted fails its owner. A request is taken by one call or withdrawn by its caller,
 * whichever gets it out of {@code waiting} first, and only that one completes it</td></tr>
 * <tr><td>a batch's requests taken and its next text</td><td>the executor's threads of its call</td>
 * <td>the same</td><td>under this object's monitor; a text's session call runs outside it</td></tr>
 * <tr><td>a request's {@code vectors}</td><td>the thread that embeds each text, one writer per
 * index</td><td>the caller</td><td>each write comes before the thread's decrement of
 * {@code remaining}; the last decrement completes {@code result}, which publishes them all</td></tr>
 * <tr><td>a request's {@code result}</td><td>its owner (the call that took it, or the caller or
 * completion that withdrew it)</td><td>the caller</td><td>{@code CompletableFuture} publishes
 * it</td></tr>
 * </table>
 * Nothing that can block or run a continuation (submitting, completing a request) happens under the
 * monitor.
 */
final class DeferredBatches {

	private static final System.Logger LOG = System.getLogger(DeferredBatches.class.getName());

	private final ArrayDeque<Request> waiting = new ArrayDeque<>();

	/** Confirmed calls, not started, that back no request, in the order they became spares. */
	private final ArrayDeque<Call> spares = new ArrayDeque<>();

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
		if (this.executor.isOwnThread()) {
			// A deferred call of the executor (an @Async task on its view, say) or one of its tasks: a
			// call deferred from here would queue behind this very thread's work and never be served.
			return serveInline(request);
		}
		Call call;
		synchronized (this) {
			this.waiting.add(request);
			Call spare = this.spares.pollFirst();
			if (spare != null) {
				// A call queued for a request that another call took: this request takes its slot over.
				back(request, spare);
				call = null;
			}
			else {
				call = new Call();
				back(request, call);
			}
		}
		if (call != null) {
			submit(request, call);
		}
		return await(request);
	}

	/** Submits a request's own backer; returns normally when the request will be answered. */
	private void submit(Request request, Call call) {
		CompletableFuture<Void> future;
		try {
			future = this.executor.defer(call, this.options.slotWait());
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				call.started = true;
				if (call.owner == null) {
					// Another call took the request meanwhile and answers it.
					return;
				}
				release(call.owner);
				this.waiting.remove(request);
			}
			// Nobody took it: it is refused as the submission was (saturated, freed, interrupted).
			throw ex;
		}
		synchronized (this) {
			call.confirmed = true;
			if (!call.started && call.owner == null) {
				this.spares.add(call);
			}
		}
		// A call that never ran (the executor freed first) must not leave its request waiting forever.
		future.whenComplete((ignored, failure) -> {
			if (failure != null) {
				dropped(call, failure);
			}
		});
	}

	/** A call completed without running: the request it backs, if any, fails as it did. */
	private void dropped(Call call, Throwable failure) {
		Request owner;
		synchronized (this) {
			if (call.started) {
				// It ran, and failed its batch's requests itself.
				return;
			}
			call.started = true;
			this.spares.remove(call);
			owner = call.owner;
			if (owner == null) {
				return;
			}
			release(owner);
			this.waiting.remove(owner);
		}
		owner.result().completeExceptionally(failure);
	}

	/** Makes {@code call} the request's backer; the caller holds the monitor. */
	private void back(Request request, Call call) {
		request.backer = call;
		call.owner = request;
	}

	/**
	 * The request leaves {@code waiting} (taken or withdrawn): its backer, if it has not started, backs
	 * nobody now, and is a spare once its submission is confirmed. The caller holds the monitor.
	 */
	private void release(Request request) {
		Call backer = request.backer;
		request.backer = null;
		if (backer == null) {
			return;
		}
		backer.owner = null;
		if (backer.confirmed && !backer.started) {
			this.spares.add(backer);
		}
	}

	/** Withdraws a request whose caller stopped waiting; {@code true} when nobody had taken it. */
	private synchronized boolean withdraw(Request request) {
		if (!this.waiting.remove(request)) {
			return false;
		}
		release(request);
		return true;
	}

	/**
	 * One deferred call: a batch of its owner and the requests waiting, grown while it runs. The
	 * executor's threads (or devices) each take the batch's next text until none is left; when the texts
	 * taken run out, the batch takes the next waiting request, within the token budget (the first one
	 * always), so a request that arrives while the batch runs joins it instead of waiting for a whole
	 * batch to end, and no thread idles at a batch's tail while another finishes a long text.
	 */
	private Void serveWaiting(Call call) {
		Batch batch = new Batch();
		if (!batch.start(call)) {
			// A spare with nothing waiting: give the slot back at once.
			return null;
		}
		run(batch);
		return null;
	}

	/**
	 * Serves one request on the current thread, one of the executor's own: its texts alone (the
	 * requests waiting stay with their backers), across every lane, as a nested fork runs: from the
	 * deferred thread the lanes fork over the executor's threads; inside a task, on this thread only.
	 */
	private Served serveInline(Request request) {
		Batch batch = new Batch();
		batch.startInline(request);
		run(batch);
		return await(request);
	}

	/** Runs a started batch on every lane, then tells the listener; a failed fork fails its requests. */
	private void run(Batch batch) {
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

		/** The call that will take it while it waits; {@code null} once out of {@code waiting}. */
		private Call backer;

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

		/** Serves only the request it started with ({@link #startInline}). */
		private boolean inline;

		/**
		 * Starts the batch of {@code call}: takes the request it backs, or else the first one waiting.
		 * @param call the deferred call that runs this batch
		 * @return whether there is one
		 */
		boolean start(Call call) {
			synchronized (DeferredBatches.this) {
				call.started = true;
				if (call.owner == null) {
					DeferredBatches.this.spares.remove(call);
					return take();
				}
				// Its own request first, whatever the budget: no other call backs it.
				Request owner = call.owner;
				DeferredBatches.this.waiting.remove(owner);
				add(owner);
				return true;
			}
		}

		/**
		 * Starts an inline batch of one request that was never waiting: it takes no other, since its
		 * caller must not pay for theirs.
		 */
		void startInline(Request request) {
			synchronized (DeferredBatches.this) {
				this.inline = true;
				add(request);
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
			if (this.inline || waitingNext == null
					|| (!this.taken.isEmpty() && this.tokens + waitingNext.tokens() > DeferredBatches.this.options.maxBatchTokens())) {
				return false;
			}
			DeferredBatches.this.waiting.poll();
			add(waitingNext);
			return true;
		}

		/** Adds a request just out of {@code waiting}; its backer is a spare now. Under the monitor. */
		private void add(Request request) {
			release(request);
			this.taken.add(request);
			this.tokens += request.tokens();
			this.current = request;
			this.next = 0;
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

	/**
	 * One deferred call of this model: it backs at most one waiting request (its owner) and runs a
	 * batch when the executor gets to it. Its fields are read and written under the
	 * {@link DeferredBatches} monitor.
	 */
	private final class Call implements Callable<Void> {

		/** The waiting request it backs, or {@code null}: a spare (once confirmed) or a finished call. */
		private Request owner;

		/** Whether {@code defer} accepted it. */
		private boolean confirmed;

		/** Whether it started, or will never run (refused, dropped): no longer adoptable. */
		private boolean started;

		@Override
		public Void call() {
			return serveWaiting(this);
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
