package io.uform.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Pins a worker only where it is not already where it belongs: on a machine with one NUMA node, a
 * worker starts with the affinity mask of the thread that made the executor, and that mask lies
 * within the worker's domain, so {@code sched_setaffinity} would set the mask it already has. The
 * mask is read from {@code /proc/thread-self/status} ({@code Cpus_allowed_list}, intersected with
 * {@code /sys/devices/system/cpu/online}, since the file lists offline CPUs too), a file read; any
 * other worker asks the system pinner, so JNA and libc are bound only where a call is needed: loading
 * JNA is most of what an application's first executor costs a cold JVM.
 *
 * <p>Only with one node on the machine, not merely one domain for this process: since Linux 6.2 the
 * kernel keeps the mask a thread asked for when its cpuset changes, so a worker that made the call
 * stays on its node when a cpuset confined to that node is widened, where one that made none would
 * follow the cpuset onto the other nodes. With one node there is nowhere else to go.
 *
 * <p>Either way the outcome is the same as {@link LinuxThreadPinner}'s, which sets the target CPUs
 * intersected with the thread's current mask: a mask within the target is left as it is. Where the
 * file cannot be read (not Linux, a kernel before 3.17), the system pinner decides and says why not.
 */
final class InheritedAffinityPinner implements ThreadPinner {

	static final InheritedAffinityPinner INSTANCE = new InheritedAffinityPinner(OneNode::machine,
			() -> currentMask(Path.of("/")), ThreadPinner::system);

	private final BooleanSupplier oneNode;

	private final Supplier<Optional<int[]>> currentMask;

	private final Supplier<ThreadPinner> system;

	/**
	 * Makes the pinner.
	 * @param oneNode whether the machine has one NUMA node with CPUs
	 * @param currentMask the calling thread's online CPUs, ascending; empty where they cannot be read
	 * @param system the pinner that makes the call, asked for only when one is needed
	 */
	InheritedAffinityPinner(BooleanSupplier oneNode, Supplier<Optional<int[]>> currentMask,
			Supplier<ThreadPinner> system) {
		this.oneNode = oneNode;
		this.currentMask = currentMask;
		this.system = system;
	}

	@Override
	public String pinCurrentThread(int[] cpus) {
		if (this.oneNode.getAsBoolean()) {
			Optional<int[]> current = this.currentMask.get();
			if (current.isPresent() && within(current.get(), cpus)) {
				return null;
			}
		}
		return this.system.get().pinCurrentThread(cpus);
	}

	/**
	 * The calling thread's online CPUs under a root that holds {@code proc/thread-self/status} and
	 * {@code sys/devices/system/cpu/online}, as {@code sched_getaffinity} reports them.
	 * @param root {@code /}, or a fixture tree in tests
	 * @return ascending; empty where the status file cannot be read or lists no online CPU
	 */
	static Optional<int[]> currentMask(Path root) {
		Optional<int[]> mask = NumaTopology.allowedCpus(root.resolve("proc/thread-self/status"));
		if (mask.isEmpty()) {
			return mask;
		}
		int[] online;
		try {
			online = CpuList.parse(new String(Files.readAllBytes(root.resolve("sys/devices/system/cpu/online")),
					StandardCharsets.ISO_8859_1));
		}
		catch (IOException | IllegalArgumentException ex) {
			// Without the list, the mask as it is: a CPU it names that is offline only sends the worker
			// to the system pinner, which decides as before.
			return mask;
		}
		int[] both = NumaTopology.intersect(mask.get(), online);
		return (both.length > 0) ? Optional.of(both) : Optional.empty();
	}

	/** Whether the machine has one NUMA node with CPUs: read once, the hardware does not change. */
	private static final class OneNode {

		private static final boolean MACHINE = NumaTopology.system().machineNodes() == 1;

		static boolean machine() {
			return MACHINE;
		}
	}

	@Override
	public Optional<int[]> currentThreadAffinity() {
		Optional<int[]> current = this.currentMask.get();
		return (current.isPresent()) ? current : this.system.get().currentThreadAffinity();
	}

	/** Whether every CPU of {@code mask} (non-empty, ascending) is one of {@code cpus} (ascending). */
	static boolean within(int[] mask, int[] cpus) {
		return mask.length > 0 && NumaTopology.intersect(mask, cpus).length == mask.length;
	}

	@Override
	public String toString() {
		// Not the system pinner's own: asking for it would bind JNA.
		return "InheritedAffinityPinner[Cpus_allowed_list, else the system pinner]";
	}
}
