package io.uform.host;

import java.util.BitSet;
import java.util.Optional;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/**
 * Pins the calling thread with Linux's {@code sched_setaffinity(0, size, mask)}, called through a
 * JNA direct mapping of libc. Pid 0 means the calling thread: Java thread ids are not Linux thread
 * ids, so each worker pins itself.
 *
 * <p>The target CPUs are first intersected with the calling thread's current mask (from
 * {@code sched_getaffinity}): CPUs outside a container's cpuset would make the call fail with
 * {@code EINVAL}, and uform never widens what the application, {@code taskset} or the container
 * granted the thread that made the executor (workers start with their creator's mask).
 *
 * <p>Made only through {@link ThreadPinner#system()}, which catches the {@link LinkageError} this
 * class throws when JNA or libc cannot be loaded: nothing here may reach a class path without JNA
 * before that guard.
 */
final class LinuxThreadPinner implements ThreadPinner {

	/** glibc's {@code cpu_set_t} is 1024 bits: 16 longs, 128 bytes. Larger machines get a larger set. */
	private static final int DEFAULT_WORDS = 16;

	/** Beyond 262144 CPUs a failing call is not about the set's size. */
	private static final int MAX_WORDS = 4096;

	private static final int EINVAL = 22;

	/** Words in the masks this machine needs: the kernel rejects sets smaller than its CPU count. */
	private final int words;

	private LinuxThreadPinner(int words) {
		this.words = words;
	}

	/**
	 * Binds libc and reads the calling thread's mask once, so a broken binding shows here rather than
	 * in a worker.
	 * @return the pinner, or an unavailable one saying why the probe failed
	 * @throws LinkageError when JNA's classes, its native stub or libc cannot be loaded
	 */
	static ThreadPinner load() {
		if (!Platform.is64Bit()) {
			// The binding passes size_t as a Java long.
			return ThreadPinner.unavailable("pinning is bound for 64-bit JVMs only; this one is 32-bit");
		}
		int words = DEFAULT_WORDS;
		while (true) {
			try {
				Libc.sched_getaffinity(0, words * 8L, new long[words]);
				return new LinuxThreadPinner(words);
			}
			catch (LastErrorException ex) {
				if (ex.getErrorCode() != EINVAL || words >= MAX_WORDS) {
					return ThreadPinner.unavailable("sched_getaffinity failed: " + describe(ex));
				}
				// EINVAL: the kernel has more CPUs than the set holds (over 1024); try a larger set.
				words *= 2;
			}
		}
	}

	@Override
	public String pinCurrentThread(int[] cpus) {
		long[] allowed = new long[this.words];
		try {
			Libc.sched_getaffinity(0, this.words * 8L, allowed);
		}
		catch (LastErrorException ex) {
			return "sched_getaffinity failed: " + describe(ex);
		}
		long[] target = new long[this.words];
		boolean any = false;
		for (int cpu : cpus) {
			if (cpu >= 0 && cpu < this.words * 64 && (allowed[cpu >>> 6] & (1L << (cpu & 63))) != 0) {
				target[cpu >>> 6] |= 1L << (cpu & 63);
				any = true;
			}
		}
		if (!any) {
			return "none of CPUs " + CpuList.format(cpus) + " is in this thread's affinity mask "
					+ CpuList.format(toCpus(allowed)) + " (a cpuset or taskset excludes them)";
		}
		try {
			Libc.sched_setaffinity(0, this.words * 8L, target);
			return null;
		}
		catch (LastErrorException ex) {
			return "sched_setaffinity(" + CpuList.format(toCpus(target)) + ") failed: " + describe(ex);
		}
	}

	@Override
	public Optional<int[]> currentThreadAffinity() {
		long[] mask = new long[this.words];
		try {
			Libc.sched_getaffinity(0, this.words * 8L, mask);
			return Optional.of(toCpus(mask));
		}
		catch (LastErrorException ex) {
			return Optional.empty();
		}
	}

	@Override
	public int currentCpu() {
		try {
			return Libc.sched_getcpu();
		}
		catch (LastErrorException ex) {
			return -1;
		}
	}

	@Override
	public boolean leaveCpu(int cpu) {
		if (cpu < 0 || cpu >= this.words * 64) {
			return false;
		}
		long[] mask = new long[this.words];
		try {
			Libc.sched_getaffinity(0, this.words * 8L, mask);
			long bit = 1L << (cpu & 63);
			long[] without = mask.clone();
			without[cpu >>> 6] &= ~bit;
			if ((mask[cpu >>> 6] & bit) == 0 || BitSet.valueOf(without).isEmpty()) {
				return false;
			}
			Libc.sched_setaffinity(0, this.words * 8L, without);
		}
		catch (LastErrorException ex) {
			return false;
		}
		try {
			Libc.sched_setaffinity(0, this.words * 8L, mask);
		}
		catch (LastErrorException ex) {
			// Not reached with a mask the kernel granted a moment ago; should it be, the thread keeps the
			// narrower mask, which still holds every CPU but one of those it was allowed.
		}
		return true;
	}

	@Override
	public String toString() {
		return "LinuxThreadPinner[sched_setaffinity, " + this.words * 64 + "-CPU sets]";
	}

	private static int[] toCpus(long[] mask) {
		return BitSet.valueOf(mask).stream().toArray();
	}

	/** Like {@code errno 22 (EINVAL: Invalid argument)}. */
	private static String describe(LastErrorException ex) {
		int code = ex.getErrorCode();
		String name = switch (code) {
			case 1 -> "EPERM";
			case 3 -> "ESRCH";
			case 14 -> "EFAULT";
			case EINVAL -> "EINVAL";
			case 38 -> "ENOSYS";
			default -> "errno";
		};
		// JNA's message is "[code] strerror text".
		String text = String.valueOf(ex.getMessage()).replaceFirst("^\\[\\d+\\]\\s*", "");
		return "errno " + code + " (" + name + ": " + text + ")";
	}

	/**
	 * libc's affinity calls, bound by JNA direct mapping when this class is first touched.
	 * {@code cpu_set_t} is passed as {@code long[]} (CPU n is bit n % 64 of word n / 64) and
	 * {@code size_t} as {@code long}; {@link LastErrorException} carries {@code errno}.
	 */
	private static final class Libc {

		static {
			Native.register(NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
		}

		private Libc() {
		}

		static native int sched_setaffinity(int pid, long cpusetsize, long[] mask) throws LastErrorException;

		static native int sched_getaffinity(int pid, long cpusetsize, long[] mask) throws LastErrorException;

		static native int sched_getcpu() throws LastErrorException;
	}
}
