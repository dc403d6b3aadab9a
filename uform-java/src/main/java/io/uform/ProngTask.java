package io.uform;

/**
 * Work for one index of a fork. A <em>prong</em> is uform's word for one index together with the
 * thread that runs it and that thread's colocation, so a task can use per-thread or per-domain
 * state without locks.
 */
@FunctionalInterface
public interface ProngTask {

	/**
	 * Runs one index.
	 * @param index the index, {@code 0} to {@code n - 1}
	 * @param thread the index of the thread running it, {@code 0} to {@code threads - 1}
	 * @param colocation the index of that thread's memory domain among the executor's domains
	 */
	void run(int index, int thread, int colocation);
}
