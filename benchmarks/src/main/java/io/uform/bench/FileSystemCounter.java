package io.uform.bench;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import io.uform.mesh.ReportingFileSystem;

/**
 * Counts what one process asks of the file system: directory listings and the names they return,
 * file opens for reading and for writing, lookups (existence and attribute checks), renames, hard
 * links, deletions and directories made. It listens to a {@link ReportingFileSystem} (uform-java's
 * test jar, the one the mesh tests observe through), which does every operation as the default file
 * system does: a mesh joins through a directory of it exactly as through the real one, and the counts
 * are what it would ask of a shared file system's server (before any client cache).
 */
final class FileSystemCounter implements ReportingFileSystem.Listener {

	/** What a process asked of the file system, counted. */
	record Counts(long listings, long listedNames, long listingNanos, long reads, long writes, long lookups,
			long renames, long links, long deletes, long directoriesMade) {

		/** What was asked between {@code before} and this. */
		Counts minus(Counts before) {
			return new Counts(this.listings - before.listings, this.listedNames - before.listedNames,
					this.listingNanos - before.listingNanos, this.reads - before.reads, this.writes - before.writes,
					this.lookups - before.lookups, this.renames - before.renames, this.links - before.links,
					this.deletes - before.deletes, this.directoriesMade - before.directoriesMade);
		}
	}

	private final AtomicLong listings = new AtomicLong();

	private final AtomicLong listedNames = new AtomicLong();

	/** From asking for each listing until it was closed, summed. */
	private final AtomicLong listingNanos = new AtomicLong();

	private final AtomicLong reads = new AtomicLong();

	private final AtomicLong writes = new AtomicLong();

	private final AtomicLong lookups = new AtomicLong();

	private final AtomicLong renames = new AtomicLong();

	private final AtomicLong links = new AtomicLong();

	private final AtomicLong deletes = new AtomicLong();

	private final AtomicLong directoriesMade = new AtomicLong();

	/**
	 * A directory of the default file system, every operation on it and below it counted.
	 * @param directory the directory
	 * @return the same directory, reached through a reporting file system that tells this counter
	 */
	Path counting(Path directory) {
		return ReportingFileSystem.reporting(directory, this);
	}

	/** What was asked so far. */
	Counts counts() {
		return new Counts(this.listings.get(), this.listedNames.get(), this.listingNanos.get(), this.reads.get(),
				this.writes.get(), this.lookups.get(), this.renames.get(), this.links.get(), this.deletes.get(),
				this.directoriesMade.get());
	}

	@Override
	public void opening(Path file, boolean writing) {
		(writing ? this.writes : this.reads).incrementAndGet();
	}

	@Override
	public ReportingFileSystem.Listing listing(Path directory) {
		long started = System.nanoTime();
		this.listings.incrementAndGet();
		return new ReportingFileSystem.Listing() {

			@Override
			public void handedOut(Path entry) {
				FileSystemCounter.this.listedNames.incrementAndGet();
			}

			@Override
			public void closed() {
				FileSystemCounter.this.listingNanos.addAndGet(System.nanoTime() - started);
			}
		};
	}

	@Override
	public void lookingUp(Path path) {
		this.lookups.incrementAndGet();
	}

	@Override
	public void moving(Path source, Path target) {
		this.renames.incrementAndGet();
	}

	@Override
	public void linking(Path link, Path existing) {
		this.links.incrementAndGet();
	}

	@Override
	public void deleting(Path path) {
		this.deletes.incrementAndGet();
	}

	@Override
	public void makingDirectory(Path directory) {
		this.directoriesMade.incrementAndGet();
	}
}
