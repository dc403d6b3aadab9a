package io.uform.host;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One queued deferred call and the future it completes. Its fields are part of its
 * {@link DeferredCalls}' shared state; that class's invariants say who writes each.
 */
final class DeferredCall<T> implements Runnable {

	final DeferredCalls owner;

	/** Its number, from 1 in submission order; set under the owner's lock as it is queued. */
	long sequence;

	/** What reports name: the submitted call, also where a {@link WrappedCall} runs it. */
	final Object callable;

	private final Callable<T> runs;

	final CompletableFuture<T> future;

	/**
	 * For a call submitted without a future ({@link DeferredCalls#submitWithoutFuture}): hears how it
	 * ended, on the runner; {@code null} for a call whose future was handed out.
	 */
	final Consumer<Throwable> ended;

	/** Whether {@link #ended} has run; written and read by the runner only. */
	boolean endHeard;

	/** When the submitter was given a slot: the start of the call's wait. */
	final long acceptedNanos;

	volatile long startedNanos;

	/** How it ended, and with what; written by the runner before {@link DeferredCalls#finish}. */
	DeferredCalls.Outcome outcome = DeferredCalls.Outcome.FAILED;

	T result;

	Throwable thrown;

	/** Its outcome counted and its slot freed; guarded by the owner's lock. */
	boolean settled;

	/** Counted finished; guarded by the owner's lock. */
	boolean counted;

	DeferredCall(DeferredCalls owner, long sequence, Callable<T> callable, CompletableFuture<T> future,
			Consumer<Throwable> ended, long acceptedNanos) {
		this.owner = owner;
		this.sequence = sequence;
		this.runs = callable;
		Object named = callable;
		while (named instanceof WrappedCall wrapper) {
			named = wrapper.wrapped();
		}
		this.callable = named;
		this.future = future;
		this.ended = ended;
		this.acceptedNanos = acceptedNanos;
	}

	/** Runs the callable on the runner and records how it ended; never throws. */
	void execute() {
		DeferredCalls runner = this.owner;
		long started = System.nanoTime();
		this.startedNanos = started;
		runner.counts.recordStart(started - this.acceptedNanos);
		try {
			if (runner.beforeEachCall != null) {
				runner.beforeEachCall.run();
			}
			this.result = this.runs.call();
			this.outcome = DeferredCalls.Outcome.COMPLETED;
		}
		catch (Throwable ex) {
			this.thrown = ex;
			this.outcome = DeferredCalls.Outcome.FAILED;
		}
		// Counted before finish() completes the future, so whoever sees the future done sees the call timed.
		runner.counts.recordRun(System.nanoTime() - started);
	}

	/** The completion's last step, on whichever thread completed the future: counts it finished. */
	@Override
	public void run() {
		this.owner.countFinished(this);
	}
}
