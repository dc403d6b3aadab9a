package io.uform.host;

/**
 * Pins the calling thread to a set of CPUs. The seam between the executor, which decides where each
 * thread belongs, and the operating system, which may or may not let it be pinned.
 */
public interface ThreadPinner {

	/**
	 * Pins the calling thread.
	 * @param cpus CPU ids the thread may run on, ascending, non-empty
	 * @return {@code null} when pinned, otherwise why not (shown in the executor's description)
	 */
	String pinCurrentThread(int[] cpus);

	/**
	 * A pinner that never pins, with the reason it gives.
	 * @param reason why threads are not pinned
	 * @return the pinner
	 */
	static ThreadPinner unavailable(String reason) {
		return (cpus) -> reason;
	}
}
