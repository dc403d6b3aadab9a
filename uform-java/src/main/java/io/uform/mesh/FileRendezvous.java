package io.uform.mesh;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import io.uform.UformException;
import io.uform.UformException.Status;
import io.uform.host.ExitHooks;
import io.uform.mesh.MemberRecord.MemberDevice;

/**
 * The rendezvous of a mesh's processes through files in {@code <directory>/<job>/}, a directory every
 * host sees (a local disk for processes of one host, NFS or another shared file system across hosts).
 * {@link io.uform.Mesh#bootstrap} joins through it and {@link io.uform.Mesh#free()} leaves.
 *
 * <h2>Files</h2>
 * Every file is {@link java.util.Properties} text, written whole to {@code .tmp-<incarnation>-<name>}
 * and renamed onto its name with {@link StandardCopyOption#ATOMIC_MOVE}, so a reader sees a file
 * complete or not at all; a member record is hard-linked onto its name instead ({@code link(2)},
 * which, unlike a rename, fails when the name is taken), so that of two processes claiming one index
 * at the same moment exactly one holds it. The <em>incarnation</em> is a random id of one bootstrap call: it tells two
 * processes that claim one index apart, and a marker of this run from one of an earlier run.
 * <table>
 * <caption>Files of the job directory</caption>
 * <tr><th>file</th><th>written by</th><th>says</th><th>removed</th></tr>
 * <tr><td>{@code member-<i>.properties}</td><td>process {@code i}, first</td><td>its
 *     {@link MemberRecord}: index, count, host, pid, devices, {@code gpusPerMultimemDomain}, protocol</td>
 *     <td>by its writer when it leaves or fails</td></tr>
 * <tr><td>{@code ready-<i>.properties}</td><td>process {@code i}, once it has read every member's
 *     record and agrees with each</td><td>its index and incarnation</td><td>by its writer when it fails;
 *     otherwise with the directory</td></tr>
 * <tr><td>{@code left-<i>.properties}</td><td>process {@code i} in {@link #leave()}</td><td>its index,
 *     incarnation and the count</td><td>with the directory</td></tr>
 * <tr><td>{@code abort-<incarnation>.properties}</td><td>a process that gives up the bootstrap for
 *     everyone</td><td>who, the status and the reason</td><td>with the directory</td></tr>
 * </table>
 *
 * <h2>Join</h2>
 * <ol>
 * <li>Look once at what the directory holds before writing anything. A run that finished (a
 *     {@code left-<i>} for every index of its count) is removed. Anything else an earlier run left is
 *     reported and this process gives up, naming the index, host, pid and time of each file and the fix
 *     (remove the job directory, or use a new job name): see <em>Stale records</em>. A live record of
 *     this process's own index means two processes claim it: see <em>Failures</em>. {@code abort-*}
 *     files found here are remembered and ignored: they belong to an earlier attempt.</li>
 * <li>Write {@code member-<i>}.</li>
 * <li>Poll every {@link #POLL_INTERVAL}: list the directory, read each member record not read yet and
 *     check it agrees with this process (count, {@code gpusPerMultimemDomain}, protocol). Once every
 *     index {@code 0..count-1} has a record, write {@code ready-<i>} and, after its first write only,
 *     poll again at once (the peers may have written theirs while this process read the records);
 *     once every index has a {@code ready-<j>} of the incarnation whose record was read, the join is
 *     complete.</li>
 * </ol>
 * Between two polls a process looks up, every {@link #probeInterval(int)} (2-25 ms, longer for larger
 * runs; none from 50 processes on), the one file it waits for: the record of the lowest index it has not seen, or, once it has
 * seen them all, the {@code ready} file of the lowest index not ready yet; it polls at once when that
 * file appears. The join ends when the slowest process notices the last file, so a poll every 25 ms
 * alone cost up to 25 ms at every step; a lookup of one name costs a fraction of a poll (no listing, no
 * read), and the last process's arrival and each {@code ready} are noticed within a few milliseconds.
 * The poll a lookup brings on counts the file found as listed, even where the listing does not show it
 * yet (an NFS client's cached listing), and reads it.
 * The second barrier ({@code ready}) is what lets a fast process return and later {@link #leave()}
 * without stranding a slow one: a process returns only after every process has read every record, so
 * removing its record afterwards hides nothing from anyone. {@code ready} files stay until the
 * directory goes, so a slow process still waiting for them finds them even after a fast one left.
 *
 * <h2>Failures: all or nothing</h2>
 * Within the timeout every process joins or every process fails; a failing process removes its own
 * {@code member} and {@code ready} files (only when they still carry its incarnation). A process that
 * finds a disagreement, a second claim of its index, runs out of time or is interrupted also writes
 * {@code abort-<incarnation>} with its status and message; every other process polling sees it and
 * fails at once with that status, naming who gave up and why. So two processes claiming index
 * {@code i} both fail naming both pids: the second sees the first's record at its first look, or its
 * claim of the name fails because the first holds it, and aborts. (On a file system without hard
 * links the claim is a rename; the first then sees a record that is not its own at its next poll and
 * aborts.) A second claim that arrives after the run joined fails alone, naming both: the first has
 * returned. Limit: a process whose deadline passes while every {@code ready} but one is
 * there fails, while a peer that saw that last {@code ready} a moment before may have returned; no
 * file protocol without a coordinator closes that window.
 *
 * <h2>Stale records</h2>
 * A record found at the first look is left by an earlier run, for sure, when:
 * <ul>
 * <li>it comes from this host (same host name, boot id and pid namespace) and its pid is gone, or
 *     names a process that started at another time (pid reused);</li>
 * <li>it comes from a host of the same name whose boot id differs (the host rebooted since, or another
 *     machine or pod has that name: a Kubernetes Job re-created under the same name reuses its pods' names,
 *     and only one process of a run holds an index, so that record is not a live peer's);</li>
 * <li>its writer began its bootstrap more than the timeout (the longer of its and this process's)
 *     before this process began: a live peer never waits longer than its timeout, so nobody can be
 *     waiting for it; if its run completed, its processes are running without this one. Not when it
 *     comes from this host and its process runs, for sure (pid and start time match): that is a live
 *     run, however long ago it joined.</li>
 * </ul>
 * {@code left-*} files found at the first look are left by an earlier run, and so is a
 * {@code ready-<j>} unless {@code member-<j>} of the same incarnation is there and not stale: a peer
 * of this run writes {@code ready} only after it has read this process's record, so a {@code ready}
 * beside its writer's live record is a run that joined (or is joining) without this process. This
 * process then fails as a second claim of its index, or at its first poll on the disagreement (a
 * count) that left it out; never with "remove the directory", which would stop a live run. The rule
 * across hosts compares wall clocks: with clocks apart by S, a live peer that began more than
 * timeout - S before this one is reported as stale (the run fails with the fix, it never joins a wrong
 * peer), and a record of a crashed process on another host that began less than timeout + S before is
 * not recognised: the wait then times out naming its index as never ready, and that host's next
 * process reports the record when it starts. Keep clocks in sync (NTP); skew far below the timeout
 * is harmless.
 *
 * <h2>Leave</h2>
 * {@link #leave()} writes {@code left-<i>}, removes {@code member-<i>}, and when every index has left
 * (the last one out) renames the directory to {@code .<job>.removed-<incarnation>} beside it and
 * deletes that. The rename comes first so that a new run of the same job that starts meanwhile writes
 * into a fresh directory; one whose record was renamed away with the old directory writes it again.
 * (A new run's first process removes a finished run that is still there the same way.)
 *
 * <p><b>Removal never takes a live run's files.</b> The remover decides from a listing that its run
 * finished, then renames; in between (a GC pause, an NFS stall) a new run of the job may have removed
 * the finished run itself, made the directory again and joined, and a process of it may have returned.
 * The rename then takes that run's directory. So after the rename the remover reads the grave, and
 * deletes only the finished run's files: those of its incarnations, the abort files it listed (an
 * earlier attempt's, which a live process must not see appear), and unreadable ones. If any member or
 * ready file of another incarnation is there, everything else goes back into {@code <job>}: the grave
 * renamed back whole when {@code <job>} is absent or empty (a rename replaces only an empty
 * directory), otherwise file by file with {@code link(2)}, which never replaces a name: a file the
 * live run wrote again meanwhile wins over its older copy. Restores lose no file to each other: each
 * remover has its own grave, a file goes back only where its name is free and leaves the grave only
 * once it is back (or a newer one is), a second remover that renames the directory away mid-merge
 * restores what it took the same way, and the first puts the rest into whatever replaced it. Between the two renames the live run's waiting
 * processes see their directory gone and write their member and {@code ready} files again (each poll
 * writes its own back when it is missing), so they never depend on the restore; a process that has
 * returned does, for its {@code ready}, which a slow peer still needs. Limits of the window: a file
 * whose writer resolved {@code <job>} before the rename lands in the grave after its listing and is
 * restored only if the grave goes back whole (its writer, if still waiting, writes it again); a
 * process that leaves in the window cannot write its {@code left} (logged; the next run reports its
 * record); one that gives up in it may find its record put back, which the next run of the job then
 * reports (its abort file still makes its peers fail).
 *
 * <h2>Shared file systems</h2>
 * Nothing relies on inotify or locks: polling is bounded ({@link #POLL_INTERVAL}; the lookups between
 * polls add at most 2000 a second for a whole run, see {@link #probeInterval(int)}), indices are claimed
 * by {@code link(2)} (atomic on NFS too), and every file is closed before it is linked or renamed,
 * which NFS's close-to-open consistency needs. A job directory that the last one out of a finished
 * run renames away while a new run makes it or writes into it is made again, and the new run's files
 * are put back (above). NFS clients cache
 * directory listings for {@code acdirmin}..{@code acdirmax} (30-60 s by default), so a new file may
 * show late; mount the directory with {@code lookupcache=positive} or
 * {@code actimeo=1}, or keep the timeout well above that.
 */
public final class FileRendezvous {

	/** The protocol version; processes join only when they all speak the same one. */
	public static final int PROTOCOL = 1;

	/** How often a waiting process looks at the directory. */
	public static final Duration POLL_INTERVAL = Duration.ofMillis(25);

	/**
	 * How often a waiting process looks up the one file it waits for between two polls, at least: see
	 * {@link #probeInterval(int)}.
	 */
	public static final Duration PROBE_INTERVAL = Duration.ofMillis(2);

	/** How many indices or files one message lists before it says how many more. */
	private static final int LISTED = 8;

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

	/** Tries to make the job directory, or write into it, while another run's last process removes it. */
	private static final int DIRECTORY_ATTEMPTS = 10;

	private static final System.Logger LOG = System.getLogger("io.uform.mesh");

	private final Path directory;

	private final Path jobDirectory;

	private final MemberRecord self;

	private final List<MemberRecord> members;

	private final AtomicBoolean left = new AtomicBoolean();

	/**
	 * Runs when {@link #leave()} has decided, from its listing, that its run finished, just before it
	 * removes the directory: tests delay a last one out there, as a GC pause or an NFS stall would.
	 * {@code null} outside those tests.
	 */
	private volatile Runnable beforeRemoval;

	/** Bootstraps waiting now, so that the JVM's exit can give them up ({@link #abandonAtExit()}). */
	private static final Set<Attempt> BOOTSTRAPPING = ConcurrentHashMap.newKeySet();

	private FileRendezvous(Path directory, MemberRecord self, List<MemberRecord> members) {
		this.directory = directory;
		this.jobDirectory = directory.resolve(self.job());
		this.self = self;
		this.members = List.copyOf(members);
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
		// Unique, not secret: UUID.randomUUID() would first seed SecureRandom, ~35 ms in a cold JVM, paid by
		// the last process to arrive, on the critical path of every join.
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
	 * Joins the run: returns once every process of {@code self.count()} has joined and agrees.
	 * @param directory the directory every host sees; it must exist
	 * @param self this process's record, from {@link #announce}
	 * @return the joined rendezvous, to {@link #leave()} later
	 * @throws UformException {@link Status#TIMEOUT} naming the indices that never joined (or never got
	 *         ready); {@link Status#INVALID_ARGUMENT} for a disagreement, a second claim of an index,
	 *         files left by an earlier run, or a directory that cannot be written; another process's
	 *         status when it gave up the bootstrap for everyone; {@link Status#INTERRUPTED} when
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
			UformException failure = interrupted(self, ex);
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
	 * {@link #abandonAtExit()} as the exit hook. A class rather than a method reference, as the other
	 * code a bootstrap runs first: a JVM links a lambda's call site at its first use, which the last
	 * process to arrive pays on the critical path of the join (about 0.5 ms each in a cold JVM, several
	 * times what loading a small class costs).
	 */
	private static final class AbandonAtExit implements Runnable {

		static final Runnable HOOK = new AbandonAtExit();

		@Override
		public void run() {
			abandonAtExit();
		}
	}

	private static UformException interrupted(MemberRecord self, Exception cause) {
		return new UformException(Status.INTERRUPTED, "Mesh bootstrap of job '" + self.job() + "' was interrupted while "
				+ self.who() + " waited for its peers; every process gives up, and the interrupt flag is still set", cause);
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
			files.write(FileNames.name(FileNames.LEFT, this.self.index()), marker("left", this.self, null, null), false);
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
			Runnable hook = this.beforeRemoval;
			if (hook != null) {
				hook.run();
			}
			removeDirectory(this.directory, this.self.job(), this.self.incarnation(), finished, names);
		}
		catch (IOException | RuntimeException ex) {
			LOG.log(Level.WARNING, "Leaving mesh job '" + this.self.job() + "' in " + this.directory + " as "
					+ this.self.who() + " left files behind: " + ex
					+ "; the next run of this job will report them: remove " + this.jobDirectory + " or use a new job name");
		}
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
		if (job.isEmpty()) {
			return "is empty";
		}
		if (job.equals(".") || job.equals("..")) {
			return "names the directory itself or its parent";
		}
		if (job.indexOf('/') >= 0 || job.indexOf('\\') >= 0) {
			return "contains a path separator ('/' or '\\')";
		}
		int placeholder = job.indexOf("${");
		if (placeholder >= 0) {
			// Spring's binder leaves a placeholder whose variable is unset as it is written, and so do
			// shells in single quotes: every run would then share the job name "${JOB_NAME}", and the
			// next run would meet the last one's records.
			int end = job.indexOf('}', placeholder);
			String variable = (end > placeholder) ? job.substring(placeholder, end + 1) : job.substring(placeholder);
			return "holds " + variable + ", a placeholder whose variable was not set; set it (on Kubernetes, from the "
					+ "Job's name), or give the job name itself";
		}
		// By code point: format characters past the basic plane (the invisible tag characters U+E0001 and
		// U+E0020 to U+E007F) are two chars, neither of which is a format character by itself.
		for (int i = 0; i < job.length(); i += Character.charCount(job.codePointAt(i))) {
			int c = job.codePointAt(i);
			if (Character.isISOControl(c)) {
				return "contains control character U+" + String.format("%04X", c);
			}
			if (Character.getType(c) == Character.FORMAT) {
				// Invisible, or worse: U+202E shows the rest of the name reversed, in a listing and in every
				// message that names the job, so two runs' names could look alike and differ.
				return "contains invisible format character U+" + String.format("%04X", c)
						+ " (such as a direction override or a zero-width space)";
			}
		}
		char last = job.charAt(job.length() - 1);
		if (last == '.' || last == ' ') {
			// SMB shares (Azure Files among them) drop a trailing dot or space from a name, so 'run.' and
			// 'run' would be one directory there and two on a local disk or NFS: two runs would meet.
			return "ends in '" + last + "', which SMB and Azure Files shares drop from a name (so 'run" + last
					+ "' and 'run' would name one directory there): end it with a letter or digit";
		}
		int bytes = job.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
		if (bytes > 200) {
			return "is " + bytes + " bytes of UTF-8, more than 200 (file names hold at most 255)";
		}
		// Last, the file system itself: a name it cannot hold (an unpaired surrogate, or a character the
		// JVM's file name encoding cannot write, such as any non-ASCII one in a JVM started in the C
		// locale) fails here, not later as a raw InvalidPathException, and a name it would read as
		// something else than one file inside the directory is refused.
		// An empty path (the working directory) has no parent to compare with: "." stands for it.
		Path base = (directory == null) ? Path.of(".")
				: directory.toString().isEmpty() ? directory.getFileSystem().getPath(".") : directory;
		Path resolved;
		try {
			resolved = base.resolve(job);
		}
		catch (InvalidPathException ex) {
			return "is not a file name on this host (" + ex.getReason() + "; this JVM writes file names in "
					+ System.getProperty("sun.jnu.encoding", "its platform encoding") + ", which sun.jnu.encoding "
					+ "shows and the locale, LANG or LC_ALL, sets)";
		}
		Path name = resolved.getFileName();
		if (!base.equals(resolved.getParent()) || name == null || !name.toString().equals(job)) {
			return "does not name one file inside the directory on this host (it resolves to " + resolved + ")";
		}
		return null;
	}

	/** A failure of the join, with whether the others should hear of it through an abort file. */
	private static final class Failure extends Exception {

		private static final long serialVersionUID = 1L;

		final transient UformException exception;

		final boolean abortOthers;

		Failure(UformException exception, boolean abortOthers) {
			super(exception.getMessage(), null, false, false);
			this.exception = exception;
			this.abortOthers = abortOthers;
		}
	}

	/**
	 * A {@code ready}, {@code left} or {@code abort} file.
	 * @param index its writer's index
	 * @param incarnation its writer's incarnation
	 * @param host its writer's host
	 * @param pid its writer's pid
	 * @param written when it was written
	 * @param count its writer's count
	 * @param status an abort's status, else {@code null}
	 * @param reason an abort's message, else {@code null}
	 */
	private record Marker(int index, String incarnation, String host, long pid, Instant written, int count,
			String status, String reason) {

		String who() {
			return "index " + this.index + " (host " + this.host + ", pid " + this.pid + ")";
		}
	}

	private static byte[] marker(String kind, MemberRecord writer, Status status, String reason) {
		Properties properties = new Properties();
		properties.setProperty("uform.mesh.protocol", Integer.toString(PROTOCOL));
		properties.setProperty("marker.kind", kind);
		properties.setProperty("marker.index", Integer.toString(writer.index()));
		properties.setProperty("marker.count", Integer.toString(writer.count()));
		properties.setProperty("marker.incarnation", writer.incarnation());
		properties.setProperty("marker.host", writer.host());
		properties.setProperty("marker.pid", Long.toString(writer.pid()));
		properties.setProperty("marker.written", Instant.now().toString());
		if (status != null) {
			properties.setProperty("marker.status", status.name());
			properties.setProperty("marker.reason", reason);
		}
		return MemberRecord.store(properties, "uform mesh " + kind + " marker (see io.uform.mesh.FileRendezvous)");
	}

	private static Marker parseMarker(byte[] bytes) {
		Properties properties = MemberRecord.load(bytes);
		return new Marker(MemberRecord.integer(properties, "marker.index"), MemberRecord.text(properties, "marker.incarnation"),
				MemberRecord.text(properties, "marker.host"), MemberRecord.number(properties, "marker.pid"),
				MemberRecord.instant(properties, "marker.written"), MemberRecord.integer(properties, "marker.count"),
				properties.getProperty("marker.status"), properties.getProperty("marker.reason"));
	}

	/**
	 * Removes the directory of a run that finished: moves it aside to a grave, then deletes what the
	 * finished run left there. Losing the race to another process that removes it too is fine.
	 *
	 * <p>The caller decided the run finished from an earlier listing; a new run of the job may have
	 * replaced the directory since (removed the finished run, made it again, written its records, even
	 * joined). So the grave is read after the rename: a member or ready file of an incarnation not of
	 * the finished run means this was a live run's directory, and every file not of the finished run
	 * goes back into {@code <job>} (see the class comment, <em>Leave</em>). Package-private for tests,
	 * which play a last one out delayed between its listing and its rename.
	 * @param directory the mesh directory
	 * @param job the job
	 * @param incarnation the remover's incarnation, which names the grave
	 * @param finished the incarnations of the finished run's processes
	 * @param listed the names the remover saw when it decided the run finished: its abort files are
	 *        the finished run's too (an earlier attempt's, which a new run must not see appear)
	 * @return whether files went back into {@code <job>}: a live run's directory was taken
	 * @throws IOException when a file cannot be removed or put back
	 */
	static boolean removeDirectory(Path directory, String job, String incarnation, Set<String> finished,
			Set<String> listed) throws IOException {
		Path home = directory.resolve(job);
		Path grave = directory.resolve("." + job + ".removed-" + incarnation);
		boolean inPlace = false;
		try {
			Files.move(home, grave, StandardCopyOption.ATOMIC_MOVE);
		}
		catch (NoSuchFileException ex) {
			return false;
		}
		catch (AtomicMoveNotSupportedException ex) {
			// A file system that cannot rename a directory atomically: delete in place instead.
			grave = home;
			inPlace = true;
		}
		JobFiles files = new JobFiles(grave, incarnation);
		Set<String> names = files.list();
		List<String> dead = new ArrayList<>();
		List<String> theirs = new ArrayList<>();
		for (String name : names) {
			if (ofFinishedRun(files, name, finished, listed)) {
				dead.add(name);
			}
			else if (FileNames.is(name, FileNames.MEMBER) || FileNames.is(name, FileNames.READY)) {
				theirs.add(name);
			}
		}
		if (!theirs.isEmpty() && allLeft(files, names, theirs)) {
			// Another run's, but one whose every process has left too (its ready files stay until its
			// directory goes): put back, it would be litter nobody is left to remove.
			theirs.clear();
		}
		if (theirs.isEmpty()) {
			for (int attempt = 1;; attempt++) {
				for (String name : names) {
					Files.deleteIfExists(grave.resolve(name));
				}
				try {
					Files.deleteIfExists(grave);
					return false;
				}
				catch (DirectoryNotEmptyException ex) {
					// In place: a new run wrote into it meanwhile, and it is that run's now. In a grave: a
					// file whose writer resolved the name before the rename landed late; delete it too.
					if (inPlace) {
						return false;
					}
					if (attempt >= DIRECTORY_ATTEMPTS) {
						throw ex;
					}
					names = files.list();
				}
			}
		}
		// A live run's directory: only the finished run's files go; the rest goes back.
		for (String name : dead) {
			Files.deleteIfExists(grave.resolve(name));
		}
		LOG.log(Level.DEBUG, () -> "Mesh job '" + job + "': the directory removed as a finished run's held a live "
				+ "run's files (" + theirs + "); they go back into " + home);
		if (!inPlace) {
			restore(grave, home);
		}
		return true;
	}

	/**
	 * Whether each of these member and ready files has a {@code left} file of its index and
	 * incarnation beside it: their processes have all left.
	 */
	private static boolean allLeft(JobFiles files, Set<String> names, List<String> theirs) {
		for (String name : theirs) {
			String digits = FileNames.digits(name, FileNames.MEMBER);
			if (digits == null) {
				digits = FileNames.digits(name, FileNames.READY);
			}
			String left = FileNames.name(FileNames.LEFT, digits);
			String owner = files.owner(name);
			if (owner == null || !names.contains(left) || !owner.equals(files.owner(left))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether a file of a removed directory is the finished run's: of one of its incarnations, an
	 * abort file its remover listed, or unreadable (no process of any run can use it).
	 */
	private static boolean ofFinishedRun(JobFiles files, String name, Set<String> finished, Set<String> listed) {
		if (name.startsWith(".tmp-")) {
			for (String incarnation : finished) {
				if (name.startsWith(".tmp-" + incarnation + "-")) {
					return true;
				}
			}
			return false;
		}
		String abort = FileNames.abortIncarnation(name);
		if (abort != null) {
			return listed.contains(name) || finished.contains(abort);
		}
		if (!FileNames.is(name, FileNames.MEMBER) && !FileNames.is(name, FileNames.READY)
				&& !FileNames.is(name, FileNames.LEFT)) {
			return true;
		}
		String owner = files.owner(name);
		return owner == null || finished.contains(owner);
	}

	/**
	 * Puts a live run's files back into its directory from the grave they were renamed into, every file
	 * the grave holds (the finished run's are deleted already): the grave whole when {@code <job>} is
	 * absent (or empty: made by a process that has written nothing yet), else file by file with
	 * {@code link(2)}, which never replaces a file of that name (the live run's own, written again
	 * meanwhile, wins); then removes the grave. A file leaves the grave only once it is in
	 * {@code <job>} or a newer one is: where {@code <job>} itself is renamed away during the merge (a
	 * second remover, which restores what it took the same way), the rest is put back again into the
	 * directory that replaces it. Should that keep happening, the grave is kept rather than a file
	 * lost. Package-private for tests of the merge.
	 */
	static void restore(Path grave, Path home) throws IOException {
		for (int attempt = 1;; attempt++) {
			try {
				Files.move(grave, home, StandardCopyOption.ATOMIC_MOVE);
				return;
			}
			catch (FileSystemException ex) {
				// Not empty: the live run's processes made it again, seeing theirs gone. Merge.
			}
			makeDirectory(home);
			if (merge(grave, home)) {
				Files.deleteIfExists(grave);
				return;
			}
			if (attempt >= DIRECTORY_ATTEMPTS) {
				LOG.log(Level.WARNING, "Mesh: " + home + " was renamed away " + attempt + " times while a live run's "
						+ "files were put back into it; kept them in " + grave + " rather than lose them");
				return;
			}
		}
	}

	/**
	 * Moves each file of the grave into {@code home} without replacing one there.
	 * @return {@code true} when the grave is empty; {@code false} when {@code home} went away meanwhile
	 */
	private static boolean merge(Path grave, Path home) throws IOException {
		JobFiles files = new JobFiles(grave, "");
		for (String name : files.list()) {
			Path from = grave.resolve(name);
			Path to = home.resolve(name);
			try {
				linkOrMove(from, to);
			}
			catch (FileAlreadyExistsException ex) {
				// Written again meanwhile: that one wins.
			}
			catch (NoSuchFileException ex) {
				if (Files.exists(from)) {
					// Not the grave's file that is missing but home: renamed away by another remover.
					return false;
				}
				continue;
			}
			// Back in home (or a newer one is): the grave's name goes. After a move there is none.
			Files.deleteIfExists(from);
		}
		return true;
	}

	/**
	 * Puts a file in place without replacing one: a hard link, or where the file system has none, a
	 * rename (which replaces), so only where the name is free.
	 * @throws FileAlreadyExistsException where {@code to} exists
	 * @throws NoSuchFileException where {@code from} or {@code to}'s directory does not
	 */
	private static void linkOrMove(Path from, Path to) throws IOException {
		try {
			Files.createLink(to, from);
		}
		catch (FileAlreadyExistsException | NoSuchFileException ex) {
			throw ex;
		}
		catch (UnsupportedOperationException | FileSystemException ex) {
			if (Files.exists(to)) {
				throw new FileAlreadyExistsException(to.toString());
			}
			Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
		}
	}

	private static String since(Instant when) {
		return when.toString();
	}

	/** A duration as messages spell it: {@code 3 s}, {@code 0.5 s}, {@code 2 min}. */
	static String spell(Duration duration) {
		if (duration.getSeconds() >= Long.MAX_VALUE / 1000) {
			return duration.getSeconds() + " s";
		}
		long millis = duration.toMillis();
		if (millis % 60_000 == 0 && millis >= 60_000) {
			return (millis / 60_000) + " min";
		}
		if (millis % 1000 == 0) {
			return (millis / 1000) + " s";
		}
		return (millis / 1000.0) + " s";
	}

	private static String listed(List<String> items) {
		return listed(items, items.size());
	}

	/** The first {@link #LISTED} of {@code total} names, and how many more there are. */
	private static String listed(List<String> first, int total) {
		String shown = String.join(", ", first.subList(0, Math.min(first.size(), LISTED)));
		return (total > LISTED) ? shown + " and " + (total - LISTED) + " more" : shown;
	}

	/**
	 * Why a record found at the first look is stale (see the class comment), or {@code null} when its
	 * writer may be a live peer.
	 * @param record the record
	 * @param self this process's record
	 * @return the reason, or {@code null}
	 */
	static String staleness(MemberRecord record, MemberRecord self) {
		if (record.host().equals(self.host()) && !record.hostKey().isEmpty() && !self.hostKey().isEmpty()) {
			if (record.hostKey().equals(self.hostKey())) {
				String gone = ThisProcess.notRunning(record.pid(), record.processStarted()).orElse(null);
				if (gone != null) {
					return gone;
				}
				// Its writer runs, for sure (pid and start time match): a live peer, waiting or joined and
				// running. The age rule below is for records whose writer cannot be checked; applied here,
				// it told a late process to remove a live run's directory once the run's timeout had passed.
				if (ThisProcess.confirmedRunning(record.pid(), record.processStarted())) {
					return null;
				}
			}
			else if (!ThisProcess.bootId(record.hostKey()).equals(ThisProcess.bootId(self.hostKey()))) {
				// Host names are pod names on Kubernetes, and a Job re-created under the same name reuses them on
				// whatever node its pods land: the boot id tells the record's machine apart, not only a reboot.
				return "it was written on host " + record.host() + " under another boot id than this process's: that "
						+ "host has rebooted since, or the record comes from another machine or pod of the same host name "
						+ "(a Kubernetes Job re-created under the same name reuses its pods' names)";
			}
		}
		Duration wait = (record.timeout().compareTo(self.timeout()) > 0) ? record.timeout() : self.timeout();
		// Compared as the time between the two starts, so that a timeout of centuries cannot overflow.
		if (Duration.between(record.bootstrapStarted(), self.bootstrapStarted()).compareTo(wait) > 0) {
			return "it began its bootstrap at " + record.bootstrapStarted() + ", more than the timeout (" + spell(wait)
					+ ") before this process began (" + self.bootstrapStarted() + "), so no process can still be waiting "
					+ "for it (if its run completed, that run is going on without this process)";
		}
		return null;
	}

	/**
	 * Makes the job directory. mkdir can find the name taken and then, checking, find it gone: renamed
	 * away at that moment by the last one out of a run that finished. That is tried again; a file (not
	 * a directory) of that name is a real problem.
	 */
	private static void makeDirectory(Path directory) throws IOException {
		for (int attempt = 1;; attempt++) {
			try {
				Files.createDirectories(directory);
				return;
			}
			catch (FileAlreadyExistsException ex) {
				// Gone since, or made again meanwhile by a peer of the new run: try again. Only something
				// there that is not a directory is a real problem.
				if (attempt >= DIRECTORY_ATTEMPTS || (Files.exists(directory) && !Files.isDirectory(directory))) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Delays this process's removal of the job directory, should it be the last one out, for tests.
	 * @param hook runs after {@link #leave()} decided the run finished, before it removes the directory
	 */
	void beforeRemovalForTest(Runnable hook) {
		this.beforeRemoval = hook;
	}

	/**
	 * Claims a file of a job directory as a member record is claimed, for tests of its exclusiveness.
	 * @param jobDirectory the job directory
	 * @param incarnation the claimer's incarnation, which names its temp file
	 * @param name the file
	 * @param bytes its content
	 * @throws FileAlreadyExistsException when the name is taken
	 * @throws IOException when it cannot be written
	 */
	static void claimForTest(Path jobDirectory, String incarnation, String name, byte[] bytes) throws IOException {
		new JobFiles(jobDirectory, incarnation).claim(name, bytes);
	}

	/** The job directory's files, as one process writes and reads them. */
	private static final class JobFiles {

		private final Path directory;

		private final String incarnation;

		JobFiles(Path directory, String incarnation) {
			this.directory = directory;
			this.incarnation = incarnation;
		}

		Set<String> list() throws IOException {
			Set<String> names = new HashSet<>();
			try (DirectoryStream<Path> files = Files.newDirectoryStream(this.directory)) {
				for (Path file : files) {
					names.add(file.getFileName().toString());
				}
			}
			catch (NoSuchFileException ex) {
				// Removed under us (the last one out of an earlier run): empty, and written again.
			}
			catch (DirectoryIteratorException ex) {
				// Reading the directory failed (NFS: a stale handle, a server gone), which the stream reports
				// unchecked: checked, as a failure to open it is, so that a waiting process takes it for a
				// hiccup and one that gives up still removes its files and tells its peers.
				throw ex.getCause();
			}
			return names;
		}

		/**
		 * Writes a whole file and renames it into place, so nobody ever reads half of it.
		 * @param create whether to make the job directory when it is gone; never when leaving, which
		 *        must not bring back a directory the last one out (or a person) removed
		 */
		void write(String name, byte[] bytes, boolean create) throws IOException {
			put(name, bytes, create, false);
		}

		/**
		 * Writes a whole file under a name that must not exist yet: a complete temp file is hard-linked
		 * to the name, and {@code link(2)} fails when the name is taken (on NFS too), so of two processes
		 * claiming one index at once exactly one gets it. A rename would replace the first one's record.
		 * @throws FileAlreadyExistsException when the name is taken
		 */
		void claim(String name, byte[] bytes) throws IOException {
			put(name, bytes, true, true);
		}

		private void put(String name, byte[] bytes, boolean create, boolean exclusive) throws IOException {
			for (int attempt = 1;; attempt++) {
				try {
					if (create) {
						makeDirectory(this.directory);
					}
					putOnce(name, bytes, exclusive);
					return;
				}
				catch (NoSuchFileException ex) {
					// The job directory went between making it and writing into it: renamed away by the
					// last one out of a run that finished (this is a new run of the job). Make it again.
					if (!create || attempt >= DIRECTORY_ATTEMPTS) {
						throw ex;
					}
				}
			}
		}

		private void putOnce(String name, byte[] bytes, boolean exclusive) throws IOException {
			Path temp = this.directory.resolve(".tmp-" + this.incarnation + "-" + name);
			Path target = this.directory.resolve(name);
			Files.write(temp, bytes);
			try {
				if (exclusive) {
					try {
						Files.createLink(target, temp);
						return;
					}
					catch (FileAlreadyExistsException | NoSuchFileException ex) {
						throw ex;
					}
					catch (UnsupportedOperationException | FileSystemException ex) {
						// No hard links here: rename, whose replacement of a rival's record that rival
						// sees at its next poll (a record not its own) and aborts.
					}
				}
				Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
			}
			finally {
				Files.deleteIfExists(temp);
			}
		}

		/** Whether a file is there: one lookup, no read. */
		boolean exists(String name) {
			return Files.exists(this.directory.resolve(name));
		}

		/** A file's bytes, or {@code null} when it is not there. */
		byte[] read(String name) throws IOException {
			try {
				return Files.readAllBytes(this.directory.resolve(name));
			}
			catch (NoSuchFileException ex) {
				return null;
			}
		}

		MemberRecord readRecord(String name) throws IOException {
			byte[] bytes = read(name);
			return (bytes == null) ? null : MemberRecord.parse(bytes);
		}

		Marker readMarker(String name) throws IOException {
			byte[] bytes = read(name);
			return (bytes == null) ? null : parseMarker(bytes);
		}

		/** The incarnation a record or marker names, or {@code null} when it is gone or unreadable. */
		String owner(String name) {
			try {
				byte[] bytes = read(name);
				if (bytes == null) {
					return null;
				}
				Properties properties = MemberRecord.load(bytes);
				String owner = properties.getProperty("member.incarnation");
				return (owner != null) ? owner : properties.getProperty("marker.incarnation");
			}
			catch (IOException | IllegalArgumentException ex) {
				return null;
			}
		}

		/**
		 * Removes a file only while it carries this process's incarnation, so that a failing process never
		 * removes a record another process of the same index wrote over its own.
		 */
		void deleteIfOwned(String name) throws IOException {
			if (this.incarnation.equals(owner(name))) {
				Files.deleteIfExists(this.directory.resolve(name));
			}
		}
	}

	/**
	 * The one file whose appearance lets a waiting process go on, which the last listing lacked: the
	 * record of the lowest index not seen yet, or, once every record was read, the {@code ready} file
	 * of the lowest index not ready yet. Only the lowest: the join cannot go on before that one is there,
	 * and when the last missing file appears it is the lowest. {@code null} when there is none, and
	 * when that file is listed but did not count (a rival's, or one that could not be read): the
	 * polls deal with those.
	 * @param count the processes in the run
	 * @param seen the indices whose record was read
	 * @param ready the indices whose {@code ready} was read
	 * @param names the last listing, or {@code null} when it failed
	 */
	static String awaited(int count, Set<Integer> seen, Set<Integer> ready, Set<String> names) {
		if (names == null) {
			return null;
		}
		String name = null;
		if (seen.size() < count) {
			for (int index = 0; index < count && name == null; index++) {
				if (!seen.contains(index)) {
					name = FileNames.name(FileNames.MEMBER, index);
				}
			}
		}
		else {
			for (int index = 0; index < count && name == null; index++) {
				if (!ready.contains(index)) {
					name = FileNames.name(FileNames.READY, index);
				}
			}
		}
		return (name == null || names.contains(name)) ? null : name;
	}

	/**
	 * A member record's bytes as read at the first look, and what they parse to. Only records whose
	 * protocol the first look accepted are kept (it gives up on any other).
	 */
	private record Read(byte[] bytes, MemberRecord record) {
	}

	/**
	 * One bootstrap call's join. Confined to the calling thread; what it shares with other processes
	 * goes through the files only.
	 */
	private static final class Attempt {

		private final Path directory;

		private final MemberRecord self;

		private final JobFiles files;

		private final long deadline;

		/** Records read so far, by index; this process's own among them. */
		private final Map<Integer, MemberRecord> seen = new TreeMap<>();

		/** Indices whose {@code ready} file, of the incarnation in {@link #seen}, was read. */
		private final Set<Integer> ready = new TreeSet<>();

		/**
		 * Member records parsed at the first look, by file name, so that the first poll need not parse
		 * them again (for the last process to arrive, that is every other record).
		 */
		private final Map<String, Read> readAtFirstLook = new HashMap<>();

		/** Abort files present before this process wrote anything: an earlier attempt's. */
		private final Set<String> abortsBefore = new HashSet<>();

		/** The latest of {@link #abortsBefore}, for a timeout message. */
		private Marker latestAbortBefore;

		/** A record or marker that could not be read, and why, for a timeout message. */
		private final Map<String, String> unreadable = new HashMap<>();

		private IOException listingFailure;

		/**
		 * The bytes of this process's record as last written, so that each poll recognises its own record
		 * by comparing bytes instead of parsing it (a parse per poll was about 40% of what a waiting
		 * process's polls cost the CPU).
		 */
		private byte[] ownRecord;

		private boolean readyWritten;

		/**
		 * Set once this attempt gave up, by its own thread or by the JVM's exit on another; guarded by
		 * {@code this}, as every write is, so that nothing is written after the give-up removed it.
		 */
		private boolean gaveUp;

		private UformException gaveUpWith;

		/** Set once every process was ready and this attempt returns; guarded by {@code this}. */
		private boolean joined;

		Attempt(Path directory, MemberRecord self) {
			this.directory = directory;
			this.self = self;
			this.files = new JobFiles(directory.resolve(self.job()), self.incarnation());
			long now = System.nanoTime();
			long nanos;
			try {
				nanos = self.timeout().toNanos();
			}
			catch (ArithmeticException ex) {
				nanos = Long.MAX_VALUE / 2;
			}
			this.deadline = now + Math.min(nanos, Long.MAX_VALUE / 2);
			this.seen.put(self.index(), self);
		}

		private String job() {
			return this.self.job();
		}

		private String member(int index) {
			return FileNames.name(FileNames.MEMBER, index);
		}

		List<MemberRecord> run() throws Failure, InterruptedException {
			Set<String> first = firstLook();
			checkLeftovers(first);
			writeOwnRecord(this.self);
			// The awaited file the last lookup found, which ended the wait for this poll.
			String found = null;
			while (true) {
				Set<String> names = null;
				boolean wroteReady = false;
				try {
					names = this.files.list();
					this.listingFailure = null;
					if (found != null) {
						// There, though the listing may lag (an NFS client's cached listing, up to acdirmax):
						// counted as listed, it is read by name now and no longer awaited. Left out, it was
						// found again at every lookup, each a poll, for as long as the listing lagged.
						names.add(found);
					}
				}
				catch (IOException ex) {
					// NFS hiccups pass; one that lasts shows in the timeout message.
					this.listingFailure = ex;
				}
				if (names != null) {
					checkAborts(names);
					checkOwnRecord(names);
					readMembers(names);
					String ready = FileNames.name(FileNames.READY, this.self.index());
					// Written again when it vanished, as the record is: the directory was renamed away
					// under this run (see removeDirectory), and peers still waiting need it.
					if (this.seen.size() == this.self.count() && (!this.readyWritten || !names.contains(ready))) {
						write(ready, marker("ready", this.self, null, null));
						// At once after the first write only: a listing that lags (NFS) and lacks it would
						// otherwise have it written and listed again as fast as the loop runs.
						wroteReady = !this.readyWritten;
						this.readyWritten = true;
						// Its own ready counts at once: awaited as the lowest one not read yet, it was looked
						// up and found at the next lookup, an early poll that waited for nothing.
						this.ready.add(this.self.index());
					}
					if (this.readyWritten && allReady(names)) {
						if (!markJoined()) {
							throw new Failure(this.gaveUpWith, false);
						}
						return List.copyOf(this.seen.values());
					}
				}
				if (System.nanoTime() - this.deadline >= 0) {
					throw new Failure(timeout(), true);
				}
				if (wroteReady) {
					// The listing predates this process's ready file and the reading of the records since:
					// peers that read the same records may have written theirs meanwhile (for the last
					// process to arrive, reading every other record in cold code takes long enough for
					// most). One poll at once sees them, instead of a lookup a probe interval later.
					found = null;
					continue;
				}
				found = waitForNextPoll(awaited(names));
			}
		}

		private String awaited(Set<String> names) {
			return FileRendezvous.awaited(this.self.count(), this.seen.keySet(), this.ready, names);
		}

		/**
		 * Sleeps until the next poll, looking up {@code awaited} every {@link #probeInterval} meanwhile and
		 * returning as soon as it is there: the join waits for the slowest peer to notice the last file,
		 * and a lookup of one name costs a fraction of a poll.
		 * @return {@code awaited} when a lookup found it, else {@code null}
		 */
		private String waitForNextPoll(String awaited) throws InterruptedException {
			long next = System.nanoTime() + POLL_INTERVAL.toNanos();
			long probe = (awaited == null) ? POLL_INTERVAL.toNanos() : probeInterval(this.self.count()).toNanos();
			while (true) {
				long now = System.nanoTime();
				long left = Math.min(next - now, this.deadline - now);
				if (left <= 0) {
					return null;
				}
				long nanos = Math.min(probe, left);
				Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
				if (nanos == left) {
					// The poll is due (or the deadline): a lookup now would come just before the listing,
					// which shows the file anyway, and would break the rate probeInterval promises.
					return null;
				}
				if (awaited != null && this.files.exists(awaited)) {
					return awaited;
				}
			}
		}

		/** Lists the directory before writing anything; removes a run that finished. */
		private Set<String> firstLook() throws Failure {
			try {
				makeDirectory(this.files.directory);
				Set<String> names = this.files.list();
				Set<String> finished = finishedRun(names);
				if (finished != null) {
					removeDirectory(this.directory, job(), this.self.incarnation(), finished, names);
					makeDirectory(this.files.directory);
					names = this.files.list();
				}
				return names;
			}
			catch (IOException ex) {
				throw new Failure(cannotUse(ex), false);
			}
		}

		/**
		 * The directory option, named as the field it is, so that the starter's failure analysis names
		 * {@code uform.mesh.directory} and where it was set.
		 */
		private UformException cannotUse(IOException ex) {
			return UformException.invalid("directory", this.directory, "mesh job '" + job() + "' cannot use "
					+ this.files.directory + " (" + ex + "); make " + this.directory + " writable by this user on every "
					+ "host (and mounted, where it is a shared file system), or, where it is, look at the file system "
					+ "itself (full, or a stale NFS handle)", ex);
		}

		/**
		 * The incarnations of an earlier run whose every index left (its last one out has not removed it
		 * yet), or {@code null} when the directory holds no such run.
		 */
		private Set<String> finishedRun(Set<String> names) throws IOException {
			Marker any = null;
			for (String name : names) {
				if (FileNames.is(name, FileNames.LEFT)) {
					any = readMarkerOrNull(name);
					break;
				}
			}
			if (any == null || any.count() < 1) {
				return null;
			}
			Set<String> finished = new HashSet<>();
			for (int index = 0; index < any.count(); index++) {
				Marker mark = readMarkerOrNull(FileNames.name(FileNames.LEFT, index));
				if (mark == null) {
					return null;
				}
				// A member record still there must be the one that left (it is being removed).
				String owner = this.files.owner(member(index));
				if (owner != null && !owner.equals(mark.incarnation())) {
					return null;
				}
				finished.add(mark.incarnation());
			}
			for (String name : names) {
				if (FileNames.index(name, FileNames.MEMBER) >= any.count()) {
					return null;
				}
			}
			return finished;
		}

		private Marker readMarkerOrNull(String name) throws IOException {
			try {
				return this.files.readMarker(name);
			}
			catch (IllegalArgumentException ex) {
				return null;
			}
		}

		/**
		 * Reports what an earlier run left; gives up on a live second claim of this index. Member records
		 * are judged first, so that a {@code ready} file beside its writer's live record (same
		 * incarnation) counts as what it is: a run that joined, or is joining, without this process.
		 * Telling this process to remove a live run's directory would be wrong; so would writing anything
		 * there (its record, an abort), which a process of that run still finishing its join would read
		 * and fail on while its peers have returned. So this process fails alone, as a second claim of
		 * its index or on the disagreement (a count) that kept it out, having written nothing.
		 */
		private void checkLeftovers(Set<String> names) throws Failure {
			List<String> leftovers = new ArrayList<>();
			MemberRecord rival = null;
			// Incarnations of the live records, by index.
			Map<Integer, String> live = new HashMap<>();
			MemberRecord anyLive = null;
			boolean joinedRun = false;
			for (String name : new TreeSet<>(names)) {
				int member = FileNames.index(name, FileNames.MEMBER);
				if (member < 0) {
					continue;
				}
				try {
					byte[] bytes = this.files.read(name);
					if (bytes == null) {
						continue;
					}
					Properties properties = MemberRecord.load(bytes);
					// Before parsing: another version's record may not parse as this one's, and "left by an
					// earlier run, remove the directory" would be wrong advice for a live run of that version.
					requireProtocol(name, properties.getProperty("uform.mesh.protocol"), true);
					MemberRecord record = MemberRecord.parse(properties);
					this.readAtFirstLook.put(name, new Read(bytes, record));
					String stale = staleness(record, this.self);
					if (stale != null) {
						leftovers.add(name + " of " + record.who() + ", written " + since(record.written()) + ": " + stale);
						continue;
					}
					live.put(member, record.incarnation());
					anyLive = record;
					if (record.index() == this.self.index()) {
						rival = record;
					}
				}
				catch (IllegalArgumentException ex) {
					leftovers.add(name + " cannot be read (" + ex.getMessage() + "; written by another uform version?)");
				}
				catch (IOException ex) {
					throw new Failure(cannotUse(ex), false);
				}
			}
			for (String name : new TreeSet<>(names)) {
				int ready = FileNames.index(name, FileNames.READY);
				boolean marker = ready >= 0 || FileNames.is(name, FileNames.LEFT);
				boolean abort = FileNames.abortIncarnation(name) != null;
				if (!marker && !abort) {
					continue;
				}
				if (abort) {
					this.abortsBefore.add(name);
				}
				try {
					Marker mark = this.files.readMarker(name);
					if (mark == null) {
						continue;
					}
					if (abort) {
						if (this.latestAbortBefore == null || mark.written().isAfter(this.latestAbortBefore.written())) {
							this.latestAbortBefore = mark;
						}
					}
					else if (ready < 0 || !mark.incarnation().equals(live.get(ready))) {
						leftovers.add(name + " of " + mark.who() + ", written " + since(mark.written()) + ": only a run "
								+ "whose processes all joined leaves one");
					}
					else {
						joinedRun = true;
					}
				}
				catch (IllegalArgumentException ex) {
					if (!abort) {
						leftovers.add(name + " cannot be read (" + ex.getMessage() + "; written by another uform version?)");
					}
				}
				catch (IOException ex) {
					throw new Failure(cannotUse(ex), false);
				}
			}
			if (joinedRun) {
				// Every index of that run is claimed (a ready is written only once all were seen).
				if (rival != null) {
					throw new Failure(duplicate(rival, this.self, false), false);
				}
				String disagreement = differences(anyLive);
				throw new Failure(new UformException(Status.INVALID_ARGUMENT, "Mesh job '" + job() + "' in "
						+ this.directory + " has a run of " + anyLive.count() + " process(es) that joined (or is joining) "
						+ "without this one" + ((disagreement != null) ? "; processes disagree on " + disagreement : "")
						+ ". This process gives up alone, and that run goes on. Give this process's run its own job name, "
						+ "or the same hostDomainCount and gpusPerMultimemDomain as that run and an index of its own"),
						false);
			}
			// A live record of this index, in a run still meeting: both claims give up.
			if (rival != null) {
				throw new Failure(duplicate(rival, this.self, true), true);
			}
			if (!leftovers.isEmpty()) {
				throw new Failure(new UformException(Status.INVALID_ARGUMENT, "Mesh job '" + job() + "' in "
						+ this.directory + " holds files left by an earlier run of the job: " + listed(leftovers)
						+ ". A new run cannot join them: remove " + this.files.directory + " (once no process of the "
						+ "earlier run is running), or use a new job name"), false);
			}
		}

		/**
		 * Two claims of one index; {@code first} was there first.
		 * @param both whether both give up (a run still meeting), or only the second (a run that joined)
		 */
		private UformException duplicate(MemberRecord first, MemberRecord second, boolean both) {
			String sameHost = "";
			if (first.host().equals(second.host()) && !first.hostKey().equals(second.hostKey())) {
				sameHost = " (both on host " + first.host() + ": if pid " + first.pid() + " was an earlier incarnation of "
						+ "this process, such as a restarted container, its record is left by a crash: remove "
						+ this.files.directory + " or use a new job name)";
			}
			return new UformException(Status.INVALID_ARGUMENT, "Mesh job '" + job() + "': index " + first.index()
					+ " is claimed by two processes, host " + first.host() + " pid " + first.pid() + " (bootstrap began "
					+ first.bootstrapStarted() + ") and host " + second.host() + " pid " + second.pid() + " (began "
					+ second.bootstrapStarted() + "). Give each process its own "
					+ "hostDomainIndex in [0, " + this.self.count() + ") (in Kubernetes, from JOB_COMPLETION_INDEX)"
					+ sameHost + ((both) ? ". Both give up" : ". The later one gives up; the run that joined goes on"));
		}

		private void checkAborts(Set<String> names) throws Failure {
			for (String name : names) {
				if (FileNames.abortIncarnation(name) == null || this.abortsBefore.contains(name)
						|| name.equals(FileNames.name(FileNames.ABORT, this.self.incarnation()))) {
					continue;
				}
				Marker mark;
				try {
					mark = this.files.readMarker(name);
				}
				catch (IOException | IllegalArgumentException ex) {
					continue;
				}
				if (mark == null) {
					continue;
				}
				Status status;
				try {
					status = Status.valueOf(mark.status());
				}
				catch (IllegalArgumentException | NullPointerException ex) {
					status = Status.INVALID_ARGUMENT;
				}
				throw new Failure(new UformException(status, "Mesh bootstrap of job '" + job() + "' failed: "
						+ mark.who() + " gave up for every process, so " + this.self.who() + " gave up too and removed "
						+ "its record. Its reason: " + mark.reason()), false);
			}
		}

		/** Writes this process's record again when it vanished; gives up when another process's replaced it. */
		private void checkOwnRecord(Set<String> names) throws Failure {
			String name = member(this.self.index());
			if (!names.contains(name)) {
				writeOwnRecord(this.self.writtenAt(Instant.now()));
				return;
			}
			MemberRecord record;
			try {
				byte[] bytes = this.files.read(name);
				if (bytes == null || Arrays.equals(bytes, this.ownRecord)) {
					return;
				}
				// Not the bytes this process wrote: parse them to say whose they are.
				record = MemberRecord.parse(bytes);
			}
			catch (IOException | IllegalArgumentException ex) {
				return;
			}
			if (!record.incarnation().equals(this.self.incarnation())) {
				throw new Failure(duplicate(this.self, record, true), true);
			}
		}

		/**
		 * Claims this process's index with its record; where another process holds the name already
		 * (it claimed the index at the same moment, after this process's first look), both give up.
		 */
		private synchronized void writeOwnRecord(MemberRecord record) throws Failure {
			requireNotGivenUp();
			byte[] bytes = record.toBytes();
			String name = member(this.self.index());
			for (int attempt = 1;; attempt++) {
				try {
					this.files.claim(name, bytes);
					this.ownRecord = bytes;
					return;
				}
				catch (FileAlreadyExistsException ex) {
					MemberRecord rival = readRecordOrNull(name);
					if (rival != null && !rival.incarnation().equals(this.self.incarnation())) {
						throw new Failure(duplicate(rival, this.self, true), true);
					}
					if (rival != null) {
						// This process's own record (written before, and not seen gone after all).
						this.ownRecord = bytes;
						return;
					}
					if (attempt >= DIRECTORY_ATTEMPTS) {
						throw new Failure(new UformException(Status.INVALID_ARGUMENT, "Mesh job '" + job() + "': "
								+ name + " in " + this.files.directory + " is taken by a file that cannot be read as a "
								+ "member record (another uform version's, or not uform's): remove it, or use a new job "
								+ "name"), true);
					}
					// Gone again since: the rival gave up and removed it. Claim it now.
				}
				catch (ClosedByInterruptException ex) {
					throw new Failure(interrupted(this.self, ex), true);
				}
				catch (IOException ex) {
					throw new Failure(cannotUse(ex), true);
				}
			}
		}

		private MemberRecord readRecordOrNull(String name) {
			try {
				return this.files.readRecord(name);
			}
			catch (IOException | IllegalArgumentException ex) {
				return null;
			}
		}

		private void readMembers(Set<String> names) throws Failure {
			for (String name : names) {
				int index = FileNames.index(name, FileNames.MEMBER);
				if (index < 0) {
					continue;
				}
				if (index == this.self.index() || this.seen.containsKey(index)) {
					continue;
				}
				MemberRecord record;
				try {
					byte[] bytes = this.files.read(name);
					if (bytes == null) {
						continue;
					}
					Read before = this.readAtFirstLook.remove(name);
					if (before != null && Arrays.equals(before.bytes(), bytes)) {
						// The same file as at the first look: parsed then, its protocol checked then.
						record = before.record();
					}
					else {
						// The protocol first: a record of another version may not parse as this one's.
						Properties properties = MemberRecord.load(bytes);
						requireProtocol(name, properties.getProperty("uform.mesh.protocol"), false);
						record = MemberRecord.parse(properties);
					}
					this.unreadable.remove(name);
				}
				catch (IOException | IllegalArgumentException ex) {
					this.unreadable.put(name, ex.getMessage());
					continue;
				}
				if (record.index() != index) {
					this.unreadable.put(name, "it says index " + record.index());
					continue;
				}
				checkAgreement(record);
				this.seen.put(index, record);
			}
		}

		/**
		 * Gives up when a record's protocol, as its file spells it (as text: the parsed number would let
		 * {@code 01} pass), is not this version's.
		 * @param firstLook whether the record was there before this process wrote anything: then it gives
		 *        up alone (it has nothing to remove, and its abort would be a file in another version's
		 *        live run), and the record may also be an earlier run's
		 */
		private void requireProtocol(String name, String protocol, boolean firstLook) throws Failure {
			if (protocol != null && !protocol.trim().equals(Integer.toString(PROTOCOL))) {
				String leftover = (firstLook) ? " (if " + name + " was left by an earlier run of another version, remove "
						+ this.files.directory + " once no process of that run is running, or use a new job name)" : "";
				throw new Failure(new UformException(Status.INVALID_ARGUMENT, "Mesh job '" + job() + "': processes "
						+ "disagree on the mesh protocol: " + name + " speaks protocol " + protocol.trim() + ", "
						+ this.self.who() + " speaks " + PROTOCOL + "; run one uform version on every host" + leftover),
						!firstLook);
			}
		}

		private void checkAgreement(MemberRecord other) throws Failure {
			String differences = differences(other);
			if (differences != null) {
				throw new Failure(new UformException(Status.INVALID_ARGUMENT, "Mesh job '" + job() + "': processes "
						+ "disagree on " + differences + ". Start every process of the run with "
						+ "the same hostDomainCount and gpusPerMultimemDomain (set gpusPerMultimemDomain where hosts have "
						+ "different GPU counts)"), true);
			}
		}

		/** What another process's record disagrees with this one's on, or {@code null}. */
		private String differences(MemberRecord other) {
			List<String> differences = new ArrayList<>();
			MemberRecord me = this.self;
			if (other.count() != me.count()) {
				differences.add("hostDomainCount: " + other.who() + " has " + other.count() + ", " + me.who() + " has "
						+ me.count());
			}
			if (other.gpusPerMultimemDomain() != me.gpusPerMultimemDomain()) {
				differences.add("gpusPerMultimemDomain: " + other.who() + " has " + gpus(other) + ", " + me.who()
						+ " has " + gpus(me));
			}
			return (differences.isEmpty()) ? null : String.join("; and on ", differences);
		}

		private static String gpus(MemberRecord record) {
			return record.gpusPerMultimemDomain() + (record.gpusDerived() ? " (derived from its "
					+ record.devices().size() + " GPU(s))" : "");
		}

		private boolean allReady(Set<String> names) {
			for (MemberRecord member : this.seen.values()) {
				int index = member.index();
				if (this.ready.contains(index)) {
					continue;
				}
				String name = FileNames.name(FileNames.READY, index);
				if (!names.contains(name)) {
					return false;
				}
				try {
					Marker mark = this.files.readMarker(name);
					// A ready of another incarnation is a rival's, whose abort comes next.
					if (mark == null || !mark.incarnation().equals(member.incarnation())) {
						return false;
					}
				}
				catch (IOException | IllegalArgumentException ex) {
					this.unreadable.put(name, ex.getMessage());
					return false;
				}
				this.ready.add(index);
			}
			return true;
		}

		private UformException timeout() {
			// At most LISTED names of each kind, with the true counts: a count in the millions must not
			// make millions of strings, nor a loop over every index.
			List<String> missing = new ArrayList<>();
			for (int index = 0; index < this.self.count() && missing.size() < LISTED; index++) {
				if (!this.seen.containsKey(index)) {
					missing.add(Integer.toString(index));
				}
			}
			int missingCount = this.self.count() - this.seen.size();
			List<String> joined = new ArrayList<>();
			List<String> unready = new ArrayList<>();
			int unreadyCount = 0;
			for (MemberRecord record : this.seen.values()) {
				if (joined.size() < LISTED) {
					joined.add(record.index() + " (host " + record.host() + ", pid " + record.pid() + ")");
				}
				if (!this.ready.contains(record.index()) && record.index() != this.self.index()
						&& unreadyCount++ < LISTED) {
					unready.add(record.who());
				}
			}
			String what;
			if (missingCount > 0) {
				what = "index " + listed(missing, missingCount) + " never joined (joined: "
						+ listed(joined, this.seen.size()) + "). Start the missing "
						+ "process(es) with the same directory and job, check that every host sees " + this.directory
						+ " (on NFS, mount it with lookupcache=positive so new files show at once), or allow a longer "
						+ "timeout";
			}
			else {
				what = "every index joined, but " + listed(unready, unreadyCount) + " never confirmed it had read every record (its "
						+ "ready file is missing: it may have died or failed). Check those processes' output, or allow a "
						+ "longer timeout";
			}
			StringBuilder message = new StringBuilder("Mesh bootstrap of job '" + job() + "' timed out after "
					+ spell(this.self.timeout()) + ": " + what + "; " + this.self.who() + " removed its record");
			if (!this.unreadable.isEmpty()) {
				message.append(". Unreadable: ").append(this.unreadable);
			}
			if (this.listingFailure != null) {
				message.append(". Listing ").append(this.files.directory).append(" failed: ").append(this.listingFailure);
			}
			if (this.latestAbortBefore != null) {
				message.append(". Before this process started, ").append(this.latestAbortBefore.who()).append(" gave up at ")
					.append(this.latestAbortBefore.written()).append(": ").append(this.latestAbortBefore.reason());
			}
			return new UformException(Status.TIMEOUT, message.toString());
		}

		/** Refuses a write once this attempt gave up: nothing may come back after the give-up removed it. */
		private void requireNotGivenUp() throws Failure {
			if (this.gaveUp) {
				throw new Failure(this.gaveUpWith, false);
			}
		}

		private synchronized void write(String name, byte[] bytes) throws Failure {
			requireNotGivenUp();
			try {
				this.files.write(name, bytes, true);
			}
			catch (ClosedByInterruptException ex) {
				// An interrupt during the write closes the channel; the flag stays set.
				throw new Failure(interrupted(this.self, ex), true);
			}
			catch (IOException ex) {
				throw new Failure(cannotUse(ex), true);
			}
		}

		/**
		 * Gives up for every process because this JVM is exiting (see {@link #abandonAtExit()}), unless
		 * the join completed: a joined mesh leaves through its own exit hook.
		 */
		synchronized void giveUpAtExit() {
			if (this.joined) {
				return;
			}
			giveUp(new UformException(Status.INTERRUPTED, "Mesh bootstrap of job '" + job() + "': " + this.self.who()
					+ " is exiting (its JVM is shutting down, say on SIGTERM) before every process joined"), true);
		}

		/** Marks the join complete, unless the JVM's exit gave it up first. */
		private synchronized boolean markJoined() {
			if (this.gaveUp) {
				return false;
			}
			this.joined = true;
			return true;
		}

		/**
		 * Tells the others (when asked) and removes this process's files. Best effort: the failure being
		 * reported matters more than a file that could not be written or removed.
		 */
		synchronized void giveUp(UformException failure, boolean abortOthers) {
			if (this.gaveUp) {
				return;
			}
			this.gaveUp = true;
			this.gaveUpWith = failure;
			if (abortOthers) {
				// Also when nothing was written yet: a process that found its index claimed must tell the
				// first claimer, who otherwise never learns of the second.
				try {
					this.files.write(FileNames.name(FileNames.ABORT, this.self.incarnation()),
							marker("abort", this.self, failure.status(), failure.getMessage()), true);
				}
				catch (IOException ex) {
					failure.addSuppressed(ex);
				}
			}
			try {
				// Whether or not this attempt knows it wrote them yet (the JVM's exit may give up on another
				// thread just as they are written): only files carrying its incarnation are removed.
				this.files.deleteIfOwned(FileNames.name(FileNames.READY, this.self.index()));
				this.files.deleteIfOwned(member(this.self.index()));
			}
			catch (IOException ex) {
				failure.addSuppressed(ex);
			}
		}
	}
}
