package io.uform;

/**
 * Work that {@link Executor#forThreads(ThreadTask)} runs once on every thread of an executor, such
 * as setting up per-thread state.
 */
@FunctionalInterface
public interface ThreadTask {

	/**
	 * Runs on one thread.
	 * @param thread the thread's index, {@code 0} (a fork's caller) to {@code threads - 1}
	 * @param colocation the index of the thread's memory domain among the executor's domains
	 */
	void run(int thread, int colocation);
}
