package io.uform.mesh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Files of a job directory as another process of the mesh writes them, for the tests that play a peer:
 * whole, under a temporary name, then renamed into place, so a reader never sees half a file.
 */
final class PeerFiles {

	private PeerFiles() {
	}

	/**
	 * Writes a file into a job directory as every process does.
	 * @param job the job directory
	 * @param name the file's name there
	 * @param bytes its content
	 */
	static void writeAsAPeerDoes(Path job, String name, byte[] bytes) {
		try {
			Path temp = job.resolve(".tmp-test-" + name);
			Files.write(temp, bytes);
			Files.move(temp, job.resolve(name), StandardCopyOption.ATOMIC_MOVE);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}
}
