package io.uform.mesh;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryIteratorException;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The default file system, seen as a shared one may show it: its directory listings can leave out
 * names that a lookup of the name finds (as an NFS client's cached listing does for up to
 * {@code acdirmax}, while a lookup goes to the server), and it counts the listings, lookups (existence
 * and attribute checks) and reads a process makes. The one boundary the mesh tests cannot have for
 * real: an NFS mount. Every other operation is the default file system's.
 */
final class ObservedFileSystem extends FileSystem {

	private final Provider provider = new Provider();

	private final FileSystem real;

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

	private ObservedFileSystem(FileSystem real) {
		this.real = real;
	}

	/**
	 * A real directory, as seen through an observed file system.
	 * @param directory a directory of the default file system
	 * @return the same directory, whose files are reached through the observed file system
	 */
	static Path observe(Path directory) {
		ObservedFileSystem system = new ObservedFileSystem(directory.getFileSystem());
		return system.wrap(directory);
	}

	static ObservedFileSystem of(Path path) {
		return (ObservedFileSystem) path.getFileSystem();
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

	private void lookedUp(Path path) {
		counted(this.lookups, path);
	}

	private static void counted(Map<String, AtomicInteger> counts, Path path) {
		Path name = path.getFileName();
		if (name != null) {
			counts.computeIfAbsent(name.toString(), (key) -> new AtomicInteger()).incrementAndGet();
		}
	}

	Observed wrap(Path real) {
		return new Observed(this, real);
	}

	static Path unwrap(Path path) {
		return (path instanceof Observed observed) ? observed.real : path;
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
		throw new UnsupportedOperationException("no notifications, as on NFS");
	}

	/** A path of the observed file system: a default one underneath. */
	static final class Observed implements Path {

		private final ObservedFileSystem system;

		final Path real;

		Observed(ObservedFileSystem system, Path real) {
			this.system = system;
			this.real = real;
		}

		private Path wrap(Path path) {
			return (path == null) ? null : this.system.wrap(path);
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
			throw new UnsupportedOperationException("no notifications, as on NFS");
		}

		@Override
		public int compareTo(Path other) {
			return this.real.compareTo(unwrap(other));
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Observed observed && this.real.equals(observed.real);
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

	/** Does what the default provider does, on the real paths; counts and hides on the way. */
	private final class Provider extends FileSystemProvider {

		private FileSystemProvider real() {
			return ObservedFileSystem.this.real.provider();
		}

		@Override
		public String getScheme() {
			return "observed";
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
			if (!options.contains(StandardOpenOption.WRITE) && !options.contains(StandardOpenOption.APPEND)) {
				counted(ObservedFileSystem.this.reads, path);
			}
			return real().newByteChannel(unwrap(path), options, attrs);
		}

		@Override
		public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
				throws IOException {
			int listing = ObservedFileSystem.this.listings.incrementAndGet();
			int failingFrom = ObservedFileSystem.this.failingFrom;
			boolean fails = failingFrom > 0 && listing >= failingFrom;
			Predicate<String> hidden = ObservedFileSystem.this.hiddenFromListings;
			DirectoryStream<Path> stream = real().newDirectoryStream(unwrap(dir),
					(entry) -> !hidden.test(entry.getFileName().toString()) && filter.accept(wrap(entry)));
			return new DirectoryStream<>() {

				@Override
				public Iterator<Path> iterator() {
					Iterator<Path> entries = stream.iterator();
					return new Iterator<>() {

						@Override
						public boolean hasNext() {
							if (fails) {
								throw new DirectoryIteratorException(new IOException(dir + ": Stale file handle"));
							}
							return entries.hasNext();
						}

						@Override
						public Path next() {
							return wrap(entries.next());
						}
					};
				}

				@Override
				public void close() throws IOException {
					stream.close();
				}
			};
		}

		@Override
		public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
			real().createDirectory(unwrap(dir), attrs);
		}

		@Override
		public void createLink(Path link, Path existing) throws IOException {
			ObservedFileSystem system = ObservedFileSystem.this;
			Path name = link.getFileName();
			if (name != null && system.beforeMoveTo.test(name.toString())) {
				system.beforeMoveTo = (any) -> false;
				system.beforeMove.run();
			}
			real().createLink(unwrap(link), unwrap(existing));
		}

		@Override
		public void delete(Path path) throws IOException {
			real().delete(unwrap(path));
		}

		@Override
		public boolean deleteIfExists(Path path) throws IOException {
			return real().deleteIfExists(unwrap(path));
		}

		@Override
		public void copy(Path source, Path target, CopyOption... options) throws IOException {
			real().copy(unwrap(source), unwrap(target), options);
		}

		@Override
		public void move(Path source, Path target, CopyOption... options) throws IOException {
			ObservedFileSystem system = ObservedFileSystem.this;
			Path name = target.getFileName();
			if (name != null && system.beforeMoveTo.test(name.toString())) {
				system.beforeMoveTo = (any) -> false;
				system.beforeMove.run();
			}
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
			lookedUp(path);
			real().checkAccess(unwrap(path), modes);
		}

		@Override
		public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
			return real().getFileAttributeView(unwrap(path), type, options);
		}

		@Override
		public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
				throws IOException {
			lookedUp(path);
			return real().readAttributes(unwrap(path), type, options);
		}

		@Override
		public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
			lookedUp(path);
			return real().readAttributes(unwrap(path), attributes, options);
		}

		@Override
		public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
			real().setAttribute(unwrap(path), attribute, value, options);
		}
	}
}
