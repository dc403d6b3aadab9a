package io.uform;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@code main} of the test sources in a fresh JVM (the same java, the same class path), for
 * what one JVM cannot test on itself: a small heap, JVM exit. A child that outlives its time is
 * killed, so a hang fails the test instead of stalling the build.
 */
final class ChildJvm {

	/** What a child printed and how it ended. */
	record Result(int exitCode, String output) {
	}

	private ChildJvm() {
	}

	static Result run(Class<?> main, List<String> jvmOptions, long timeoutSeconds) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		// As the test JVM itself runs: JNA loads native code, which Java 22+ warns about otherwise.
		command.add("--enable-native-access=ALL-UNNAMED");
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(main.getName());
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		// Read as it comes, so a chatty child never blocks on a full pipe.
		StringBuilder output = new StringBuilder();
		Thread reader = new Thread(() -> {
			try (InputStream in = process.getInputStream()) {
				byte[] buffer = new byte[8192];
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					synchronized (output) {
						output.append(new String(buffer, 0, read, StandardCharsets.UTF_8));
					}
				}
			}
			catch (IOException ex) {
				// The child is gone; what was read is what there is.
			}
		});
		reader.start();
		if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			reader.join(5_000);
			throw new AssertionError(main.getSimpleName() + " did not end within " + timeoutSeconds + " s; it printed:\n"
					+ output);
		}
		reader.join(5_000);
		synchronized (output) {
			return new Result(process.exitValue(), output.toString());
		}
	}
}
