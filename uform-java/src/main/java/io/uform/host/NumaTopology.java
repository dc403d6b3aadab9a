package io.uform.host;

import java.io.IOException;
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
 * The NUMA domains of this machine, intersected with the CPUs this process may use. Read from
 * {@code /sys/devices/system/node/nodeN/cpulist} and the {@code Cpus_allowed_list} line of
 * {@code /proc/self/status}; both paths hang off one root so tests can point it at fixture trees.
 *
 * <p>Where sysfs has no node directories (not Linux, or a kernel without NUMA), the machine is one
 * domain, {@code 0}, holding the CPUs the JVM reports.
 */
public final class NumaTopology {

	private static final Pattern NODE_DIR = Pattern.compile("node(\\d+)");

	private final List<NumaDomain> domains;

	private final String source;

	private NumaTopology(List<NumaDomain> domains, String source) {
		this.domains = List.copyOf(domains);
		this.source = source;
	}

	/**
	 * The topology of the running machine.
	 * @return the domains this process may use
	 */
	public static NumaTopology system() {
		return read(Path.of("/"), Runtime.getRuntime().availableProcessors());
	}

	/**
	 * Reads the topology under a root directory that holds {@code sys/devices/system/node} and
	 * {@code proc/self/status} as a Linux machine does.
	 * @param root {@code /} for the running machine, a fixture tree in tests
	 * @param fallbackCpus CPUs to assume when there is no node directory
	 * @return the domains; nodes without usable CPUs are left out
	 */
	public static NumaTopology read(Path root, int fallbackCpus) {
		Path nodeRoot = root.resolve("sys/devices/system/node");
		Optional<int[]> allowed = allowedCpus(root.resolve("proc/self/status"));
		List<NumaDomain> domains = new ArrayList<>();
		if (Files.isDirectory(nodeRoot)) {
			try (Stream<Path> entries = Files.list(nodeRoot)) {
				for (Path entry : (Iterable<Path>) entries.sorted()::iterator) {
					Matcher matcher = NODE_DIR.matcher(entry.getFileName().toString());
					Path cpulist = entry.resolve("cpulist");
					if (matcher.matches() && Files.isReadable(cpulist)) {
						int[] cpus = CpuList.parse(Files.readString(cpulist));
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
			return new NumaTopology(domains, nodeRoot.toString());
		}
		int[] cpus = allowed.orElseGet(() -> rangeOf(fallbackCpus));
		return new NumaTopology(List.of(new NumaDomain(0, cpus)), "no NUMA nodes in sysfs; one domain");
	}

	private static Optional<int[]> allowedCpus(Path status) {
		if (!Files.isReadable(status)) {
			return Optional.empty();
		}
		try (Stream<String> lines = Files.lines(status)) {
			return lines.filter((line) -> line.startsWith("Cpus_allowed_list:"))
				.findFirst()
				.map((line) -> CpuList.parse(line.substring(line.indexOf(':') + 1)))
				.filter((cpus) -> cpus.length > 0);
		}
		catch (IOException | IllegalArgumentException ex) {
			return Optional.empty();
		}
	}

	private static int[] intersect(int[] cpus, int[] allowed) {
		return Arrays.stream(cpus).filter((cpu) -> Arrays.binarySearch(allowed, cpu) >= 0).toArray();
	}

	private static int[] rangeOf(int count) {
		int[] cpus = new int[Math.max(1, count)];
		Arrays.setAll(cpus, (i) -> i);
		return cpus;
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
