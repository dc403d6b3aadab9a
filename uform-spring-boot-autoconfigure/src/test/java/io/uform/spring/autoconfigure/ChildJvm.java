package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a main class of the test sources in a fresh JVM, for what happens once per JVM (GPU discovery,
 * Boot's background preinitialization), and returns what it printed. The child gets this JVM's class
 * path and no system property of this one's; it is bounded and killed by its own handle.
 */
final class ChildJvm {

	private ChildJvm() {
	}

	/**
	 * Runs the child and checks its exit status.
	 * @param main the class whose {@code main} runs
	 * @param jvmOptions options before the class name, like {@code -Duform.devices.simulated=0}
	 * @param expectedExit the exit status the child must end with
	 * @param timeoutSeconds how long it may take before the test fails
	 * @param args the child's arguments
	 * @return its standard output and error, together
	 * @throws IOException if the child cannot be started or its output read
	 * @throws InterruptedException if interrupted while waiting
	 */
	static String run(Class<?> main, List<String> jvmOptions, int expectedExit, int timeoutSeconds, String... args)
			throws IOException, InterruptedException {
		Path log = Files.createTempFile("uform-child-jvm", ".log");
		Process process = start(main, jvmOptions, log, args);
		try {
			assertThat(process.waitFor(timeoutSeconds, TimeUnit.SECONDS)).as("child JVM finished").isTrue();
			String output = Files.readString(log);
			assertThat(process.exitValue()).as("child JVM's exit status; it printed:%n%s", output).isEqualTo(expectedExit);
			return output;
		}
		finally {
			process.destroyForcibly();
			Files.deleteIfExists(log);
		}
	}

	/**
	 * Runs the child until it prints a line, then sends it SIGTERM (as Kubernetes does) and waits for
	 * it to exit through its shutdown hooks, with status 143 (128 + SIGTERM).
	 * @param main the class whose {@code main} runs
	 * @param jvmOptions options before the class name
	 * @param whenPrinted the text after which the signal is sent
	 * @param timeoutSeconds how long the whole may take before the test fails
	 * @param args the child's arguments
	 * @return its standard output and error, together
	 * @throws IOException if the child cannot be started or its output read
	 * @throws InterruptedException if interrupted while waiting
	 */
	static String runAndTerminate(Class<?> main, List<String> jvmOptions, String whenPrinted, int timeoutSeconds,
			String... args) throws IOException, InterruptedException {
		Path log = Files.createTempFile("uform-child-jvm", ".log");
		Process process = start(main, jvmOptions, log, args);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
		try {
			while (!Files.readString(log).contains(whenPrinted)) {
				assertThat(process.isAlive()).as("child JVM still running, before printing '%s'; it printed:%n%s",
						whenPrinted, Files.readString(log)).isTrue();
				assertThat(System.nanoTime() - deadline).as("time left for the child to print '%s'", whenPrinted)
					.isNegative();
				Thread.sleep(50);
			}
			// Process.destroy() is SIGTERM on Linux and macOS.
			process.destroy();
			long left = Math.max(0, deadline - System.nanoTime());
			assertThat(process.waitFor(left, TimeUnit.NANOSECONDS)).as("child JVM exited after SIGTERM").isTrue();
			String output = Files.readString(log);
			assertThat(process.exitValue()).as("child JVM's exit status after SIGTERM; it printed:%n%s", output)
				.isEqualTo(143);
			return output;
		}
		finally {
			process.destroyForcibly();
			Files.deleteIfExists(log);
		}
	}

	private static Process start(Class<?> main, List<String> jvmOptions, Path log, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-cp", System.getProperty("java.class.path")));
		command.addAll(jvmOptions);
		command.add(main.getName());
		command.addAll(List.of(args));
		return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
	}
}
