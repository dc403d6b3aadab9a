package io.uform;

/**
 * Work for one contiguous slice of a fork's indices, for loops that are cheaper run as a block
 * (one call per thread rather than one per index). Used by {@link Executor#forSlices}.
 */
@FunctionalInterface
public interface SliceTask {

	/**
	 * Runs indices {@code first} to {@code first + count - 1}.
	 * @param first the slice's first index
	 * @param count how many indices the slice holds, at least 1
	 * @param thread the index of the thread running it
	 * @param colocation the index of that thread's memory domain among the executor's domains
	 */
	void run(int first, int count, int thread, int colocation);
}
