package io.uform.mesh;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import io.uform.failure.Failures;
import io.uform.host.ExitHooks;
import io.uform.mesh.MemberRecord.MemberDevice;

/**
 * The rendezvous of a mesh's processes through files in {@code <directory>/<job>/}, a directory every
 * host sees: {@link io.uform.Mesh#bootstrap} joins through it ({@link #join}) and
 * {@link io.uform.Mesh#free()} leaves ({@link #leave()}). The protocol and its files are described in
 * the package's documentation ({@code io.uform.mesh}).
 */
public final class FileRendezvous {

	/** The protocol version; processes join only when they all speak the same one. */
	public static final int PROTOCOL = 2;

	/** How often a waiting process looks at the directory. */
	public static final Duration POLL_INTERVAL = Duration.ofMillis(25);

	/**
	 * How often a waiting process looks up the one file it waits for between two polls, at least: see
	 * {@link #probeInterval(int)}.
	 */
	public static final Duration PROBE_INTERVAL = Duration.ofMillis(2);

	private static final System.Logger LOG = System.getLogger("io.uform.mesh");

	/** Bootstraps waiting now, so that the JVM's exit can give them up ({@link #abandonAtExit()}). */
	private static final Set<Attempt> BOOTSTRAPPING = ConcurrentHashMap.newKeySet();

	private final Path directory;

	private final Path jobDirectory;

	private final MemberRecord self;

	private final List<MemberRecord> members;

	private final AtomicBoolean left = new AtomicBoolean();

	private FileRendezvous(Path directory, MemberRecord self, List<MemberRecord> members) {
		this.directory = directory;
		this.jobDirectory = directory.resolve(self.job());
		this.self = self;
		this.members = List.copyOf(members);
	}

	/**
	 * How often each of {@code count} waiting processes looks up the file it waits for: half a
	 * millisecond per process, but no more often than every {@link #PROBE_INTERVAL} and no less often
	 * than every {@link #POLL_INTERVAL}. No lookup comes when the wait ends at the poll (the listing
	 * follows at once), so a process looks up at most {@code floor(25 ms / interval)} times between two
	 * polls, and a run asks the directory's file system at most 2000 times a second in all, however many
	 * processes it has (on NFS mounted with {@code lookupcache=positive}, each lookup of a missing name
	 * is a call to the server). A run of 50 or more, whose interval is the poll's, only polls.
	 * @param count the processes in the run
	 */
	static Duration probeInterval(int count) {
		long micros = Math.max(PROBE_INTERVAL.toNanos() / 1000, Math.min(POLL_INTERVAL.toNanos() / 1000, 500L * count));
		return Duration.ofNanos(micros * 1000);
	}

	/**
	 * This process's record, stamped now with a new incarnation.
	 * @param job the job name, already checked
	 * @param index this process's index
	 * @param count the processes of the run
	 * @param gpusPerMultimemDomain the value in force
	 * @param derived whether it was derived from this host's GPU count
	 * @param timeout how long to wait for the others
	 * @param devices this process's GPUs
	 * @return the record to {@link #join} with
	 */
	public static MemberRecord announce(String job, int index, int count, int gpusPerMultimemDomain, boolean derived,
			Duration timeout, List<MemberDevice> devices) {
		Instant now = Instant.now();
		// Unique, not secret: UUID.randomUUID() would first seed SecureRandom, which a cold JVM pays for
		// on the critical path of the join.
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String incarnation = new UUID(random.nextLong() ^ ThisProcess.PID, random.nextLong() ^ System.nanoTime()).toString();
		return new MemberRecord(PROTOCOL, job, index, count, gpusPerMultimemDomain, derived, incarnation,
				ThisProcess.HOST, ThisProcess.HOST_KEY, ThisProcess.PID, ThisProcess.STARTED, now, timeout, now, devices);
	}

	/**
	 * This host's name, as member records and {@link io.uform.MeshDescription#peerHosts()} spell it.
	 * @return the kernel's host name (no DNS lookup)
	 */
	public static String hostName() {
		return ThisProcess.HOST;
	}

	/**
	 * Checks a job name: it must name one directory inside the mesh directory, never a path out of it,
	 * and one that every host spells the same way.
	 * @param job the name
	 * @param directory the mesh directory it names a directory in, or {@code null} where there is none
	 *        (a run with no peers: the name is still checked against this host's default file system,
	 *        so that a bad name shows before the run grows)
	 * @return why it cannot be used, or {@code null} when it can
	 */
	public static String jobNameProblem(String job, Path directory) {
		return JobNames.problem(job, directory);
	}

	/**
	 * Joins the run: returns once every process of {@code self.count()} has joined and agrees.
	 * @param directory the directory every host sees; it must exist
	 * @param self this process's record, from {@link #announce}
	 * @return the joined rendezvous, to {@link #leave()} later
	 * @throws RuntimeException {@code TIMEOUT} naming the indices that never joined (or never got
	 *         ready); {@code INVALID_ARGUMENT} for a disagreement, a second claim of an index,
	 *         files left by an earlier run, a directory that cannot be written, or a job path that is a
	 *         file or a symbolic link; another process's
	 *         status when it gave up the bootstrap for everyone; {@code INTERRUPTED} when
	 *         interrupted (the interrupt flag is set again)
	 */
	public static FileRendezvous join(Path directory, MemberRecord self) {
		Attempt attempt = new Attempt(directory, self);
		ExitHooks.once("uform-mesh-bootstrap-exit", AbandonAtExit.HOOK);
		BOOTSTRAPPING.add(attempt);
		try {
			return new FileRendezvous(directory, self, attempt.run());
		}
		catch (InterruptedException ex) {
			RuntimeException failure = Failure.interrupted(self, ex);
			attempt.giveUp(failure, true);
			Thread.currentThread().interrupt();
			throw failure;
		}
		catch (Failure failure) {
			attempt.giveUp(failure.exception, failure.abortOthers);
			throw failure.exception;
		}
		finally {
			BOOTSTRAPPING.remove(attempt);
		}
	}

	/**
	 * At JVM exit (SIGTERM, {@code System.exit}) while bootstraps wait: each gives up for every process,
	 * as a failure does, so its peers fail at once instead of waiting out their timeout, and no record is
	 * left for the next run of the job to report.
	 */
	private static void abandonAtExit() {
		for (Attempt attempt : BOOTSTRAPPING) {
			attempt.giveUpAtExit();
		}
	}

	/**
	 * {@link #abandonAtExit()} as the exit hook. A class rather than a method reference: a JVM links a
	 * lambda's call site at its first use, which the last process to arrive would pay on the critical
	 * path of the join.
	 */
	private static final class AbandonAtExit implements Runnable {

		static final Runnable HOOK = new AbandonAtExit();

		@Override
		public void run() {
			abandonAtExit();
		}
	}

	/**
	 * Every process's record, by index; this process's among them.
	 * @return {@code count} records
	 */
	public List<MemberRecord> members() {
		return this.members;
	}

	/**
	 * This process's record.
	 * @return the record it joined with
	 */
	public MemberRecord self() {
		return this.self;
	}

	/**
	 * The job's directory, {@code <directory>/<job>}.
	 * @return the path
	 */
	public Path jobDirectory() {
		return this.jobDirectory;
	}

	/**
	 * Leaves: writes {@code left-<i>}, removes this process's record, and removes the job directory
	 * when every process has left. A second call does nothing. It never throws: a file it cannot write
	 * or remove is logged (WARNING, {@code io.uform.mesh}); the worst it leaves is a directory the next
	 * run of the same job reports.
	 */
	public void leave() {
		if (!this.left.compareAndSet(false, true)) {
			return;
		}
		JobFiles files = new JobFiles(this.jobDirectory, this.self.incarnation());
		try {
			files.write(FileNames.name(FileNames.LEFT, this.self.index()), Marker.toBytes("left", this.self, null, null),
					false);
			files.deleteIfOwned(FileNames.name(FileNames.MEMBER, this.self.index()));
			Set<String> names = files.list();
			Set<String> finished = new HashSet<>();
			for (MemberRecord member : this.members) {
				String name = FileNames.name(FileNames.LEFT, member.index());
				if (!names.contains(name)) {
					return;
				}
				Marker mark = files.readMarker(name);
				if (mark == null || !mark.incarnation().equals(member.incarnation())) {
					return;
				}
				finished.add(member.incarnation());
			}
			// The last one out (or one of several that left at once: the rename lets one win).
			DirectoryRemoval.removeDirectory(this.directory, this.self.job(), this.self.incarnation(), finished, names);
		}
		catch (IOException | RuntimeException ex) {
			LOG.log(Level.WARNING, "Leaving mesh job '" + this.self.job() + "' in " + this.directory + " as "
					+ this.self.who() + " left files behind: " + ex
					+ "; the next run of this job will report them: remove " + this.jobDirectory + " or use a new job name");
		}
	}
}
