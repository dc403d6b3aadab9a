package io.uform.mesh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.uform.failure.Failures;

/**
 * A failure of the join, with whether the others should hear of it through an abort file. Checked,
 * so that every step of the join says it can give up; its message is the exception's, which is what
 * the caller of {@link FileRendezvous#join} gets.
 */
final class Failure extends Exception {

	private static final long serialVersionUID = 1L;

	final transient RuntimeException exception;

	final boolean abortOthers;

	Failure(RuntimeException exception, boolean abortOthers) {
		super(exception.getMessage(), null, false, false);
		this.exception = exception;
		this.abortOthers = abortOthers;
	}

	/**
	 * The failure of a join that was interrupted.
	 * @param self the record of the process that waited
	 * @param cause the interrupt, as the JDK reported it
	 * @return the exception the caller gets
	 */
	static RuntimeException interrupted(MemberRecord self, Exception cause) {
		return Failures.factory().interrupted("Mesh bootstrap of job '" + self.job() + "' was interrupted while "
				+ self.who() + " waited for its peers; every process gives up, and the interrupt flag is still set", cause);
	}

	/**
	 * The failure of a join whose directory cannot be used. The directory option is named as the field
	 * it is, so that the starter's failure analysis names {@code uform.mesh.directory} and where it was set.
	 * @param directory the mesh directory
	 * @param jobDirectory the job's directory in it
	 * @param job the job
	 * @param ex what went wrong
	 * @return the exception the caller gets
	 */
	static RuntimeException cannotUse(Path directory, Path jobDirectory, String job, IOException ex) {
		if (Files.isSymbolicLink(jobDirectory)) {
			return linkedJobDirectory(jobDirectory, job);
		}
		if (Files.exists(jobDirectory) && !Files.isDirectory(jobDirectory)) {
			// "Make it writable" would send the user after permissions that are fine.
			return Failures.factory().invalid("job", job, jobDirectory + " is a file, not a directory, and the mesh keeps the "
					+ "job's files in a directory of that name. Move or remove that file (it is not the mesh's), or use "
					+ "another job name", ex);
		}
		return Failures.factory().invalid("directory", directory, "mesh job '" + job + "' cannot use " + jobDirectory
				+ " (" + ex + "); make " + directory + " writable by this user on every host (and mounted, where it is a "
				+ "shared file system), or, where it is, look at the file system itself (full, or a stale NFS handle)", ex);
	}

	/**
	 * The failure of a join whose job directory is a symbolic link. The mesh makes, renames and removes
	 * the job directory as its own (the last process out renames it aside and deletes it), which, done
	 * to a link, would delete the link and empty the directory it points to, and another host may
	 * resolve the link elsewhere; so a link there is refused before anything is written. The mesh
	 * directory itself may be a link, or lie under one.
	 * @param jobDirectory the job's directory, a link
	 * @param job the job
	 * @return the exception the caller gets
	 */
	static RuntimeException linkedJobDirectory(Path jobDirectory, String job) {
		String target;
		try {
			target = String.valueOf(Files.readSymbolicLink(jobDirectory));
		}
		catch (IOException | UnsupportedOperationException ex) {
			target = "?";
		}
		return Failures.factory().invalid("job", job, jobDirectory + " is a symbolic link (to " + target + "), and the mesh "
				+ "makes, renames and removes the job directory as its own, which it will not do through a link. Remove "
				+ "the link (it is not the mesh's), or, to keep the job's files elsewhere, set the mesh directory to "
				+ "a directory there (the mesh directory may be a link, or lie under one)");
	}
}
