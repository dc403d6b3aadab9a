package io.uform;

/**
 * Called on the submitting thread as a deferred call is submitted ({@link Executor#defer}), so that
 * the call can carry what that thread had (its context) to the deferred thread, and be observed from
 * submission to completion: the decoration it returns opens a scope around the call on the deferred
 * thread and hears once how the call's future completed. Given to an executor through
 * {@link ExecutorHooks}.
 *
 * <p>Runs on the application's threads and on uform's: it must not block, and what it throws reaches
 * the caller of {@code defer} (from {@link #decorate}), the call's future (from
 * {@link Decoration#open}) or nobody (from {@link Decoration#completed}, which runs as the future
 * completes, and whose failure is dropped as a continuation's would be; for a call {@code defer}
 * refused, it is suppressed into the refusal).
 */
@FunctionalInterface
public interface DeferredCallDecorator {

	/**
	 * Starts decorating one deferred call, on the thread that submits it, before it is queued.
	 * @param executor the executor it is submitted to
	 * @return what to do around the call and when it completes; {@code null} when this call needs
	 *         nothing (it then runs as without a decorator)
	 */
	Decoration decorate(Executor executor);

	/** One deferred call's decoration, from its submission to its completion. */
	interface Decoration {

		/**
		 * Opens a scope on the deferred thread just before the call runs; it is closed right after
		 * the call returns or throws, on the same thread. Not called for a call that never runs
		 * (cancelled before it started, or dropped by a timed-out free).
		 * @return the scope to close after the call
		 */
		ExecutorHooks.Scope open();

		/**
		 * Hears, exactly once, how the call ended, as its future completes (on the thread that
		 * completes it), or at once on the submitting thread when {@code defer} refused the call.
		 * @param failure {@code null} when the call returned a result; what it threw; a
		 *        {@link java.util.concurrent.CancellationException} when its future was cancelled; the
		 *        {@link UformException} that {@code defer} threw when the call was never queued
		 */
		void completed(Throwable failure);
	}
}
