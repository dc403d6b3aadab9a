package io.uform.host;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

import io.uform.ProngTask;
import io.uform.SliceTask;
import io.uform.ThreadTask;
import io.uform.failure.FailureFactory;
import io.uform.failure.Failures;

/**
 * Fixture machines under {@code src/test/resources/hardware/<name>/}, each laid out as a root
 * directory ({@code proc/cpuinfo}, {@code proc/self/status}, {@code sys/devices/system/node},
 * {@code sys/fs/cgroup}) for the readers that take one.
 */
final class Fixtures {

	/**
	 * The API's own failure factory, as every executor hands it to the host runtime, so that these
	 * tests check what a user of the API gets.
	 */
	static final FailureFactory ERRORS = Failures.factory();

	/** Runs the API's task types, as the API's own bodies do. */
	static final ForkBodies<ThreadTask, ProngTask, SliceTask> BODIES = new ForkBodies<>() {

		@Override
		public void runThread(ThreadTask task, int thread, int colocation) {
			task.run(thread, colocation);
		}

		@Override
		public void runProng(ProngTask task, int index, int thread, int colocation) {
			task.run(index, thread, colocation);
		}

		@Override
		public void runSlice(SliceTask task, int first, int count, int thread, int colocation) {
			task.run(first, count, thread, colocation);
		}
	};

	private Fixtures() {
	}

	/**
	 * The root of a fixture machine.
	 * @param name the directory under {@code hardware/}
	 * @return its path on disk
	 */
	static Path root(String name) {
		URL url = Fixtures.class.getClassLoader().getResource("hardware/" + name);
		if (url == null) {
			throw new IllegalArgumentException("No fixture hardware/" + name + " on the test class path");
		}
		try {
			return Path.of(url.toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A fixture's {@code proc/cpuinfo} text.
	 * @param name the fixture
	 * @return the text
	 */
	static String cpuinfo(String name) {
		try {
			return Files.readString(root(name).resolve("proc/cpuinfo"));
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}
}
