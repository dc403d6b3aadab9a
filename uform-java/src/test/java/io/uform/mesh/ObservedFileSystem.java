package io.uform.mesh;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The default file system, seen as a shared one may show it: its directory listings can leave out
 * names that a lookup of the name finds (as an NFS client's cached listing does for up to
 * {@code acdirmax}, while a lookup goes to the server), and it counts the listings, lookups (existence
 * and attribute checks) and reads a process makes. The one boundary the mesh tests cannot have for
 * real: an NFS mount. It listens to a {@link ReportingFileSystem}, which does every operation as the
 * default file system does.
 */
final class ObservedFileSystem implements ReportingFileSystem.Listener {

	/** Names that listings leave out, however long they exist. */
	private volatile Predicate<String> hiddenFromListings = (name) -> false;

	private final AtomicInteger listings = new AtomicInteger();

	/** Listings from this one on (counting from 1) fail while they read the directory; 0: none fails. */
	private volatile int failingFrom;

	private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();

	/** Run once, just before a file whose name it accepts is renamed into place; then cleared. */
	private volatile Predicate<String> beforeMoveTo = (name) -> false;

	private volatile Runnable beforeMove = () -> {
	};

	private ObservedFileSystem() {
	}

	/**
	 * A real directory, as seen through an observed file system.
	 * @param directory a directory of the default file system
	 * @return the same directory, whose files are reached through the observed file system
	 */
	static Path observe(Path directory) {
		return ReportingFileSystem.reporting(directory, new ObservedFileSystem());
	}

	static ObservedFileSystem of(Path path) {
		return (ObservedFileSystem) ReportingFileSystem.listenerOf(path);
	}

	/** Leaves the names that {@code hidden} accepts out of every listing from now on. */
	void hideFromListings(Predicate<String> hidden) {
		this.hiddenFromListings = hidden;
	}

	/**
	 * Makes every listing from the {@code first}-th on fail as it reads the directory, as
	 * {@code readdir} does on an NFS error (a stale handle, a server gone): the directory opens, and
	 * reading it throws {@link DirectoryIteratorException}, as the default file system's stream does.
	 */
	void failListingsFrom(int first) {
		this.failingFrom = first;
	}

	/**
	 * Runs {@code action} once, just before the first rename or hard link whose target's name
	 * {@code target} accepts: what another process did meanwhile, at a chosen point of this one's work.
	 */
	void beforeMovingInto(Predicate<String> target, Runnable action) {
		this.beforeMove = action;
		this.beforeMoveTo = target;
	}

	/** How many times a directory was listed. */
	int listings() {
		return this.listings.get();
	}

	/** How many times a file whose name starts with {@code prefix} was looked up (existence, attributes). */
	int lookups(String prefix) {
		return count(this.lookups, prefix);
	}

	/** How many times a file whose name starts with {@code prefix} was opened for reading. */
	int reads(String prefix) {
		return count(this.reads, prefix);
	}

	private static int count(Map<String, AtomicInteger> counts, String prefix) {
		int total = 0;
		for (Map.Entry<String, AtomicInteger> entry : counts.entrySet()) {
			if (entry.getKey().startsWith(prefix)) {
				total += entry.getValue().get();
			}
		}
		return total;
	}

	private static void counted(Map<String, AtomicInteger> counts, Path path) {
		Path name = path.getFileName();
		if (name != null) {
			counts.computeIfAbsent(name.toString(), (key) -> new AtomicInteger()).incrementAndGet();
		}
	}

	@Override
	public void opening(Path file, boolean writing) {
		if (!writing) {
			counted(this.reads, file);
		}
	}

	@Override
	public ReportingFileSystem.Listing listing(Path directory) {
		int listing = this.listings.incrementAndGet();
		int failingFrom = this.failingFrom;
		boolean fails = failingFrom > 0 && listing >= failingFrom;
		Predicate<String> hidden = this.hiddenFromListings;
		return new ReportingFileSystem.Listing() {

			@Override
			public boolean shows(Path entry) {
				return !hidden.test(entry.getFileName().toString());
			}

			@Override
			public void readingOn() {
				if (fails) {
					throw new DirectoryIteratorException(new IOException(directory + ": Stale file handle"));
				}
			}
		};
	}

	@Override
	public void lookingUp(Path path) {
		counted(this.lookups, path);
	}

	@Override
	public void moving(Path source, Path target) {
		movingInto(target);
	}

	@Override
	public void linking(Path link, Path existing) {
		movingInto(link);
	}

	private void movingInto(Path target) {
		Path name = target.getFileName();
		if (name != null && this.beforeMoveTo.test(name.toString())) {
			this.beforeMoveTo = (any) -> false;
			this.beforeMove.run();
		}
	}
}
