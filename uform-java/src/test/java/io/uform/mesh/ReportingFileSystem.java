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

/**
 * The default file system, telling a {@link Listener} what a process asks of it: directory listings
 * (and each name they hand out), file opens, lookups (existence and attribute checks), renames, hard
 * links, deletions and directories made, each just before the default file system does it. A mesh
 * joins through a directory of this file system exactly as through the real one; what the listener
 * is told is what a shared file system's server would be asked (before any client cache). Shared by
 * the mesh tests ({@link ObservedFileSystem}) and the mesh benchmarks (through uform-java's test jar),
 * so it is public.
 */
public final class ReportingFileSystem extends FileSystem {

	/**
	 * What a process asks of a {@link ReportingFileSystem}, told before the default file system does it.
	 * The paths are the reporting file system's, as the process named them. Every method does nothing
	 * unless overridden.
	 */
	public interface Listener {

		/**
		 * A file is about to be opened.
		 * @param file the file
		 * @param writing whether it is opened for writing ({@code WRITE} or {@code APPEND}), not only for reading
		 */
		default void opening(Path file, boolean writing) {
		}

		/**
		 * A directory is about to be listed.
		 * @param directory the directory
		 * @return what to tell, and what to do, as this one listing goes on
		 */
		default Listing listing(Path directory) {
			return Listing.PLAIN;
		}

		/**
		 * A file's existence or attributes are about to be looked up.
		 * @param path the file
		 */
		default void lookingUp(Path path) {
		}

		/**
		 * A file is about to be renamed (moved).
		 * @param source the file
		 * @param target its new name
		 */
		default void moving(Path source, Path target) {
		}

		/**
		 * A hard link is about to be made.
		 * @param link the new name
		 * @param existing the file it names
		 */
		default void linking(Path link, Path existing) {
		}

		/**
		 * A file or empty directory is about to be deleted (if it exists).
		 * @param path the file
		 */
		default void deleting(Path path) {
		}

		/**
		 * A directory is about to be made.
		 * @param directory the directory
		 */
		default void makingDirectory(Path directory) {
		}
	}

	/** One listing of a directory, as it goes on. Every method does nothing unless overridden. */
	public interface Listing {

		/** A listing that shows every name and is told nothing. */
		Listing PLAIN = new Listing() {
		};

		/**
		 * Whether the listing shows a name; one that leaves names out is a listing as a client's cache
		 * may serve it, behind the directory's contents.
		 * @param entry a name in the directory
		 * @return {@code false} to leave it out
		 */
		default boolean shows(Path entry) {
			return true;
		}

		/**
		 * The process asks whether there is another name: the listing reads on. Throwing
		 * {@link DirectoryIteratorException} fails the read, as the default file system's listing
		 * fails when reading the directory does.
		 */
		default void readingOn() {
		}

		/**
		 * The listing hands out a name.
		 * @param entry the name
		 */
		default void handedOut(Path entry) {
		}

		/** The listing was closed. */
		default void closed() {
		}
	}

	private final Provider provider = new Provider();

	private final FileSystem real;

	private final Listener listener;

	private ReportingFileSystem(FileSystem real, Listener listener) {
		this.real = real;
		this.listener = listener;
	}

	/**
	 * A directory of the default file system, reached through a reporting file system of its own.
	 * @param directory the directory
	 * @param listener told every operation on the directory and below it
	 * @return the same directory, every operation on it and below it told to {@code listener}
	 */
	public static Path reporting(Path directory, Listener listener) {
		return new ReportingFileSystem(directory.getFileSystem(), listener).wrap(directory);
	}

	/**
	 * The listener of the reporting file system a path belongs to.
	 * @param path a path of {@link #reporting}, or one derived from it
	 * @return the listener given to {@link #reporting}
	 */
	public static Listener listenerOf(Path path) {
		return ((ReportingFileSystem) path.getFileSystem()).listener;
	}

	private Path wrap(Path path) {
		return (path == null) ? null : new Reported(this, path);
	}

	private static Path unwrap(Path path) {
		return (path instanceof Reported reported) ? reported.real : path;
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

	/** A path of the reporting file system: a default one underneath. */
	private static final class Reported implements Path {

		private final ReportingFileSystem system;

		final Path real;

		Reported(ReportingFileSystem system, Path real) {
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
			throw new UnsupportedOperationException("no notifications, as on NFS");
		}

		@Override
		public int compareTo(Path other) {
			return this.real.compareTo(unwrap(other));
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Reported reported && this.real.equals(reported.real);
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

	/** Does what the default provider does, on the real paths, once the listener is told. */
	private final class Provider extends FileSystemProvider {

		private FileSystemProvider real() {
			return ReportingFileSystem.this.real.provider();
		}

		private Listener listener() {
			return ReportingFileSystem.this.listener;
		}

		@Override
		public String getScheme() {
			return "reporting";
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
			listener().opening(path,
					options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND));
			return real().newByteChannel(unwrap(path), options, attrs);
		}

		@Override
		public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
				throws IOException {
			Listing listing = listener().listing(dir);
			DirectoryStream<Path> stream = real().newDirectoryStream(unwrap(dir),
					(entry) -> listing.shows(wrap(entry)) && filter.accept(wrap(entry)));
			return new DirectoryStream<>() {

				@Override
				public Iterator<Path> iterator() {
					Iterator<Path> entries = stream.iterator();
					return new Iterator<>() {

						@Override
						public boolean hasNext() {
							listing.readingOn();
							return entries.hasNext();
						}

						@Override
						public Path next() {
							Path entry = wrap(entries.next());
							listing.handedOut(entry);
							return entry;
						}
					};
				}

				@Override
				public void close() throws IOException {
					stream.close();
					listing.closed();
				}
			};
		}

		@Override
		public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
			listener().makingDirectory(dir);
			real().createDirectory(unwrap(dir), attrs);
		}

		@Override
		public void createLink(Path link, Path existing) throws IOException {
			listener().linking(link, existing);
			real().createLink(unwrap(link), unwrap(existing));
		}

		@Override
		public void delete(Path path) throws IOException {
			listener().deleting(path);
			real().delete(unwrap(path));
		}

		@Override
		public boolean deleteIfExists(Path path) throws IOException {
			listener().deleting(path);
			return real().deleteIfExists(unwrap(path));
		}

		@Override
		public void copy(Path source, Path target, CopyOption... options) throws IOException {
			real().copy(unwrap(source), unwrap(target), options);
		}

		@Override
		public void move(Path source, Path target, CopyOption... options) throws IOException {
			listener().moving(source, target);
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
			listener().lookingUp(path);
			real().checkAccess(unwrap(path), modes);
		}

		@Override
		public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
			return real().getFileAttributeView(unwrap(path), type, options);
		}

		@Override
		public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
				throws IOException {
			listener().lookingUp(path);
			return real().readAttributes(unwrap(path), type, options);
		}

		@Override
		public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
			listener().lookingUp(path);
			return real().readAttributes(unwrap(path), attributes, options);
		}

		@Override
		public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
			real().setAttribute(unwrap(path), attribute, value, options);
		}
	}
}
