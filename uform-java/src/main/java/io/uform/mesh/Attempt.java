package io.uform.mesh;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;

import io.uform.failure.Failures;

/**
 * One bootstrap call's join (see the package's description, <em>Join</em>): the first look, then polls
 * of the job directory until every process's record and {@code ready} file are read, or until it gives
 * up. What it shares with other processes goes through the files only.
 *
 * <p>Threads meet here only where the JVM's exit gives up a join that is still waiting
 * ({@link #giveUpAtExit()}, on the exit hook's thread); everything else is confined to the thread that
 * called {@link FileRendezvous#join}.
 * <table>
 * <caption>What the joining thread and the exit hook share</caption>
 * <tr><th>what</th><th>written by</th><th>read by</th><th>why that is safe</th></tr>
 * <tr><td>{@code gaveUp}, {@code gaveUpWith}</td><td>{@link #giveUp}, on either thread</td><td>every
 *     write of a file, {@link #markJoined()}</td><td>guarded by {@code this}, as every write of a file
 *     is: nothing is written after a give-up removed this process's files</td></tr>
 * <tr><td>{@code joined}</td><td>{@link #markJoined()}, on the joining thread</td><td>{@link #giveUpAtExit()}
 *     </td><td>guarded by {@code this}: a join that completed is never given up</td></tr>
 * <tr><td>this process's files</td><td>{@code write}, {@code writeOwnRecord}, {@link #giveUp}</td>
 *     <td>the peers</td><td>each write and the give-up hold {@code this}</td></tr>
 * <tr><td>{@code seen}</td><td>the joining thread, as it reads records</td><td>{@link #giveUp}, on either
 *     thread: the peers whose records keep the directory</td><td>a concurrent map; its lookups only back up
 *     the give-up's listing, which is what decides</td></tr>
 * </table>
 */
final class Attempt {

	private final Path directory;

	private final MemberRecord self;

	private final JobFiles files;

	private final long deadline;

	/**
	 * Records read so far, by index; this process's own among them. Concurrent only because a give-up
	 * at the JVM's exit reads its indices on the exit hook's thread.
	 */
	private final ConcurrentSkipListMap<Integer, MemberRecord> seen = new ConcurrentSkipListMap<>();

	/** Indices whose {@code ready} file, of the incarnation in {@link #seen}, was read. */
	private final Set<Integer> ready = new TreeSet<>();

	private final Agreement agreement;

	/** What the first look found: records it parsed, and an earlier attempt's abort files. */
	private final Leftovers leftovers;

	/** A record or marker that could not be read, and why, for a timeout message. */
	private final Map<String, String> unreadable = new HashMap<>();

	private IOException listingFailure;

	/**
	 * The bytes of this process's record as last written, so that each poll recognises its own record
	 * by comparing bytes instead of parsing it: a poll comes every few milliseconds.
	 */
	private byte[] ownRecord;

	private boolean readyWritten;

	/**
	 * Set once this attempt gave up, by its own thread or by the JVM's exit on another; guarded by
	 * {@code this}, as every write is, so that nothing is written after the give-up removed it.
	 */
	private boolean gaveUp;

	private RuntimeException gaveUpWith;

	/** Set once every process was ready and this attempt returns; guarded by {@code this}. */
	private boolean joined;

	/** This process's proof of life and watch, from its record's first write on; guarded by {@code this}. */
	private Liveness liveness;

	/**
	 * A join of this process, waiting at most {@code self.timeout()} from now.
	 * @param directory the mesh directory
	 * @param self this process's record
	 */
	Attempt(Path directory, MemberRecord self) {
		this.directory = directory;
		this.self = self;
		this.files = new JobFiles(directory.resolve(self.job()), self.incarnation());
		this.agreement = new Agreement(self, this.files.directory());
		this.leftovers = new Leftovers(directory, self, this.files, this.agreement);
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
		this.leftovers.look();
		writeOwnRecord(this.self);
		startLiveness();
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
			checkDeath();
			if (names != null) {
				checkAborts(names);
				checkOwnRecord(names);
				readMembers(names);
				String ready = FileNames.name(FileNames.READY, this.self.index());
				// Written again when it vanished, as the record is: the directory was renamed away
				// under this run (see removeDirectory), and peers still waiting need it.
				if (this.seen.size() == this.self.count() && (!this.readyWritten || !names.contains(ready))) {
					write(ready, Marker.toBytes("ready", this.self, null, null));
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

	/** Starts this process's proof of life and its watch over the peers seen (see {@link Liveness}). */
	private synchronized void startLiveness() throws Failure {
		requireNotGivenUp();
		this.liveness = Liveness.start(this.files, this.self, this.seen);
	}

	/** This process's liveness, which the joined rendezvous keeps. */
	synchronized Liveness liveness() {
		return this.liveness;
	}

	/** Gives up for every process when a peer seen is dead: the run cannot join without it. */
	private void checkDeath() throws Failure {
		Death death = liveness().death();
		if (death != null) {
			throw new Failure(died(death), true);
		}
	}

	/** The failure of a join whose member died: everyone gives up, naming it, and the run starts again. */
	private RuntimeException died(Death death) {
		if (death.expelled()) {
			return Failures.factory().timeout("Mesh bootstrap of job '" + job() + "' failed: " + this.self.who()
					+ " counts as dead to its peers: " + death.reason() + ". Restart the run, every process of it; "
					+ this.self.who() + " gave up and told the others");
		}
		return Failures.factory().timeout("Mesh bootstrap of job '" + job() + "' failed: " + death.who()
				+ " died before every process joined: " + death.reason() + ". A run whose process died cannot go on: "
				+ "restart the run, every process of it. " + this.self.who() + " gave up and told the others "
				+ "(abort-" + this.self.incarnation() + ".properties), which fail at once naming it");
	}

	private String awaited(Set<String> names) {
		return awaited(this.self.count(), this.seen.keySet(), this.ready, names);
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
	 * Sleeps until the next poll, looking up {@code awaited} every {@link FileRendezvous#probeInterval}
	 * meanwhile and returning as soon as it is there: the join waits for the slowest peer to notice the
	 * last file, and a lookup of one name costs a fraction of a poll.
	 * @return {@code awaited} when a lookup found it, else {@code null}
	 */
	private String waitForNextPoll(String awaited) throws InterruptedException {
		long next = System.nanoTime() + FileRendezvous.POLL_INTERVAL.toNanos();
		long probe = (awaited == null) ? FileRendezvous.POLL_INTERVAL.toNanos()
				: FileRendezvous.probeInterval(this.self.count()).toNanos();
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

	private void checkAborts(Set<String> names) throws Failure {
		for (String name : names) {
			if (FileNames.abortIncarnation(name) == null || this.leftovers.abortedBefore(name)
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
			throw new Failure(Failures.factory().ofKind(mark.status(), "Mesh bootstrap of job '" + job() + "' failed: "
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
			throw new Failure(this.agreement.duplicate(this.self, record, true), true);
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
					throw new Failure(this.agreement.duplicate(rival, this.self, true), true);
				}
				if (rival != null) {
					// This process's own record (written before, and not seen gone after all).
					this.ownRecord = bytes;
					return;
				}
				if (attempt >= JobFiles.DIRECTORY_ATTEMPTS) {
					throw new Failure(Failures.factory().invalidArgument("Mesh job '" + job() + "': "
							+ name + " in " + this.files.directory() + " is taken by a file that cannot be read as a "
							+ "member record (another uform version's, or not uform's): remove it, or use a new job "
							+ "name"), true);
				}
				// Gone again since: the rival gave up and removed it. Claim it now.
			}
			catch (ClosedByInterruptException ex) {
				throw new Failure(Failure.interrupted(this.self, ex), true);
			}
			catch (IOException ex) {
				throw new Failure(Failure.cannotUse(this.directory, this.files.directory(), job(), ex), true);
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
			// The same file as at the first look was read and parsed then, its protocol checked then.
			MemberRecord record = this.leftovers.takeRecord(name);
			try {
				if (record == null) {
					byte[] bytes = this.files.read(name);
					if (bytes == null) {
						continue;
					}
					// The protocol first: a record of another version may not parse as this one's.
					Properties properties = MemberRecord.load(bytes);
					this.agreement.requireProtocol(name, properties.getProperty("uform.mesh.protocol"), false);
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
			this.agreement.check(record);
			this.seen.put(index, record);
		}
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

	private RuntimeException timeout() {
		// At most LISTED names of each kind, with the true counts: a count in the millions must not
		// make millions of strings, nor a loop over every index.
		List<String> missing = new ArrayList<>();
		for (int index = 0; index < this.self.count() && missing.size() < Messages.LISTED; index++) {
			if (!this.seen.containsKey(index)) {
				missing.add(Integer.toString(index));
			}
		}
		int missingCount = this.self.count() - this.seen.size();
		List<String> joined = new ArrayList<>();
		List<String> unready = new ArrayList<>();
		int unreadyCount = 0;
		for (MemberRecord record : this.seen.values()) {
			if (joined.size() < Messages.LISTED) {
				joined.add(record.index() + " (host " + record.host() + ", pid " + record.pid() + ")");
			}
			if (!this.ready.contains(record.index()) && record.index() != this.self.index()
					&& unreadyCount++ < Messages.LISTED) {
				unready.add(record.who());
			}
		}
		String what;
		if (missingCount > 0) {
			what = "index " + Messages.listed(missing, missingCount) + " never joined (joined: "
					+ Messages.listed(joined, this.seen.size()) + "). Start the missing "
					+ "process(es) with the same directory and job, check that every host sees " + this.directory
					+ " (on NFS, mount it with lookupcache=positive so new files show at once), or allow a longer "
					+ "timeout";
		}
		else {
			what = "every index joined, but " + Messages.listed(unready, unreadyCount)
					+ " never confirmed it had read every record (its "
					+ "ready file is missing: it may have died or failed). Check those processes' output, or allow a "
					+ "longer timeout";
		}
		StringBuilder message = new StringBuilder("Mesh bootstrap of job '" + job() + "' timed out after "
				+ Messages.spell(this.self.timeout()) + ": " + what + "; " + this.self.who() + " removed its record, and "
				+ "the job directory " + this.files.directory() + " unless other processes' files are still there: "
				+ "then its abort-" + this.self.incarnation() + ".properties stays to tell any that still wait why, and "
				+ "the last process of the run to give up removes the directory (a new run of the job ignores abort "
				+ "files)");
		if (!this.unreadable.isEmpty()) {
			message.append(". Unreadable: ").append(this.unreadable);
		}
		if (this.listingFailure != null) {
			message.append(". Listing ").append(this.files.directory()).append(" failed: ").append(this.listingFailure);
		}
		Marker latestAbort = this.leftovers.latestAbort();
		if (latestAbort != null) {
			message.append(". Before this process started, ").append(latestAbort.who()).append(" gave up at ")
				.append(latestAbort.written()).append(": ").append(latestAbort.reason());
		}
		return Failures.factory().timeout(message.toString());
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
			throw new Failure(Failure.interrupted(this.self, ex), true);
		}
		catch (IOException ex) {
			throw new Failure(Failure.cannotUse(this.directory, this.files.directory(), job(), ex), true);
		}
	}

	/**
	 * Gives up for every process because this JVM is exiting (from the exit hook {@link FileRendezvous}
	 * registers), unless the join completed: a joined mesh leaves through its own exit hook.
	 */
	synchronized void giveUpAtExit() {
		if (this.joined) {
			return;
		}
		giveUp(Failures.factory().interrupted("Mesh bootstrap of job '" + job() + "': " + this.self.who()
				+ " is exiting (its JVM is shutting down, say on SIGTERM) before every process joined", null), true);
	}

	/**
	 * Removes a dead process's member, ready and alive files while they carry its incarnation, and the
	 * temporary files it was writing when it died (named by its incarnation: see {@code JobFiles#write}).
	 */
	private void deleteFilesOf(int index, String incarnation) throws IOException {
		for (String kind : List.of(FileNames.READY, FileNames.MEMBER, FileNames.ALIVE)) {
			this.files.deleteIfOwnedBy(FileNames.name(kind, index), incarnation);
		}
		this.files.deleteTemporariesOf(incarnation);
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
	synchronized void giveUp(RuntimeException failure, boolean abortOthers) {
		giveUp(failure, abortOthers, List.of());
	}

	/**
	 * {@link #giveUp(RuntimeException, boolean)}, removing also the files of processes found gone (their
	 * records would keep the directory the last process to give up removes, and puzzle the next run).
	 */
	synchronized void giveUp(RuntimeException failure, boolean abortOthers, List<MemberRecord> gone) {
		if (this.gaveUp) {
			return;
		}
		this.gaveUp = true;
		this.gaveUpWith = failure;
		Death death = null;
		if (this.liveness != null) {
			this.liveness.stop();
			death = this.liveness.death();
		}
		if (abortOthers) {
			// Also when nothing was written yet: a process that found its index claimed must tell the
			// first claimer, who otherwise never learns of the second.
			try {
				this.files.write(FileNames.name(FileNames.ABORT, this.self.incarnation()),
						Marker.toBytes("abort", this.self, Failures.factory().kindOf(failure), failure.getMessage()), true);
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
			this.files.deleteIfOwned(Liveness.aliveName(this.self.index()));
			// Found dead (its process gone, or its heartbeat still past the liveness timeout): only files
			// that still carry its incarnation go.
			if (death != null) {
				deleteFilesOf(death.index(), death.incarnation());
			}
			for (MemberRecord record : gone) {
				deleteFilesOf(record.index(), record.incarnation());
			}
			// The last process of the run to give up takes the directory, aborts and all: nothing of a
			// failed run is left to puzzle the next run of the job.
			List<Integer> peers = new ArrayList<>();
			for (int index : this.seen.keySet()) {
				if (index != this.self.index()) {
					peers.add(index);
				}
			}
			if (this.self.run().isEmpty()) {
				DirectoryRemoval.removeAbandoned(this.directory, job(), this.self.incarnation(), peers);
			}
			// With a run token the abort files stay: a process of this run that arrives late fails at once
			// on them (Leftovers), rather than wait out its timeout; the next run's last one out removes them.
		}
		catch (IOException ex) {
			failure.addSuppressed(ex);
		}
	}
}
