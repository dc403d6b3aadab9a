package io.uform.mesh;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

/**
 * The job directory's files, as one process writes and reads them: every file written whole to a
 * temp file of the writer's incarnation and renamed (or, to claim an index, hard-linked) into place,
 * so that nobody reads half of one.
 */
final class JobFiles {

	/** Tries to make the job directory, or write into it, while another run's last process removes it. */
	static final int DIRECTORY_ATTEMPTS = 10;

	private final Path directory;

	private final String incarnation;

	/**
	 * The files of one directory as one process sees them.
	 * @param directory the job directory (or a grave it was renamed to)
	 * @param incarnation the process's incarnation, which names its temp files and tells its files apart
	 */
	JobFiles(Path directory, String incarnation) {
		this.directory = directory;
		this.incarnation = incarnation;
	}

	Path directory() {
		return this.directory;
	}

	/**
	 * The names in the directory; none when it is gone (removed under us by the last one out of an
	 * earlier run: it is written again).
	 */
	Set<String> list() throws IOException {
		Set<String> names = new HashSet<>();
		try (DirectoryStream<Path> files = Files.newDirectoryStream(this.directory)) {
			for (Path file : files) {
				names.add(file.getFileName().toString());
			}
		}
		catch (NoSuchFileException ex) {
			// Removed under us: empty, and written again.
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
		claim(name, bytes, true);
	}

	/**
	 * Claims a name as {@link #claim(String, byte[])} does.
	 * @param create whether to make the job directory when it is gone; never for a file of a run
	 *        already met, whose directory goes only when its last process leaves
	 * @throws FileAlreadyExistsException when the name is taken
	 */
	void claim(String name, byte[] bytes, boolean create) throws IOException {
		put(name, bytes, create, true);
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
		Path temp = this.directory.resolve(temporaryPrefix(this.incarnation) + name);
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

	/** How the temporary files of a process's writes begin: by its incarnation, so they are known as its. */
	static String temporaryPrefix(String incarnation) {
		return ".tmp-" + incarnation + "-";
	}

	/**
	 * Removes the temporary files of a process found dead: what it was writing when it died, which
	 * would otherwise keep the directory that the last process to give up removes.
	 */
	void deleteTemporariesOf(String incarnation) throws IOException {
		String prefix = temporaryPrefix(incarnation);
		for (String name : list()) {
			if (name.startsWith(prefix)) {
				Files.deleteIfExists(this.directory.resolve(name));
			}
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

	/**
	 * Which file a name leads to now, by one lookup ({@code stat}), no read; {@code null} when it is
	 * not there.
	 */
	Identity identity(String name) throws IOException {
		try {
			BasicFileAttributes attributes = Files.readAttributes(this.directory.resolve(name), BasicFileAttributes.class);
			return new Identity(attributes.fileKey(), attributes.lastModifiedTime(), attributes.size());
		}
		catch (NoSuchFileException ex) {
			return null;
		}
	}

	/**
	 * A file's identity as a lookup shows it: its key (device and inode where the file system has
	 * them), modification time and size. A file written whole and renamed or linked into place is a new
	 * file, so a name whose identity is unchanged still holds the bytes read under it before.
	 * @param key the file system's key of the file, or {@code null} where it has none
	 * @param modified when it was last written
	 * @param size its length in bytes
	 */
	record Identity(Object key, FileTime modified, long size) {

		/**
		 * Whether both are the same file, unchanged: never where the file system gives no key, which
		 * leaves the size and time alone to tell two files apart.
		 */
		boolean sameAs(Identity other) {
			return other != null && this.key != null && this.key.equals(other.key)
					&& Objects.equals(this.modified, other.modified) && this.size == other.size;
		}
	}

	MemberRecord readRecord(String name) throws IOException {
		byte[] bytes = read(name);
		return (bytes == null) ? null : MemberRecord.parse(bytes);
	}

	Marker readMarker(String name) throws IOException {
		byte[] bytes = read(name);
		return (bytes == null) ? null : Marker.parse(bytes);
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
		deleteIfOwnedBy(name, this.incarnation);
	}

	/** Removes a file only while it carries the given incarnation (a peer found dead: see {@code Liveness}). */
	void deleteIfOwnedBy(String name, String owner) throws IOException {
		if (owner.equals(owner(name))) {
			Files.deleteIfExists(this.directory.resolve(name));
		}
	}

	/**
	 * Makes a job directory. mkdir can find the name taken and then, checking, find it gone: renamed
	 * away at that moment by the last one out of a run that finished. That is tried again; a file (not
	 * a directory) of that name is a real problem.
	 */
	static void makeDirectory(Path directory) throws IOException {
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
}
