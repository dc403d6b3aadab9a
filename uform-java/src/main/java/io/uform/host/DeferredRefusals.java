package io.uform.host;

import io.uform.failure.FailureFactory;

/**
 * What one executor's {@link DeferredCalls} say when they refuse: a call submitted after they
 * closed, a call they dropped, and a wait from a thread the calls may themselves be waiting for.
 * Each message names the executor, what was refused and what to do instead. Immutable.
 */
final class DeferredRefusals {

	private final String name;

	private final FailureFactory errors;

	DeferredRefusals(String name, FailureFactory errors) {
		this.name = name;
		this.errors = errors;
	}

	/** No runner thread could be started. */
	RuntimeException runnerNotStarted(OutOfMemoryError ex) {
		return this.errors.outOfMemory("Executor '" + this.name + "' could not start its deferred-call "
				+ "thread (" + ex.getMessage() + "); raise the process's thread limit (ulimit -u, a container's pids "
				+ "limit) or free executors you no longer use", ex);
	}

	/** A submission without a call. */
	RuntimeException noCall() {
		return this.errors.invalid("deferred call", null, "pass a Callable or Runnable to defer()");
	}

	/**
	 * A submission after the calls closed.
	 * @param freed whether the stop marker is queued (a free), rather than only new calls refused
	 */
	RuntimeException closed(boolean freed) {
		if (freed) {
			return this.errors.freed("Executor '" + this.name + "' was freed; deferred calls can no longer be submitted "
					+ "to it");
		}
		return this.errors.freed("Executor '" + this.name + "' refuses new deferred calls: it is being "
				+ "freed (refuseDeferred() was called; a Spring application context calls it when it closes). Forks "
				+ "still run until the executor is freed: run the work as a fork, or defer it before the close");
	}

	/** The failure a dropped call's future completes with. */
	RuntimeException dropped(long sequence, String why) {
		return this.errors.freed("Executor '" + this.name + "' dropped deferred call #" + sequence
				+ " before it started: " + why);
	}

	/** A free from inside a deferred call, which would wait for itself. */
	RuntimeException freeFromRunner() {
		return this.errors.invalidArgument("free() was called from inside a deferred call of '" + this.name
				+ "', which would wait for itself; free the executor from outside it");
	}

	/** A wait for the calls from inside one of them. */
	RuntimeException waitFromRunner(String what) {
		return this.errors.invalidArgument(what + " was called from inside a deferred call of '"
				+ this.name + "', which would wait for itself; call " + what + " from outside the executor");
	}

	/** A blocking wait, on the runner, for a deferred call of the same executor that has not run. */
	RuntimeException waitBehindItself(String what) {
		return this.errors.invalidArgument(what + " was called on the future of a deferred call of '" + this.name
				+ "' from inside another deferred call of it; calls run one at a time, so the awaited one runs only "
				+ "after this one returns: it would wait for ever. Do the work inline here (Executor.isOwnThread() "
				+ "tells where), or chain it (thenApply, thenAccept) instead of waiting");
	}

	/** A wait for the calls from a continuation that runs as one of them completes. */
	RuntimeException waitFromContinuation(String what) {
		return this.errors.invalidArgument(what + " was called from a continuation of a deferred call "
				+ "of '" + this.name + "' that runs as the call completes, and the call counts as finished only once its "
				+ "continuations return: it would wait for itself. Attach the continuation with an ...Async method "
				+ "(thenRunAsync, whenCompleteAsync), or call " + what + " from outside");
	}
}
