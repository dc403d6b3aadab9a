package io.uform;

/**
 * Called on the forking thread as a fork starts, so that each of the executor's threads runs its
 * part of the fork inside what the forking thread had (its context: a trace, the logging MDC). It
 * captures once per fork; each other thread that takes part restores it around its whole part (a
 * thread's static slice, its run of dynamic indices, its single call) and closes that scope before
 * it waits for the next fork, so nothing leaks from one fork into the next. The forking thread,
 * which already has the context, and a fork nested inside a task, which runs inline on the current
 * thread, restore nothing. Given to an executor through {@link ExecutorHooks}.
 *
 * <p>Forks are short (a few microseconds), so this is for code whose fork bodies log or read
 * thread-local state; leave it out where they do not.
 */
@FunctionalInterface
public interface ForkDecorator {

	/**
	 * Captures what the forking thread has, once per fork.
	 * @return what each other thread restores; {@code null} when there is nothing to restore (the
	 *         fork then runs as without a decorator)
	 */
	Context capture();

	/** What one fork's forking thread had, to restore on the threads that run its parts. */
	@FunctionalInterface
	interface Context {

		/**
		 * Restores the captured context on the current thread, one of the executor's, before it
		 * runs its part of the fork; the scope is closed after that part, whether it returned or threw.
		 * @return the scope that puts back what the thread had
		 */
		ExecutorHooks.Scope restore();
	}
}
