package io.uform.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardOpenOption;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The default file system, counting what one process asks of it: directory listings and the names
 * they return, file opens for reading and for writing, lookups (existence and attribute checks),
 * renames, hard links, deletions and directories made. Every operation is the default file system's;
 * a mesh joins through a directory of this file system exactly as through the real one, and the
 * counts are what it would ask of a shared file system's server (before any client cache).
 */
final class CountingFileSystem extends FileSystem {

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

	private final Provider provider = new Provider();

	private final FileSystem real;

	private final AtomicLong listings = new AtomicLong();

	private final AtomicLong listedNames = new AtomicLong();

	private final AtomicLong listingNanos = new AtomicLong();

	private final AtomicLong reads = new AtomicLong();

	private final AtomicLong writes = new AtomicLong();

	private final AtomicLong lookups = new AtomicLong();

	private final AtomicLong renames = new AtomicLong();

	private final AtomicLong links = new AtomicLong();

	private final AtomicLong deletes = new AtomicLong();

	private final AtomicLong directoriesMade = new AtomicLong();

	private CountingFileSystem(FileSystem real) {
		this.real = real;
	}

	/**
	 * A directory of the default file system, reached through a counting file system of its own.
	 * @param directory the directory
	 * @return the same directory, every operation on it and below it counted
	 */
	static Path counting(Path directory) {
		return new CountingFileSystem(directory.getFileSystem()).wrap(directory);
	}

	/** The counting file system a path of {@link #counting} belongs to. */
	static CountingFileSystem of(Path path) {
		return (CountingFileSystem) path.getFileSystem();
	}

	/** What was asked so far. */
	Counts counts() {
		return new Counts(this.listings.get(), this.listedNames.get(), this.listingNanos.get(), this.reads.get(),
				this.writes.get(), this.lookups.get(), this.renames.get(), this.links.get(), this.deletes.get(),
				this.directoriesMade.get());
	}

	private Path wrap(Path path) {
		return (path == null) ? null : new Counted(this, path);
	}

	private static Path unwrap(Path path) {
		return (path instanceof Counted counted) ? counted.real : path;
	}

	@Override
	public FileSystemProvider provider() {
		return this.provider;
	}

	@Override
	public void close() {
	}

	@Override
	public boolean isOpen() {
		return true;
	}

	@Override
	public boolean isReadOnly() {
		return false;
	}

	@Override
	public String getSeparator() {
		return this.real.getSeparator();
	}

	@Override
	public Iterable<Path> getRootDirectories() {
		List<Path> roots = new ArrayList<>();
		this.real.getRootDirectories().forEach((root) -> roots.add(wrap(root)));
		return roots;
	}

	@Override
	public Iterable<FileStore> getFileStores() {
		return this.real.getFileStores();
	}

	@Override
	public Set<String> supportedFileAttributeViews() {
		return this.real.supportedFileAttributeViews();
	}

	@Override
	public Path getPath(String first, String... more) {
		return wrap(this.real.getPath(first, more));
	}

	@Override
	public PathMatcher getPathMatcher(String syntaxAndPattern) {
		PathMatcher matcher = this.real.getPathMatcher(syntaxAndPattern);
		return (path) -> matcher.matches(unwrap(path));
	}

	@Override
	public UserPrincipalLookupService getUserPrincipalLookupService() {
		return this.real.getUserPrincipalLookupService();
	}

	@Override
	public WatchService newWatchService() {
		throw new UnsupportedOperationException("not counted");
	}

	/** A path of the counting file system: a default one underneath. */
	private static final class Counted implements Path {

		private final CountingFileSystem system;

		final Path real;

		Counted(CountingFileSystem system, Path real) {
			this.system = system;
			this.real = real;
		}

		private Path wrap(Path path) {
			return this.system.wrap(path);
		}

		@Override
		public FileSystem getFileSystem() {
			return this.system;
		}

		@Override
		public boolean isAbsolute() {
			return this.real.isAbsolute();
		}

		@Override
		public Path getRoot() {
			return wrap(this.real.getRoot());
		}

		@Override
		public Path getFileName() {
			return wrap(this.real.getFileName());
		}

		@Override
		public Path getParent() {
			return wrap(this.real.getParent());
		}

		@Override
		public int getNameCount() {
			return this.real.getNameCount();
		}

		@Override
		public Path getName(int index) {
			return wrap(this.real.getName(index));
		}

		@Override
		public Path subpath(int beginIndex, int endIndex) {
			return wrap(this.real.subpath(beginIndex, endIndex));
		}

		@Override
		public boolean startsWith(Path other) {
			return this.real.startsWith(unwrap(other));
		}

		@Override
		public boolean endsWith(Path other) {
			return this.real.endsWith(unwrap(other));
		}

		@Override
		public Path normalize() {
			return wrap(this.real.normalize());
		}

		@Override
		public Path resolve(Path other) {
			return wrap(this.real.resolve(unwrap(other)));
		}

		@Override
		public Path relativize(Path other) {
			return wrap(this.real.relativize(unwrap(other)));
		}

		@Override
		public URI toUri() {
			return this.real.toUri();
		}

		@Override
		public Path toAbsolutePath() {
			return wrap(this.real.toAbsolutePath());
		}

		@Override
		public Path toRealPath(LinkOption... options) throws IOException {
			return wrap(this.real.toRealPath(options));
		}

		@Override
		public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
			throw new UnsupportedOperationException("not counted");
		}

		@Override
		public int compareTo(Path other) {
			return this.real.compareTo(unwrap(other));
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Counted counted && this.real.equals(counted.real);
		}

		@Override
		public int hashCode() {
			return this.real.hashCode();
		}

		@Override
		public String toString() {
			return this.real.toString();
		}
	}

	/** Does what the default provider does, on the real paths, and counts. */
	private final class Provider extends FileSystemProvider {

		private FileSystemProvider real() {
			return CountingFileSystem.this.real.provider();
		}

		@Override
		public String getScheme() {
			return "counting";
		}

		@Override
		public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
			throw new UnsupportedOperationException();
		}

		@Override
		public FileSystem getFileSystem(URI uri) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Path getPath(URI uri) {
			return wrap(real().getPath(uri));
		}

		@Override
		public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
				throws IOException {
			boolean writing = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
			(writing ? CountingFileSystem.this.writes : CountingFileSystem.this.reads).incrementAndGet();
			return real().newByteChannel(unwrap(path), options, attrs);
		}

		@Override
		public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
				throws IOException {
			CountingFileSystem system = CountingFileSystem.this;
			long started = System.nanoTime();
			system.listings.incrementAndGet();
			DirectoryStream<Path> stream = real().newDirectoryStream(unwrap(dir), (entry) -> filter.accept(wrap(entry)));
			return new DirectoryStream<>() {

				@Override
				public Iterator<Path> iterator() {
					Iterator<Path> entries = stream.iterator();
					return new Iterator<>() {

						@Override
						public boolean hasNext() {
							return entries.hasNext();
						}

						@Override
						public Path next() {
							system.listedNames.incrementAndGet();
							return wrap(entries.next());
						}
					};
				}

				@Override
				public void close() throws IOException {
					stream.close();
					system.listingNanos.addAndGet(System.nanoTime() - started);
				}
			};
		}

		@Override
		public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
			CountingFileSystem.this.directoriesMade.incrementAndGet();
			real().createDirectory(unwrap(dir), attrs);
		}

		@Override
		public void createLink(Path link, Path existing) throws IOException {
			CountingFileSystem.this.links.incrementAndGet();
			real().createLink(unwrap(link), unwrap(existing));
		}

		@Override
		public void delete(Path path) throws IOException {
			CountingFileSystem.this.deletes.incrementAndGet();
			real().delete(unwrap(path));
		}

		@Override
		public boolean deleteIfExists(Path path) throws IOException {
			CountingFileSystem.this.deletes.incrementAndGet();
			return real().deleteIfExists(unwrap(path));
		}

		@Override
		public void copy(Path source, Path target, CopyOption... options) throws IOException {
			real().copy(unwrap(source), unwrap(target), options);
		}

		@Override
		public void move(Path source, Path target, CopyOption... options) throws IOException {
			CountingFileSystem.this.renames.incrementAndGet();
			real().move(unwrap(source), unwrap(target), options);
		}

		@Override
		public boolean isSameFile(Path path, Path path2) throws IOException {
			return real().isSameFile(unwrap(path), unwrap(path2));
		}

		@Override
		public boolean isHidden(Path path) throws IOException {
			return real().isHidden(unwrap(path));
		}

		@Override
		public FileStore getFileStore(Path path) throws IOException {
			return real().getFileStore(unwrap(path));
		}

		@Override
		public void checkAccess(Path path, AccessMode... modes) throws IOException {
			CountingFileSystem.this.lookups.incrementAndGet();
			real().checkAccess(unwrap(path), modes);
		}

		@Override
		public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
			return real().getFileAttributeView(unwrap(path), type, options);
		}

		@Override
		public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
				throws IOException {
			CountingFileSystem.this.lookups.incrementAndGet();
			return real().readAttributes(unwrap(path), type, options);
		}

		@Override
		public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
			CountingFileSystem.this.lookups.incrementAndGet();
			return real().readAttributes(unwrap(path), attributes, options);
		}

		@Override
		public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
			real().setAttribute(unwrap(path), attribute, value, options);
		}
	}
}
