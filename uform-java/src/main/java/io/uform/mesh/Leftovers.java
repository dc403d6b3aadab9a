package io.uform.mesh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import io.uform.failure.Failures;

/**
 * The first look of a join at its job directory, before it writes anything: a run that finished is
 * removed, files an earlier run left are reported with the fix, and a live run this process cannot
 * join (a second claim of its index, a run that joined without it) makes it give up alone. What the
 * look read is kept for the join: member records parsed (the first poll need not parse them again)
 * and abort files of earlier attempts, which the join ignores.
 */
final class Leftovers {

	/**
	 * A member record as read at the first look: its file's identity, looked up before the read, and
	 * what its bytes parse to. Only records whose protocol the first look accepted are kept (it gives
	 * up on any other).
	 */
	private record Read(JobFiles.Identity identity, MemberRecord record) {
	}

	private final Path directory;

	private final MemberRecord self;

	private final JobFiles files;

	private final Agreement agreement;

	/** Member records parsed at the first look, by file name. */
	private final Map<String, Read> records = new HashMap<>();

	/** Abort files present before this process wrote anything: an earlier attempt's. */
	private final Set<String> aborts = new HashSet<>();

	/** The latest of {@link #aborts}, for a timeout message. */
	private Marker latestAbort;

	/**
	 * @param directory the mesh directory
	 * @param self this process's record
	 * @param files the job directory's files
	 * @param agreement what this process's peers must agree on
	 */
	Leftovers(Path directory, MemberRecord self, JobFiles files, Agreement agreement) {
		this.directory = directory;
		this.self = self;
		this.files = files;
		this.agreement = agreement;
	}

	/**
	 * Lists the directory, removes a run that finished, and gives up on what an earlier or a live run
	 * left that this process cannot join with, or on a job directory that is a link or a file.
	 * @throws Failure naming the files and the fix, or the live run's disagreement
	 */
	void look() throws Failure {
		Set<String> names;
		if (Files.isSymbolicLink(this.files.directory())) {
			throw new Failure(Failure.linkedJobDirectory(this.files.directory(), job()), false);
		}
		try {
			JobFiles.makeDirectory(this.files.directory());
			names = this.files.list();
			Set<String> finished = finishedRun(names);
			if (finished != null) {
				DirectoryRemoval.removeDirectory(this.directory, job(), this.self.incarnation(), finished, names);
				JobFiles.makeDirectory(this.files.directory());
				names = this.files.list();
			}
		}
		catch (IOException ex) {
			throw new Failure(cannotUse(ex), false);
		}
		check(names);
	}

	/**
	 * The record the first look read under this name, once, so that the first poll need not read it
	 * again: {@code null} when it read none, or when a lookup now finds another file there (replaced
	 * since, say by a restarted peer's record), or cannot tell: then the poll reads it.
	 */
	MemberRecord takeRecord(String name) {
		Read before = this.records.remove(name);
		if (before == null) {
			return null;
		}
		try {
			JobFiles.Identity identity = before.identity();
			return (identity != null && identity.sameAs(this.files.identity(name))) ? before.record() : null;
		}
		catch (IOException ex) {
			return null;
		}
	}

	/** Whether an abort file was there at the first look: an earlier attempt's. */
	boolean abortedBefore(String name) {
		return this.aborts.contains(name);
	}

	/** The latest abort file of an earlier attempt, or {@code null}: a timeout message names it. */
	Marker latestAbort() {
		return this.latestAbort;
	}

	private String job() {
		return this.self.job();
	}

	private RuntimeException cannotUse(IOException ex) {
		return Failure.cannotUse(this.directory, this.files.directory(), job(), ex);
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
			String owner = this.files.owner(FileNames.name(FileNames.MEMBER, index));
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
	private void check(Set<String> names) throws Failure {
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
				// Looked up before the read: replaced in between, the poll finds another identity and
				// reads the file again rather than keep older bytes.
				JobFiles.Identity identity = this.files.identity(name);
				byte[] bytes = this.files.read(name);
				if (bytes == null) {
					continue;
				}
				Properties properties = MemberRecord.load(bytes);
				// Before parsing: another version's record may not parse as this one's, and "left by an
				// earlier run, remove the directory" would be wrong advice for a live run of that version.
				this.agreement.requireProtocol(name, properties.getProperty("uform.mesh.protocol"), true);
				MemberRecord record = MemberRecord.parse(properties);
				this.records.put(name, new Read(identity, record));
				String stale = staleness(record, this.self);
				if (stale != null) {
					leftovers.add(name + " of " + record.who() + ", written " + record.written() + ": " + stale);
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
				this.aborts.add(name);
			}
			try {
				Marker mark = this.files.readMarker(name);
				if (mark == null) {
					continue;
				}
				if (abort) {
					if (this.latestAbort == null || mark.written().isAfter(this.latestAbort.written())) {
						this.latestAbort = mark;
					}
				}
				else if (ready < 0 || !mark.incarnation().equals(live.get(ready))) {
					leftovers.add(name + " of " + mark.who() + ", written " + mark.written() + ": only a run "
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
				throw new Failure(this.agreement.duplicate(rival, this.self, false), false);
			}
			String disagreement = this.agreement.differences(anyLive);
			throw new Failure(Failures.factory().invalidArgument("Mesh job '" + job() + "' in "
					+ this.directory + " has a run of " + anyLive.count() + " process(es) that joined (or is joining) "
					+ "without this one" + ((disagreement != null) ? "; processes disagree on " + disagreement : "")
					+ ". This process gives up alone, and that run goes on. Give this process's run its own job name, "
					+ "or the same hostDomainCount and gpusPerMultimemDomain as that run and an index of its own"),
					false);
		}
		// A live record of this index, in a run still meeting: both claims give up.
		if (rival != null) {
			throw new Failure(this.agreement.duplicate(rival, this.self, true), true);
		}
		if (!leftovers.isEmpty()) {
			throw new Failure(Failures.factory().invalidArgument("Mesh job '" + job() + "' in "
					+ this.directory + " holds files left by an earlier run of the job: " + Messages.listed(leftovers)
					+ ". A new run cannot join them: remove " + this.files.directory() + " (once no process of the "
					+ "earlier run is running), or use a new job name"), false);
		}
	}

	/**
	 * Why a record found at the first look is stale (see the package's description), or {@code null}
	 * when its writer may be a live peer.
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
			return "it began its bootstrap at " + record.bootstrapStarted() + ", more than the timeout (" + Messages.spell(wait)
					+ ") before this process began (" + self.bootstrapStarted() + "), so no process can still be waiting "
					+ "for it (if its run completed, that run is going on without this process)";
		}
		return null;
	}
}
