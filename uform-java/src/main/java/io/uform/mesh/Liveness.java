package io.uform.mesh;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * One member's proof of life and its watch over a few others (see the package's description,
 * <em>Liveness</em>): a daemon thread that, every {@link #refresh(Duration) refresh}, reads the one
 * name {@code broken.properties}, rewrites this member's {@code alive-<i>} with the next beat of a
 * counter, and reads the {@code alive} files of the {@link #WATCHED} members after it (by index, round
 * the ring). A watched member whose beat stands still for the liveness timeout, judged by this
 * process's monotonic clock alone, is dead.
 *
 * <p>Threads meet here: the liveness thread does the work; the joining thread starts it, reads
 * {@link #death()} every poll and hands over the joined run ({@link #joined}); the thread that leaves
 * or gives up stops it ({@link #stop()}); any thread may add a listener.
 * <table>
 * <caption>What the liveness thread shares</caption>
 * <tr><th>what</th><th>written by</th><th>read by</th><th>why that is safe</th></tr>
 * <tr><td>{@code members}</td><td>the joining thread: the records seen so far, then the joined run</td>
 *     <td>the liveness thread, each tick</td><td>volatile; the map while joining is the join's concurrent
 *     map, read, never written, here</td></tr>
 * <tr><td>{@code joined}</td><td>{@link #joined}, once</td><td>the liveness thread</td><td>volatile: a
 *     death before it is the join's to report (an abort), after it the run's ({@code broken})</td></tr>
 * <tr><td>{@code death}</td><td>the liveness thread, once (first death wins)</td><td>any thread</td>
 *     <td>volatile, set under {@code this} with the listeners' call, so a listener added meanwhile is
 *     called exactly once</td></tr>
 * <tr><td>{@code stopped}</td><td>{@link #stop()}</td><td>the liveness thread, before each write</td>
 *     <td>volatile, and the write holds {@code this}: nothing is written after {@code stop} returns</td></tr>
 * <tr><td>{@code watches}, {@code gone}, {@code beat}</td><td colspan="2">the liveness thread only</td>
 *     <td>confined</td></tr>
 * </table>
 */
final class Liveness implements Runnable {

	/** How many members each member watches: a death goes unnoticed only when all its watchers die too. */
	static final int WATCHED = 2;

	private static final System.Logger LOG = System.getLogger("io.uform.mesh");

	/** What one watched member's heartbeat said last, and when (this process's monotonic clock) it changed. */
	private static final class Watch {

		final String incarnation;

		String last;

		long changed;

		Watch(String incarnation, long now) {
			this.incarnation = incarnation;
			this.changed = now;
		}
	}

	private final JobFiles files;

	private final MemberRecord self;

	private final long refreshNanos;

	private final Thread thread;

	private volatile NavigableMap<Integer, MemberRecord> members;

	private volatile boolean joined;

	private volatile boolean stopped;

	private volatile Death death;

	private final List<Consumer<Death>> listeners = new CopyOnWriteArrayList<>();

	private final Map<Integer, Watch> watches = new HashMap<>();

	/** Indices that left cleanly or were found dead: watched no more, the next ones in the ring are. */
	private final Set<Integer> gone = new HashSet<>();

	private long beat;

	/** When this member last wrote its heartbeat (monotonic), to notice that it stood still itself. */
	private long beaten;

	private Liveness(JobFiles files, MemberRecord self, NavigableMap<Integer, MemberRecord> members) {
		this.files = files;
		this.self = self;
		this.members = members;
		this.refreshNanos = refresh(self.livenessTimeout()).toNanos();
		// From the start, so that a first beat that cannot be written counts from here, not from time zero.
		this.beaten = System.nanoTime();
		this.thread = new Thread(this, "uform-mesh-liveness-" + self.job() + "-" + self.index());
		this.thread.setDaemon(true);
	}

	/**
	 * How often a member proves its life and looks at its neighbours': a tenth of the liveness timeout,
	 * from 10 ms to 1 s, so that ten beats at least fall in the timeout.
	 * @param livenessTimeout the liveness timeout
	 */
	static Duration refresh(Duration livenessTimeout) {
		long millis = Math.max(10, Math.min(1000, livenessTimeout.toMillis() / 10));
		return Duration.ofMillis(millis);
	}

	/**
	 * Writes this member's first beat and starts the thread.
	 * @param files the job directory's files, as this member writes them
	 * @param self this member's record, already claimed
	 * @param members the records seen so far, by index (this member's among them): read, never written
	 * @return the running liveness, to {@link #stop()} when the member leaves or gives up
	 */
	static Liveness start(JobFiles files, MemberRecord self, NavigableMap<Integer, MemberRecord> members) {
		Liveness liveness = new Liveness(files, self, members);
		liveness.beat();
		liveness.thread.start();
		return liveness;
	}

	/**
	 * The run joined: from now on a death breaks it ({@code dead-<i>} and {@code broken.properties}),
	 * where before it failed the join.
	 * @param run every member's record, by index
	 */
	void joined(NavigableMap<Integer, MemberRecord> run) {
		this.members = run;
		this.joined = true;
		Death early = this.death;
		if (early != null && !early.expelled()) {
			// Found in the moment between the last poll and here: the run joined, so it hears of it as of any.
			publish(early);
		}
	}

	/** The first death this member learned of, or {@code null} while every watched member lives. */
	Death death() {
		return this.death;
	}

	/** Calls {@code listener} once with the first death: now, when there is one already, else when it comes. */
	void onDeath(Consumer<Death> listener) {
		Death now;
		synchronized (this) {
			now = this.death;
			if (now == null) {
				this.listeners.add(listener);
				return;
			}
		}
		call(listener, now);
	}

	/** Stops beating and watching; nothing is written once it returns. Idempotent. */
	void stop() {
		synchronized (this) {
			this.stopped = true;
		}
		this.thread.interrupt();
	}

	/** The liveness thread's loop; a method of the class rather than a lambda, see {@code Mesh#multicastFlags}. */
	@Override
	public void run() {
		while (!this.stopped) {
			try {
				Thread.sleep(this.refreshNanos / 1_000_000, (int) (this.refreshNanos % 1_000_000));
			}
			catch (InterruptedException ex) {
				// stop(): the loop's condition ends it.
				continue;
			}
			try {
				tick();
			}
			catch (RuntimeException ex) {
				// A file system hiccup must not end the proof of life; a lasting one shows as a death.
				LOG.log(Level.DEBUG, "uform mesh liveness of " + this.self.who() + ": " + ex);
			}
		}
	}

	private void tick() {
		if (this.joined) {
			readBroken();
		}
		if (this.death == null && System.nanoTime() - this.beaten > this.self.livenessTimeout().toNanos()) {
			// This member's own heartbeat stood still past the timeout (paused by SIGSTOP, a long GC, swap,
			// a file system that hung): its watchers count it dead, whether or not their word can still be
			// read (the others may have left, and the directory with them).
			died(new Death(this.self.index(), this.self.incarnation(), this.self.host(), this.self.pid(), this.self.who(),
					"its own heartbeat (" + aliveName(this.self.index()) + ") stood still for more than the liveness "
							+ "timeout (" + Messages.spell(this.self.livenessTimeout()) + "): it was paused (SIGSTOP, a "
							+ "long GC pause, swapping) or cut off from the mesh directory, so its peers count it dead",
					true));
		}
		if (this.death != null && this.death.expelled()) {
			// Declared dead by the others: beating again would only confuse them.
			return;
		}
		beat();
		watch();
	}

	/** The one file every member reads every refresh: a death one member found reaches all in a beat. */
	private void readBroken() {
		if (this.death != null) {
			return;
		}
		try {
			byte[] bytes = this.files.read(FileNames.BROKEN);
			if (bytes == null) {
				return;
			}
			Death read = Death.parse(bytes);
			MemberRecord dead = this.members.get(read.index());
			// Only a death of this run's: an earlier run's file would have been removed with its directory.
			if (dead != null && dead.incarnation().equals(read.incarnation())) {
				died(read.readBy(this.self));
			}
		}
		catch (IOException | IllegalArgumentException ex) {
			// Not there in full yet, or unreadable: the next refresh reads it again.
		}
	}

	/** Rewrites {@code alive-<i>} in place with the next beat (see the package's description). */
	private synchronized void beat() {
		if (this.stopped) {
			return;
		}
		this.beat++;
		byte[] bytes = heartbeat(this.self.incarnation(), this.beat);
		String name = aliveName(this.self.index());
		try {
			if (this.beat == 1) {
				// The first beat appears whole (written aside, renamed into place): a process killed while it
				// made the file must not leave an empty one, which names no incarnation and so is never
				// removed as the dead process's. Never making the directory: it is there while this runs.
				this.files.write(name, bytes, false);
			}
			else {
				// Then in place, not renamed onto its name: a reader that opens the same file again is told by
				// NFS's close-to-open consistency that it changed, where a rename would leave a cached name on
				// the old file. Not truncated: every beat has the same length, so the file is never short.
				// Made again where it went (put back by a removal that raced a new run: see DirectoryRemoval).
				Files.write(this.files.directory().resolve(name), bytes, StandardOpenOption.WRITE,
						StandardOpenOption.CREATE);
			}
			this.beaten = System.nanoTime();
		}
		catch (IOException ex) {
			LOG.log(Level.DEBUG, "uform mesh liveness of " + this.self.who() + " could not beat: " + ex);
		}
	}

	private void watch() {
		long now = System.nanoTime();
		for (MemberRecord member : neighbours()) {
			Watch watch = this.watches.get(member.index());
			if (watch == null || !watch.incarnation.equals(member.incarnation())) {
				watch = new Watch(member.incarnation(), now);
				this.watches.put(member.index(), watch);
			}
			String said = readHeartbeat(member);
			if (said != null && !said.equals(watch.last)) {
				watch.last = said;
				watch.changed = now;
				continue;
			}
			String reason = deadReason(member, now - watch.changed);
			if (reason == null) {
				continue;
			}
			this.gone.add(member.index());
			if (leftCleanly(member)) {
				continue;
			}
			found(Death.of(member, this.self, reason));
		}
	}

	/** Why a member whose beat has stood still for {@code stillNanos} is dead, or {@code null} while it may live. */
	private String deadReason(MemberRecord member, long stillNanos) {
		// The heartbeat alone, wherever the member runs: one rule for every host, which the tests that kill
		// processes on this host exercise as a death on another host would.
		Duration limit = (member.livenessTimeout().compareTo(this.self.livenessTimeout()) > 0) ? member.livenessTimeout()
				: this.self.livenessTimeout();
		if (stillNanos <= limit.toNanos()) {
			return null;
		}
		return "its heartbeat (" + aliveName(member.index()) + ") stood still for more than the liveness timeout ("
				+ Messages.spell(limit) + ")";
	}

	private boolean leftCleanly(MemberRecord member) {
		return member.incarnation().equals(this.files.owner(FileNames.name(FileNames.LEFT, member.index())));
	}

	/**
	 * The {@link #WATCHED} members after this one round the ring of those known, skipping those gone:
	 * every member known is watched by its nearest live predecessors.
	 */
	private List<MemberRecord> neighbours() {
		NavigableMap<Integer, MemberRecord> known = this.members;
		List<MemberRecord> next = new ArrayList<>(WATCHED);
		for (NavigableMap<Integer, MemberRecord> part : List.of(known.tailMap(this.self.index(), false),
				known.headMap(this.self.index(), false))) {
			for (MemberRecord member : part.values()) {
				if (next.size() == WATCHED) {
					return next;
				}
				if (!this.gone.contains(member.index())) {
					next.add(member);
				}
			}
		}
		return next;
	}

	/** What a member's heartbeat file says, or {@code null} when it is not there or not that member's. */
	private String readHeartbeat(MemberRecord member) {
		try {
			byte[] bytes = this.files.read(aliveName(member.index()));
			if (bytes == null) {
				return null;
			}
			String text = new String(bytes, StandardCharsets.ISO_8859_1);
			// Another incarnation's (an earlier claim of the index) says nothing of this one.
			return text.contains("marker.incarnation=" + member.incarnation() + "\n") ? text : null;
		}
		catch (IOException ex) {
			return null;
		}
	}

	/** A death this member found: before the join the join reports it; after it, the run hears of it. */
	private void found(Death found) {
		if (this.joined && this.death == null) {
			// Once a death is known (found here, or read from broken.properties) the run is broken and
			// the others are told: this process may be leaving already, and the last one out removing
			// the directory, which a late publication must not bring back.
			publish(found);
		}
		died(found);
	}

	/**
	 * Writes {@code dead-<i>} and claims {@code broken.properties}, which every member reads. Holds
	 * {@code this} as a beat does, so nothing is written once {@link #stop()} returns; and never makes
	 * the job directory: where it is gone, every other process left and the last one took it.
	 */
	private synchronized void publish(Death found) {
		if (this.stopped) {
			return;
		}
		try {
			this.files.write(FileNames.name(FileNames.DEAD, found.index()), found.toBytes(), false);
			this.files.claim(FileNames.BROKEN, found.toBytes(), false);
		}
		catch (FileAlreadyExistsException ex) {
			// Another member found a death first: the run is broken either way, and its file says by whom.
		}
		catch (NoSuchFileException ex) {
			// The directory is gone: every other process left, and the last one out removed it.
			LOG.log(Level.DEBUG, "uform mesh: " + this.self.who() + " found " + found.who() + " dead after the others "
					+ "left: " + ex);
		}
		catch (IOException ex) {
			LOG.log(Level.WARNING, "uform mesh: " + this.self.who() + " found " + found.who() + " dead but could "
					+ "not tell the others through " + this.files.directory() + ": " + ex);
		}
	}

	private void died(Death first) {
		List<Consumer<Death>> toCall;
		synchronized (this) {
			if (this.death != null) {
				return;
			}
			this.death = first;
			toCall = List.copyOf(this.listeners);
			this.listeners.clear();
		}
		LOG.log(Level.WARNING, first.expelled()
				? "uform mesh: " + this.self.who() + " was declared dead by " + first.by() + " (" + first.reason()
						+ ") and is no longer a member of job '" + this.self.job() + "'"
				: "uform mesh: " + first.who() + " of job '" + this.self.job() + "' is dead (" + first.reason()
						+ ", found by " + first.by() + "): the mesh is broken");
		for (Consumer<Death> listener : toCall) {
			call(listener, first);
		}
	}

	private void call(Consumer<Death> listener, Death first) {
		try {
			listener.accept(first);
		}
		catch (RuntimeException ex) {
			LOG.log(Level.WARNING, "uform mesh: a listener of " + this.self.who() + "'s liveness failed", ex);
		}
	}

	static String aliveName(int index) {
		return FileNames.name(FileNames.ALIVE, index);
	}

	/**
	 * A heartbeat's bytes: the writer's incarnation and its beat, a counter (never a time: no host's clock
	 * is read by another), zero-padded so that every beat has the same length.
	 */
	static byte[] heartbeat(String incarnation, long beat) {
		String digits = Long.toString(beat);
		String text = "# uform mesh heartbeat (see io.uform.mesh.Liveness)\nuform.mesh.protocol=" + FileRendezvous.PROTOCOL
				+ "\nmarker.incarnation=" + incarnation + "\nbeat=" + "0".repeat(19 - digits.length()) + digits + "\n";
		return text.getBytes(StandardCharsets.ISO_8859_1);
	}
}
