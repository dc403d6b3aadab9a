package io.uform.host;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Pins a worker only where it is not already where it belongs: a worker starts with the affinity
 * mask of the thread that made the executor, and where that mask lies within the worker's domain
 * (one NUMA domain holding every CPU the process may use, as on most machines and containers),
 * {@code sched_setaffinity} would set the mask it already has. The mask is read from
 * {@code /proc/thread-self/status} ({@code Cpus_allowed_list}), a file read; only a worker whose mask
 * reaches outside its domain asks the system pinner, so JNA and libc are bound only where a call is
 * needed. Loading JNA costs 100-200 ms of CPU in a cold JVM, most of what an application's first
 * executor costs at startup.
 *
 * <p>Either way the outcome is the same as {@link LinuxThreadPinner}'s, which sets the target CPUs
 * intersected with the thread's current mask: a mask within the target is left as it is. Where the
 * file cannot be read (not Linux, a kernel before 3.17), the system pinner decides and says why not.
 */
final class InheritedAffinityPinner implements ThreadPinner {

	static final InheritedAffinityPinner INSTANCE = new InheritedAffinityPinner(
			() -> NumaTopology.allowedCpus(Path.of("/proc/thread-self/status")), ThreadPinner::system);

	private final Supplier<Optional<int[]>> currentMask;

	private final Supplier<ThreadPinner> system;

	/**
	 * Makes the pinner.
	 * @param currentMask the calling thread's CPUs, ascending; empty where they cannot be read
	 * @param system the pinner that makes the call, asked for only when one is needed
	 */
	InheritedAffinityPinner(Supplier<Optional<int[]>> currentMask, Supplier<ThreadPinner> system) {
		this.currentMask = currentMask;
		this.system = system;
	}

	@Override
	public String pinCurrentThread(int[] cpus) {
		Optional<int[]> current = this.currentMask.get();
		if (current.isPresent() && within(current.get(), cpus)) {
			return null;
		}
		return this.system.get().pinCurrentThread(cpus);
	}

	@Override
	public Optional<int[]> currentThreadAffinity() {
		Optional<int[]> current = this.currentMask.get();
		return (current.isPresent()) ? current : this.system.get().currentThreadAffinity();
	}

	/** Whether every CPU of {@code mask} (non-empty, ascending) is one of {@code cpus} (ascending). */
	static boolean within(int[] mask, int[] cpus) {
		if (mask.length == 0) {
			return false;
		}
		int c = 0;
		for (int cpu : mask) {
			while (c < cpus.length && cpus[c] < cpu) {
				c++;
			}
			if (c == cpus.length || cpus[c] != cpu) {
				return false;
			}
		}
		return true;
	}

	@Override
	public String toString() {
		// Not the system pinner's own: asking for it would bind JNA.
		return "InheritedAffinityPinner[Cpus_allowed_list, else the system pinner]";
	}
}
