package io.uform;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.RejectedExecutionException;

import io.uform.UformException.Status;
import io.uform.host.WrappedCall;

/**
 * An {@link Executor} seen as a {@link java.util.concurrent.Executor}, for code that takes one:
 * {@code CompletableFuture.supplyAsync(task, view)}, Spring's {@code @Async} (through the starter's
 * {@code AsyncTaskExecutor} bean), a library's callback executor. Each task is a deferred call of the
 * executor ({@link Executor#defer(Callable, Duration)}), with the same semantics:
 *
 * <ul>
 * <li>Tasks run <strong>in submission order, one at a time, on the executor's deferred thread</strong>,
 * and each is free to fork across <em>every</em> thread of the executor ({@link Executor#forN} and
 * the rest). Compute that forks gets the whole machine; it is not a pool that runs many tasks side by
 * side. Blocking I/O (a database, an HTTP call, a file) belongs on Spring Boot's
 * {@code applicationTaskExecutor} or on virtual threads: a task that blocks here holds up every task
 * behind it.</li>
 * <li>At most the executor's {@code deferredLimit} tasks are in flight. Beyond that,
 * {@link #execute} waits for a slot up to {@code maxWait} (as long as it takes when that is
 * {@code null}), then throws {@link RejectedExecutionException} naming the limit;
 * {@link Duration#ZERO} rejects at once.</li>
 * <li>A task runs in its submitter's context (trace, logging MDC, security context) through the
 * executor's {@link ExecutorHooks}, as a deferred call does.</li>
 * <li>Once the executor refuses deferred calls ({@link Executor#refuseDeferred}, which a Spring
 * application context calls as it closes) or is freed, {@link #execute} throws
 * {@link RejectedExecutionException} saying so; tasks accepted before still run.</li>
 * <li>A task submitted from the executor's own deferred thread, or from inside one of its tasks, runs
 * inline on the submitting thread before {@code execute} returns, as a fork inside a task runs inline:
 * queued, it would wait behind the very call that waits for it.</li>
 * <li>A task that throws is reported to the uncaught-exception handler of the deferred thread, right
 * after it, as a {@link java.util.concurrent.ThreadPoolExecutor} reports a task that throws on its
 * worker; one that the executor drops unstarted when a bounded free gives up is reported on the
 * thread that completes the drop; one that is a {@link RunnableFuture} (a {@code submit} method's, an
 * {@code @Async} method's) is cancelled instead, as Spring's own executors cancel what their shutdown
 * drops, so its waiter gets a {@link java.util.concurrent.CancellationException}. The executor stays
 * usable. A handler that blocks holds up the tasks
 * behind. Wrap the task in a {@link java.util.concurrent.FutureTask} (as {@code submit} methods do)
 * to receive the failure instead.</li>
 * </ul>
 *
 * Immutable and thread-safe; it owns nothing, so freeing the executor is its owner's job.
 */
public final class DeferredCallExecutor implements java.util.concurrent.Executor {

	private final Executor executor;

	private final Duration maxWait;

	private DeferredCallExecutor(Executor executor, Duration maxWait) {
		this.executor = executor;
		this.maxWait = maxWait;
	}

	/**
	 * A view whose {@link #execute} waits as long as it takes for a deferred-call slot.
	 * @param executor the executor the tasks run on
	 * @return the view
	 */
	public static DeferredCallExecutor of(Executor executor) {
		return of(executor, null);
	}

	/**
	 * A view whose {@link #execute} waits at most {@code maxWait} for a deferred-call slot.
	 * @param executor the executor the tasks run on
	 * @param maxWait longest wait for a slot; {@link Duration#ZERO} rejects at once when all are taken;
	 *        {@code null} waits as long as it takes
	 * @return the view
	 * @throws UformException {@link Status#INVALID_ARGUMENT} without an executor or for a negative wait
	 */
	public static DeferredCallExecutor of(Executor executor, Duration maxWait) {
		UformException.requireArgument(executor, "executor", "pass the io.uform.Executor the tasks should run on");
		if (maxWait != null && maxWait.isNegative()) {
			throw UformException.invalid("maxWait", maxWait, "must be zero (reject at once) or positive, or null to wait");
		}
		return new DeferredCallExecutor(executor, maxWait);
	}

	/**
	 * Runs the task as a deferred call of the executor, or inline on one of the executor's own threads.
	 * @param task the task
	 * @throws NullPointerException without a task
	 * @throws RejectedExecutionException when every deferred-call slot stayed taken for {@code maxWait}
	 *         (the message names the limit), when the thread was interrupted while it waited (its flag
	 *         stays set), or once the executor refuses deferred calls or is freed
	 */
	@Override
	public void execute(Runnable task) {
		Objects.requireNonNull(task, "task");
		if (this.executor.isOwnThread()) {
			// The submitter's context is this thread's already; no hooks, as a nested fork has none.
			runReporting(task);
			return;
		}
		try {
			// Without a future: none would reach the submitter, and completing one would wake a
			// completion thread per task only to find nothing attached but the failure report.
			this.executor.deferWithoutFuture(new Task(task), this.maxWait, (failure) -> ended(task, failure));
		}
		catch (UformException ex) {
			if (ex.status() == Status.FREED || ex.status() == Status.TIMEOUT || ex.status() == Status.INTERRUPTED) {
				throw new RejectedExecutionException(ex.getMessage(), ex);
			}
			throw ex;
		}
	}

	/**
	 * The executor the tasks run on.
	 * @return the executor
	 */
	public Executor executor() {
		return this.executor;
	}

	/**
	 * How long {@link #execute} waits for a deferred-call slot.
	 * @return the wait; {@code null} for as long as it takes
	 */
	public Duration maxWait() {
		return this.maxWait;
	}

	@Override
	public String toString() {
		return "DeferredCallExecutor[" + this.executor.name() + ", maxWait=" + ((this.maxWait != null) ? this.maxWait : "none")
				+ "]";
	}

	private static void runReporting(Runnable task) {
		try {
			task.run();
		}
		catch (Throwable ex) {
			report(ex);
		}
	}

	/**
	 * A task's end: a failure is reported; a task that is a {@link Future} and never ran (a bounded free
	 * dropped it) is cancelled first, as Spring's own executors cancel what their shutdown drops. For a
	 * {@link RunnableFuture} (what {@code submit} methods and {@code @Async} hand over) the cancellation
	 * tells whoever waits on it, so it is not reported too.
	 */
	private static void ended(Runnable task, Throwable failure) {
		if (failure == null) {
			return;
		}
		if (task instanceof Future<?> future && !future.isDone()) {
			future.cancel(false);
		}
		if (!(task instanceof RunnableFuture<?>)) {
			report(failure);
		}
	}

	private static void report(Throwable failure) {
		Thread thread = Thread.currentThread();
		thread.getUncaughtExceptionHandler().uncaughtException(thread, failure);
	}

	/** A task as a deferred call; reports about a call that would not finish name the task. */
	private static final class Task implements Callable<Void>, WrappedCall {

		private final Runnable task;

		Task(Runnable task) {
			this.task = task;
		}

		@Override
		public Void call() {
			this.task.run();
			return null;
		}

		@Override
		public Object wrapped() {
			return this.task;
		}
	}
}
