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
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-cp", System.getProperty("java.class.path")));
		command.addAll(jvmOptions);
		command.add(main.getName());
		command.addAll(List.of(args));
		Path log = Files.createTempFile("uform-child-jvm", ".log");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
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
}
