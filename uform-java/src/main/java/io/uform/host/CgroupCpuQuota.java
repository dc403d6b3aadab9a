package io.uform.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Reads the cgroup CPU quota of this process the way HotSpot finds it, from files under one root
 * so tests can point it at fixture trees:
 * <ol>
 * <li>{@code proc/self/cgroup} names the process's cgroup: a v1 line whose controllers include
 * {@code cpu} wins (on a hybrid host the cpu controller lives in v1 and the v2 tree has no
 * {@code cpu.max} for it), else the v2 line {@code 0::/path}.</li>
 * <li>{@code proc/self/mountinfo} says where that hierarchy is mounted and which part of it the
 * mount shows (a container sees its own cgroup as the mount's root), so the directory is the mount
 * point plus the cgroup path below the mount's root. Without mountinfo, the usual places under
 * {@code sys/fs/cgroup} are assumed.</li>
 * <li>The limit is {@code cpu.max} ({@code $MAX $PERIOD}, {@code max} = none) on v2, or
 * {@code cpu.cfs_quota_us} ({@code -1} = none) over {@code cpu.cfs_period_us} on v1.</li>
 * </ol>
 * The directory and each parent up to the mount point are read and the tightest limit wins: a
 * limit on a parent binds its children too (JDK 17 reads only the process's own directory; newer
 * JDKs walk up like this). Anything unreadable counts as no limit: a quota only ever lowers the
 * thread count, so missing one is the safe mistake.
 */
public final class CgroupCpuQuota {

	private CgroupCpuQuota() {
	}

	/**
	 * The quota of the process whose {@code /proc/self} lies under a root.
	 * @param root {@code /} for the running process, a fixture tree in tests
	 * @return the tightest limit found, or empty when the process is not limited
	 */
	public static Optional<CpuQuota> read(Path root) {
		List<String> cgroupLines = lines(root.resolve("proc/self/cgroup"));
		List<Mount> mounts = mounts(root.resolve("proc/self/mountinfo"));
		for (String line : cgroupLines) {
			String[] parts = line.split(":", 3);
			if (parts.length == 3 && !parts[0].equals("0") && Arrays.asList(parts[1].split(",")).contains("cpu")) {
				Location location = mounts.stream()
					.filter((m) -> m.type.equals("cgroup") && m.superOptions.contains("cpu"))
					.findFirst()
					.map((m) -> m.resolve(root, parts[2]))
					.orElseGet(() -> {
						Path top = firstDirectory(root.resolve("sys/fs/cgroup/cpu"), root.resolve("sys/fs/cgroup/cpu,cpuacct"));
						return (top != null) ? new Location(top, top) : null;
					});
				return (location != null) ? location.tightest(CgroupCpuQuota::v1) : Optional.empty();
			}
		}
		for (String line : cgroupLines) {
			String[] parts = line.split(":", 3);
			if (parts.length == 3 && parts[0].equals("0") && parts[1].isEmpty()) {
				Location location = mounts.stream()
					.filter((m) -> m.type.equals("cgroup2"))
					.findFirst()
					.orElseGet(() -> new Mount("/", "/sys/fs/cgroup", "cgroup2", List.of()))
					.resolve(root, parts[2]);
				return location.tightest(CgroupCpuQuota::v2);
			}
		}
		// No /proc/self/cgroup to go by: the places a container usually shows.
		Optional<CpuQuota> v2 = v2(root.resolve("sys/fs/cgroup"));
		return v2.isPresent() ? v2 : v1(root.resolve("sys/fs/cgroup/cpu"));
	}

	/** Reads the limit files of one cgroup directory. */
	private interface Reader {

		Optional<CpuQuota> read(Path directory);
	}

	/** A cgroup directory and the mount point above it, both under the fixture root. */
	private record Location(Path directory, Path top) {

		/** Reads the directory, then each parent up to the mount point, keeping the tightest limit. */
		Optional<CpuQuota> tightest(Reader reader) {
			Optional<CpuQuota> best = Optional.empty();
			for (Path dir = this.directory; dir != null && dir.startsWith(this.top); dir = dir.getParent()) {
				Optional<CpuQuota> here = reader.read(dir);
				if (here.isPresent() && (best.isEmpty() || here.get().cpus() < best.get().cpus())) {
					best = here;
				}
				if (dir.equals(this.top)) {
					break;
				}
			}
			return best;
		}
	}

	private static Optional<CpuQuota> v2(Path directory) {
		Path file = directory.resolve("cpu.max");
		List<String> lines = lines(file);
		if (lines.isEmpty()) {
			return Optional.empty();
		}
		String[] fields = lines.get(0).trim().split("\\s+");
		if (fields.length == 0 || fields[0].equals("max")) {
			return Optional.empty();
		}
		long period = (fields.length > 1) ? number(fields[1]) : 100_000;
		return quota(number(fields[0]), period, file);
	}

	private static Optional<CpuQuota> v1(Path directory) {
		Path file = directory.resolve("cpu.cfs_quota_us");
		List<String> quota = lines(file);
		if (quota.isEmpty()) {
			return Optional.empty();
		}
		List<String> period = lines(directory.resolve("cpu.cfs_period_us"));
		return quota(number(quota.get(0)), period.isEmpty() ? 100_000 : number(period.get(0)), file);
	}

	private static Optional<CpuQuota> quota(long quota, long period, Path file) {
		// -1 (v1 "unlimited") and unparsable numbers both come out not positive: no limit.
		return (quota > 0 && period > 0) ? Optional.of(new CpuQuota(quota, period, file.toString())) : Optional.empty();
	}

	private static long number(String text) {
		try {
			return Long.parseLong(text.trim());
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static Path firstDirectory(Path... candidates) {
		return Arrays.stream(candidates).filter(Files::isDirectory).findFirst().orElse(null);
	}

	private static List<String> lines(Path file) {
		if (!Files.isReadable(file)) {
			return List.of();
		}
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			return List.of();
		}
	}

	private static List<Mount> mounts(Path mountinfo) {
		List<Mount> mounts = new ArrayList<>();
		for (String line : lines(mountinfo)) {
			// id parent major:minor root mount-point options [optional...] - type source super-options
			String[] fields = line.split(" ");
			int dash = Arrays.asList(fields).indexOf("-");
			if (fields.length < 5 || dash < 0 || dash + 3 >= fields.length) {
				continue;
			}
			String type = fields[dash + 1];
			if (type.equals("cgroup") || type.equals("cgroup2")) {
				mounts.add(new Mount(unescape(fields[3]), unescape(fields[4]), type,
						Arrays.asList(fields[dash + 3].split(","))));
			}
		}
		return mounts;
	}

	/** mountinfo writes space, tab, newline and backslash in paths as octal escapes like {@code \040}. */
	private static String unescape(String field) {
		StringBuilder out = new StringBuilder();
		for (int i = 0; i < field.length(); i++) {
			char c = field.charAt(i);
			if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).chars().allMatch((d) -> d >= '0' && d <= '7')) {
				out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
				i += 3;
			}
			else {
				out.append(c);
			}
		}
		return out.toString();
	}

	/** One cgroup mount: which part of the hierarchy ({@code root}) is shown where. */
	private record Mount(String root, String mountPoint, String type, List<String> superOptions) {

		/**
		 * The directory of a cgroup path under this mount, as a path under the fixture root.
		 * HotSpot's rule: the mount shows the hierarchy from {@code root} down, so a cgroup path
		 * below that root maps to the mount point plus the rest; a container whose mount root is
		 * its own cgroup maps to the mount point itself.
		 */
		Location resolve(Path fsRoot, String cgroupPath) {
			String rest;
			if (this.root.equals("/")) {
				rest = cgroupPath;
			}
			else if (cgroupPath.equals(this.root) || !cgroupPath.startsWith(this.root + "/")) {
				rest = "/";
			}
			else {
				rest = cgroupPath.substring(this.root.length());
			}
			Path top = under(fsRoot, this.mountPoint);
			Path directory = under(top, rest);
			if (!Files.isDirectory(directory)) {
				// The path names a cgroup this mount does not show (no cgroup namespace): the mount
				// point is the best guess, as HotSpot falls back to it too.
				directory = top;
			}
			return new Location(directory, top);
		}

		private static Path under(Path base, String absolute) {
			String relative = absolute.replaceFirst("^/+", "");
			return relative.isEmpty() ? base : base.resolve(relative);
		}
	}
}
