package io.uform;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@code main} of the test sources in a fresh JVM (the same java, the same class path), for
 * what one JVM cannot test on itself: a small heap, JVM exit, several processes meeting in a mesh. A
 * child that outlives its time is killed, so a hang fails the test instead of stalling the build.
 */
public final class ChildJvm {

	/** What a child printed and how it ended. */
	public record Result(int exitCode, String output) {
	}

	private ChildJvm() {
	}

	public static Result run(Class<?> main, List<String> jvmOptions, long timeoutSeconds) throws IOException, InterruptedException {
		return start(main, jvmOptions, List.of()).await(timeoutSeconds);
	}

	/**
	 * Starts a child without waiting for it, so that a test can run several at once and kill one by
	 * pid; the test must {@link Running#kill()} each one in a {@code finally}.
	 * @param main the class whose {@code main} runs
	 * @param jvmOptions options before the class name
	 * @param args the program's arguments
	 * @return the running child
	 */
	public static Running start(Class<?> main, List<String> jvmOptions, List<String> args) throws IOException {
		return start(main, jvmOptions, args, Map.of());
	}

	/**
	 * {@link #start(Class, List, List)} with variables added to the child's environment.
	 * @param env the variables, such as a launcher's
	 */
	public static Running start(Class<?> main, List<String> jvmOptions, List<String> args, Map<String, String> env)
			throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		// As the test JVM itself runs: JNA loads native code, which Java 22+ warns about otherwise.
		command.add("--enable-native-access=ALL-UNNAMED");
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(main.getName());
		command.addAll(args);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(env);
		Process process = builder.start();
		return new Running(main, process);
	}

	/** A child that runs; its output is read as it comes, so a chatty child never blocks on a full pipe. */
	public static final class Running {

		private final Class<?> main;

		private final Process process;

		private final StringBuilder output = new StringBuilder();

		private final Thread reader;

		private Running(Class<?> main, Process process) {
			this.main = main;
			this.process = process;
			this.reader = new Thread(() -> {
				try (InputStream in = process.getInputStream()) {
					byte[] buffer = new byte[8192];
					for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
						synchronized (this.output) {
							this.output.append(new String(buffer, 0, read, StandardCharsets.UTF_8));
						}
					}
				}
				catch (IOException ex) {
					// The child is gone; what was read is what there is.
				}
			});
			this.reader.setDaemon(true);
			this.reader.start();
		}

		/** The child's process, for its pid. */
		public Process process() {
			return this.process;
		}

		/** What the child printed so far. */
		public String output() {
			synchronized (this.output) {
				return this.output.toString();
			}
		}

		/** Waits for the child to end; kills it and fails past the limit. */
		public Result await(long timeoutSeconds) throws InterruptedException {
			if (!this.process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
				kill();
				throw new AssertionError(this.main.getSimpleName() + " did not end within " + timeoutSeconds
						+ " s; it printed:\n" + output());
			}
			this.reader.join(5_000);
			return new Result(this.process.exitValue(), output());
		}

		/** Kills the child (SIGKILL) by its pid, if it still runs, and waits for it to be gone. */
		public void kill() throws InterruptedException {
			if (this.process.isAlive()) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
			this.reader.join(5_000);
		}
	}
}
