package io.uform.host;

/**
 * How a {@link HostPool} runs the tasks it is given: the pool holds each fork's task as the API
 * passed it and calls it through this, so that it names none of the API's task types and a fork
 * wraps nothing. One implementation per pool, so each call is a direct one once compiled.
 * @param <T> the task a fork runs once on every thread
 * @param <P> the task a fork runs for one index
 * @param <S> the task a fork runs for one contiguous slice of its indices
 */
public interface ForkBodies<T, P, S> {

	/**
	 * Runs a thread's task.
	 * @param task the task
	 * @param thread the thread's index, {@code 0} (the caller) to {@code threads - 1}
	 * @param colocation the index of the thread's memory domain
	 */
	void runThread(T task, int thread, int colocation);

	/**
	 * Runs one index.
	 * @param task the task
	 * @param index the index
	 * @param thread the index of the thread running it
	 * @param colocation the index of that thread's memory domain
	 */
	void runProng(P task, int index, int thread, int colocation);

	/**
	 * Runs indices {@code first} to {@code first + count - 1}.
	 * @param task the task
	 * @param first the slice's first index
	 * @param count how many indices, at least 1
	 * @param thread the index of the thread running it
	 * @param colocation the index of that thread's memory domain
	 */
	void runSlice(S task, int first, int count, int thread, int colocation);
}
