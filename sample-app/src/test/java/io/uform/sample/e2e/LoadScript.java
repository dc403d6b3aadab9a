package io.uform.sample.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the sample's load script ({@code scripts/LoadClient.java}, what {@code scripts/load.sh} runs)
 * as a child process against the application, so that the script users run is the one the build
 * proves: it must find the engines agreeing, load each, and exit 0 with its table. Stopped by its PID
 * if it outlives its time.
 */
final class LoadScript {

	/** Relative to the module, where Maven runs its tests. */
	private static final Path SCRIPT = Path.of("scripts", "LoadClient.java");

	private LoadScript() {
	}

	/**
	 * Loads the application on every engine in turn, in rounds, with two client threads.
	 * @param port the application's port
	 * @param engines the engines to load
	 * @param rounds how many rounds (each engine once per round, one second each)
	 * @param output where the script's output goes
	 * @return the script's output
	 * @throws IOException when it cannot start, or it fails: the message has its output
	 * @throws InterruptedException when the test is stopped meanwhile (the script is stopped too)
	 */
	static String run(int port, List<String> engines, int rounds, Path output) throws IOException, InterruptedException {
		Files.createDirectories(output.getParent());
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, SCRIPT.toString(), "--url=http://127.0.0.1:" + port,
				"--duration=" + rounds + "s", "--rounds=" + rounds, "--warmup=1s", "--concurrency=2",
				"--engines=" + String.join(",", engines))
			.redirectErrorStream(true)
			.redirectOutput(output.toFile())
			.start();
		// Compiling the script takes a second or two; the load, a second per engine and round.
		Duration limit = Duration.ofSeconds(30 + 2L * engines.size() * (rounds + 1));
		try {
			boolean ended = process.waitFor(limit.toSeconds(), TimeUnit.SECONDS);
			String printed = Files.readString(output, StandardCharsets.UTF_8);
			if (!ended) {
				throw new IOException(SCRIPT + " (pid " + process.pid() + ") still ran after " + limit.toSeconds()
						+ " s; it printed:\n" + printed);
			}
			if (process.exitValue() != 0) {
				throw new IOException(SCRIPT + " exited " + process.exitValue() + "; it printed:\n" + printed);
			}
			return printed;
		}
		finally {
			process.destroyForcibly();
		}
	}
}
