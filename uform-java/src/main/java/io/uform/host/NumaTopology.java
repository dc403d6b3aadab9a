package io.uform.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The NUMA domains of this machine, intersected with the CPUs the calling thread may use, and the
 * cgroup CPU quota that caps how many of them it may keep busy. Read from
 * {@code /sys/devices/system/node/nodeN/cpulist}, the {@code Cpus_allowed_list} line of
 * {@code /proc/thread-self/status} (the calling thread's affinity mask, which includes a
 * container's cpuset; {@code /proc/self/status}, the process's main thread's, before Linux 3.17) and
 * the cgroup files {@link CgroupCpuQuota} finds; every path hangs off one root so tests can point it
 * at fixture trees. The thread's mask, not the process's: an executor's workers start with their
 * creator's mask, and one made on a narrowed thread (a task of another executor, a thread pinned by
 * {@code taskset -p}) can use only those CPUs, as {@link Runtime#availableProcessors()} says too.
 *
 * <p>This is the JVM's own view: HotSpot's {@link Runtime#availableProcessors()} is the affinity
 * mask's size, lowered to {@code ceil(quota / period)} when a quota is set, and
 * {@link #cpuBudget()} is the same number for the domains here. The quota does not say which CPUs,
 * so the domains keep every allowed CPU; it only bounds how many threads are worth running.
 *
 * <p>Nodes without an allowed CPU (memory-only or CXL nodes, or nodes outside the cpuset) are left
 * out: no thread can run there. Where sysfs has no node directories (not Linux, or a kernel without
 * NUMA), the machine is one domain, {@code 0}, holding the allowed CPUs, or as many as the JVM
 * reports.
 */
public final class NumaTopology {

	private static final Pattern NODE_DIR = Pattern.compile("node(\\d+)");

	private final List<NumaDomain> domains;

	private final String source;

	private final Optional<CpuQuota> cpuQuota;

	private final int machineNodes;

	private NumaTopology(List<NumaDomain> domains, String source, Optional<CpuQuota> cpuQuota, int machineNodes) {
		this.domains = List.copyOf(domains);
		this.source = source;
		this.cpuQuota = cpuQuota;
		this.machineNodes = machineNodes;
	}

	/**
	 * The topology of the running machine.
	 * @return the domains this process may use
	 */
	public static NumaTopology system() {
		return read(Path.of("/"), Runtime.getRuntime().availableProcessors());
	}

	/**
	 * Reads the topology under a root directory that holds {@code sys/devices/system/node},
	 * {@code proc/thread-self/status} or {@code proc/self/status}, {@code proc/self/cgroup},
	 * {@code proc/self/mountinfo} and
	 * {@code sys/fs/cgroup} as a Linux machine does.
	 * @param root {@code /} for the running machine, a fixture tree in tests
	 * @param fallbackCpus CPUs to assume when there is no node directory
	 * @return the domains; nodes without usable CPUs are left out
	 */
	public static NumaTopology read(Path root, int fallbackCpus) {
		Path nodeRoot = root.resolve("sys/devices/system/node");
		Path threadStatus = root.resolve("proc/thread-self/status");
		Optional<int[]> allowed = allowedCpus(Files.isReadable(threadStatus) ? threadStatus
				: root.resolve("proc/self/status"));
		Optional<CpuQuota> quota = CgroupCpuQuota.read(root);
		List<NumaDomain> domains = new ArrayList<>();
		int machineNodes = 0;
		if (Files.isDirectory(nodeRoot)) {
			try (Stream<Path> entries = Files.list(nodeRoot)) {
				for (Path entry : (Iterable<Path>) entries.sorted()::iterator) {
					Matcher matcher = NODE_DIR.matcher(entry.getFileName().toString());
					Path cpulist = entry.resolve("cpulist");
					if (matcher.matches() && Files.isReadable(cpulist)) {
						int[] cpus = CpuList.parse(Files.readString(cpulist));
						if (cpus.length > 0) {
							machineNodes++;
						}
						if (allowed.isPresent()) {
							cpus = intersect(cpus, allowed.get());
						}
						if (cpus.length > 0) {
							domains.add(new NumaDomain(Integer.parseInt(matcher.group(1)), cpus));
						}
					}
				}
			}
			catch (IOException | IllegalArgumentException ex) {
				domains.clear();
			}
		}
		if (!domains.isEmpty()) {
			domains.sort((a, b) -> Integer.compare(a.id(), b.id()));
			return new NumaTopology(domains, nodeRoot.toString(), quota, machineNodes);
		}
		int[] cpus = allowed.orElseGet(() -> rangeOf(fallbackCpus));
		return new NumaTopology(List.of(new NumaDomain(0, cpus)), "no NUMA nodes in sysfs; one domain", quota,
				Math.max(1, machineNodes));
	}

	/**
	 * The {@code Cpus_allowed_list} of a {@code status} file of {@code /proc}: the affinity mask of the
	 * thread (for {@code thread-self}) or process it describes.
	 * @param status the file
	 * @return the CPUs, ascending; empty when the file or the line cannot be read, or lists none
	 */
	static Optional<int[]> allowedCpus(Path status) {
		if (!Files.isReadable(status)) {
			return Optional.empty();
		}
		// Not UTF-8: the first line is the thread's name, which the JVM cuts to 15 bytes, through a
		// character where the name is not ASCII; the line read here is ASCII either way.
		try (Stream<String> lines = Files.lines(status, StandardCharsets.ISO_8859_1)) {
			return lines.filter((line) -> line.startsWith("Cpus_allowed_list:"))
				.findFirst()
				.map((line) -> CpuList.parse(line.substring(line.indexOf(':') + 1)))
				.filter((cpus) -> cpus.length > 0);
		}
		catch (IOException | IllegalArgumentException ex) {
			return Optional.empty();
		}
	}

	/**
	 * The CPUs of one list that another also holds.
	 * @param cpus CPU ids
	 * @param allowed CPU ids, ascending
	 * @return those of {@code cpus} in {@code allowed}, in {@code cpus}' order
	 */
	static int[] intersect(int[] cpus, int[] allowed) {
		return Arrays.stream(cpus).filter((cpu) -> Arrays.binarySearch(allowed, cpu) >= 0).toArray();
	}

	private static int[] rangeOf(int count) {
		int[] cpus = new int[Math.max(1, count)];
		Arrays.setAll(cpus, (i) -> i);
		return cpus;
	}

	/**
	 * How many NUMA nodes with CPUs the machine has, whatever this process may use of them: a
	 * process confined to one node of a larger machine (a cpuset) sees one domain, and may be given
	 * more CPUs later, which pinned workers do not follow.
	 * @return at least 1; 1 where sysfs has no node directories
	 */
	public int machineNodes() {
		return this.machineNodes;
	}

	/**
	 * The usable domains, ascending by id.
	 * @return at least one domain
	 */
	public List<NumaDomain> domains() {
		return this.domains;
	}

	/**
	 * The domain with an id, if this process may use it.
	 * @param id a node id
	 * @return the domain, or empty
	 */
	public Optional<NumaDomain> domain(int id) {
		return this.domains.stream().filter((domain) -> domain.id() == id).findFirst();
	}

	/**
	 * The cgroup CPU quota of this process, if it has one.
	 * @return the tightest quota found, or empty when unlimited
	 */
	public Optional<CpuQuota> cpuQuota() {
		return this.cpuQuota;
	}

	/**
	 * How many CPUs this process may keep busy at once: the usable CPUs of all domains, lowered to
	 * the cgroup quota's worth, as HotSpot counts them.
	 * @return at least 1
	 */
	public int cpuBudget() {
		return cpuBudget(this.domains);
	}

	/**
	 * How many CPUs of some domains this process may keep busy at once.
	 * @param chosen domains of this topology
	 * @return their usable CPUs, lowered to the quota's worth; at least 1
	 */
	public int cpuBudget(List<NumaDomain> chosen) {
		int cpus = NumaDomain.cpuCount(chosen);
		if (this.cpuQuota.isPresent()) {
			cpus = Math.min(cpus, this.cpuQuota.get().cpus());
		}
		return Math.max(1, cpus);
	}

	/**
	 * What was found, for descriptions: the domains, where from, and any quota.
	 * @return a line like {@code [node0[0-3,8-11], node1[4-7,12-15]] from /sys/devices/system/node; no cgroup CPU quota}
	 */
	public String describe() {
		return this.domains + " from " + this.source + "; "
				+ this.cpuQuota.map(CpuQuota::toString).orElse("no cgroup CPU quota");
	}

	/**
	 * Where the domains were read from, for descriptions.
	 * @return a path or an explanation
	 */
	public String source() {
		return this.source;
	}

	@Override
	public String toString() {
		return this.domains.toString();
	}
}
