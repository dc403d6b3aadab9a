package io.uform.host;

import java.util.Optional;

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
	 * The CPUs the calling thread may run on now, as the operating system reports them.
	 * @return the CPU ids, ascending; empty where this pinner cannot ask
	 */
	default Optional<int[]> currentThreadAffinity() {
		return Optional.empty();
	}

	/**
	 * The CPU the calling thread runs on at this instant ({@code sched_getcpu}).
	 * @return the CPU's number, or -1 where it cannot be known
	 */
	default int currentCpu() {
		return -1;
	}

	/**
	 * Moves the calling thread off {@code cpu} now, and leaves its affinity mask as it was: the mask
	 * without that CPU, then the mask again. The kernel moves a thread whose CPU leaves its mask at
	 * once, and restoring the mask does not move it back.
	 * @param cpu the CPU to leave, normally {@link #currentCpu()}
	 * @return whether the thread was moved; {@code false} where the mask holds no other CPU, or the
	 *         calls are not available
	 */
	default boolean leaveCpu(int cpu) {
		return false;
	}

	/**
	 * A pinner that never pins, with the reason it gives.
	 * @param reason why threads are not pinned
	 * @return the pinner
	 */
	static ThreadPinner unavailable(String reason) {
		return new ThreadPinner() {

			@Override
			public String pinCurrentThread(int[] cpus) {
				return reason;
			}

			@Override
			public String toString() {
				return "ThreadPinner[unavailable: " + reason + "]";
			}
		};
	}

	/**
	 * The pinner for this machine, probed once: {@code sched_setaffinity} through JNA on Linux, or
	 * one that never pins and says why (not Linux, JNA or libc not loadable, the probe call refused).
	 * Never throws and logs nothing; the reason reaches the executor's description instead.
	 * @return the pinner
	 */
	public static ThreadPinner system() {
		return SystemThreadPinner.INSTANCE;
	}

	/**
	 * The pinner an executor's workers use: on a machine with one NUMA node none pins where its
	 * inherited mask already lies within its domain, which takes a file read and no native call; the
	 * others pin through {@link #system()}, bound the first time one needs it.
	 * @return the pinner
	 */
	public static ThreadPinner forWorkers() {
		return InheritedAffinityPinner.INSTANCE;
	}
}
