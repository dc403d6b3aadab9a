package io.uform.mesh;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Who this process is, as member records name it: its host name, what makes a pid meaningful on
 * that host, its pid and when it started. Read once per process.
 *
 * <p>The host key exists because a host name alone does not say whether a pid can be checked here:
 * two containers may share a host name but not a pid namespace, and a host that rebooted reuses pids.
 * On Linux it is the kernel's boot id and this process's pid namespace; elsewhere it is empty, and
 * a pid is never judged by it.
 */
final class ThisProcess {

	/** This host's name. */
	static final String HOST = hostName();

	/** {@code <boot id>/<pid namespace>} on Linux; empty where unknown. */
	static final String HOST_KEY = hostKey();

	/** This process's pid. */
	static final long PID = ProcessHandle.current().pid();

	/** When this process started; {@code null} where the platform does not say. */
	static final Instant STARTED = ProcessHandle.current().info().startInstant().orElse(null);

	/**
	 * What the launcher says identifies this run of the job, the same in every process of the run and
	 * different in the next: {@code UFORM_MESH_RUN} where set, else Slurm's job, step and restart count
	 * ({@code slurm:<SLURM_JOB_ID>.<SLURM_STEP_ID>.<SLURM_RESTART_COUNT>}), else torchrun's run id and
	 * restart count ({@code torchelastic:<TORCHELASTIC_RUN_ID>.<TORCHELASTIC_RESTART_COUNT>}); empty
	 * where no launcher says. It tells a dead peer of this run from a record an earlier run left.
	 */
	static final String RUN = runToken(System.getenv());

	private ThisProcess() {
	}

	/** {@link #RUN} from an environment. */
	static String runToken(java.util.Map<String, String> env) {
		String given = env.get("UFORM_MESH_RUN");
		if (given != null && !given.isBlank()) {
			return given.trim();
		}
		String job = env.get("SLURM_JOB_ID");
		if (job != null && !job.isBlank()) {
			return "slurm:" + job.trim() + "." + env.getOrDefault("SLURM_STEP_ID", "").trim() + "."
					+ env.getOrDefault("SLURM_RESTART_COUNT", "0").trim();
		}
		String torch = env.get("TORCHELASTIC_RUN_ID");
		if (torch != null && !torch.isBlank()) {
			return "torchelastic:" + torch.trim() + "." + env.getOrDefault("TORCHELASTIC_RESTART_COUNT", "0").trim();
		}
		return "";
	}

	private static String hostName() {
		// The kernel's own answer first: no DNS lookup, which can hang or fail inside a container.
		String name = readTrimmed(Path.of("/proc/sys/kernel/hostname"));
		if (name == null || name.isEmpty()) {
			name = System.getenv("HOSTNAME");
		}
		if (name == null || name.isEmpty()) {
			name = System.getenv("COMPUTERNAME");
		}
		if (name == null || name.isEmpty()) {
			try {
				name = InetAddress.getLocalHost().getHostName();
			}
			catch (IOException ex) {
				name = "unknown-host";
			}
		}
		return name;
	}

	private static String hostKey() {
		String boot = readTrimmed(Path.of("/proc/sys/kernel/random/boot_id"));
		String namespace;
		try {
			namespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
		}
		catch (IOException | UnsupportedOperationException | SecurityException ex) {
			namespace = null;
		}
		return (boot == null || boot.isEmpty() || namespace == null) ? "" : boot + "/" + namespace;
	}

	/**
	 * The boot id part of a host key.
	 * @param hostKey a key as {@link #HOST_KEY} spells it
	 * @return the boot id, or empty
	 */
	static String bootId(String hostKey) {
		int slash = hostKey.indexOf('/');
		return (slash < 0) ? "" : hostKey.substring(0, slash);
	}

	/**
	 * Whether a process that is not this one still runs here, checked by pid and start time.
	 * @param pid its pid
	 * @param started when it started, {@code null} where unknown
	 * @return empty when it runs; otherwise why it does not (no such pid, or the pid now names a
	 *         process that started at another time)
	 */
	static Optional<String> notRunning(long pid, Instant started) {
		Optional<ProcessHandle> handle = ProcessHandle.of(pid);
		if (handle.isEmpty() || !handle.get().isAlive()) {
			return Optional.of("its process is no longer running");
		}
		Optional<Instant> now = handle.get().info().startInstant();
		if (started != null && now.isPresent() && !sameStart(now.get(), started)) {
			return Optional.of("pid " + pid + " now belongs to another process (started " + now.get()
					+ "; the record's process started " + started + ")");
		}
		return Optional.empty();
	}

	/**
	 * Whether a process runs here that is, for sure, the one a record names: its pid is alive and
	 * started when the record says (both start times known). A record without a start time, or a
	 * platform that does not say, is never confirmed: a reused pid would pass for it.
	 * @param pid its pid
	 * @param started when it started, {@code null} where unknown
	 * @return whether it runs
	 */
	static boolean confirmedRunning(long pid, Instant started) {
		if (started == null) {
			return false;
		}
		Optional<ProcessHandle> handle = ProcessHandle.of(pid);
		if (handle.isEmpty() || !handle.get().isAlive()) {
			return false;
		}
		Optional<Instant> now = handle.get().info().startInstant();
		return now.isPresent() && sameStart(now.get(), started);
	}

	/**
	 * Whether two readings of a process's start time are the same start: they come from the same kernel
	 * counters every time, and a second of slack covers rounding.
	 */
	private static boolean sameStart(Instant one, Instant other) {
		return Math.abs(one.toEpochMilli() - other.toEpochMilli()) <= 1_000;
	}

	private static String readTrimmed(Path file) {
		try {
			return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
		}
		catch (IOException | SecurityException ex) {
			return null;
		}
	}
}
