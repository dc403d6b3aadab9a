package io.uform.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The mesh benchmarks' scratch job directories: removed with everything in them after a round. */
final class JobDirectories {

	private JobDirectories() {
	}

	/**
	 * Deletes a directory and everything under it, deepest first; a directory that is not there is fine.
	 * @param directory the directory
	 * @throws IOException when something in it cannot be deleted
	 */
	static void deleteRecursively(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
				Files.deleteIfExists(path);
			}
		}
	}
}
