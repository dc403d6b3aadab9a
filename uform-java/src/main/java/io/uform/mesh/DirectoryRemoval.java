package io.uform.mesh;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Removes the directory of a run whose every process left, without ever taking a live run's files:
 * the directory is renamed to a grave first, and what the grave holds decides what is deleted and
 * what goes back (see the package's description, <em>Leave</em>).
 */
final class DirectoryRemoval {

	private static final System.Logger LOG = System.getLogger("io.uform.mesh");

	private DirectoryRemoval() {
	}

	/**
	 * Removes the directory of a run that finished: moves it aside to a grave, then deletes what the
	 * finished run left there. Losing the race to another process that removes it too is fine.
	 *
	 * <p>The caller decided the run finished from an earlier listing; a new run of the job may have
	 * replaced the directory since (removed the finished run, made it again, written its records, even
	 * joined). So the grave is read after the rename: a member or ready file of an incarnation not of
	 * the finished run means this was a live run's directory, and every file not of the finished run
	 * goes back into {@code <job>} (see the package's description, <em>Leave</em>).
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
					if (attempt >= JobFiles.DIRECTORY_ATTEMPTS) {
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
	 * Removes the directory of a bootstrap that failed, once nothing but abort files is left in it:
	 * every process that wrote a record there has given up and removed its files, so no process is
	 * left to read the aborts (one that arrives later ignores them), and the directory would only
	 * puzzle whoever looks next. While any other file is there (a peer still waiting, an earlier run's
	 * leftovers, a file that is not the mesh's) nothing is removed. A record that a new run writes in
	 * the moment between the listing and the rename goes back, as when a finished run is removed, and
	 * so do the abort files beside it. A job directory that is a symbolic link is never touched.
	 * <p>A listing may lag (an NFS client's cached listing): the record of each peer the remover knows
	 * of is also looked up by name, which a lagging listing does not fool, before a peer's directory is
	 * taken from under it.
	 * @param directory the mesh directory
	 * @param job the job
	 * @param incarnation the remover's incarnation, which names the grave
	 * @param peers the indices whose records the remover read
	 * @return whether this call removed the directory
	 * @throws IOException when it cannot be listed, or a file cannot be removed or put back
	 */
	static boolean removeAbandoned(Path directory, String job, String incarnation, Collection<Integer> peers)
			throws IOException {
		Path home = directory.resolve(job);
		if (!Files.isDirectory(home, LinkOption.NOFOLLOW_LINKS)) {
			// Gone already, or a link or a file that this process refused to use.
			return false;
		}
		JobFiles files = new JobFiles(home, incarnation);
		for (String name : files.list()) {
			if (FileNames.abortIncarnation(name) == null) {
				return false;
			}
		}
		for (int index : peers) {
			if (files.exists(FileNames.name(FileNames.MEMBER, index))) {
				return false;
			}
		}
		// Nothing counts as the finished run's: in the theirs-empty case every file goes anyway, and
		// where a live record came meanwhile the aborts go back with it, for its peers to read.
		return !removeDirectory(directory, job, incarnation, Set.of(), Set.of());
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
				if (name.startsWith(JobFiles.temporaryPrefix(incarnation))) {
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
	 * lost.
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
			JobFiles.makeDirectory(home);
			if (merge(grave, home)) {
				Files.deleteIfExists(grave);
				return;
			}
			if (attempt >= JobFiles.DIRECTORY_ATTEMPTS) {
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
}
