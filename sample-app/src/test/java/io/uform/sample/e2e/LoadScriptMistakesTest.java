package io.uform.sample.e2e;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the load script ({@code scripts/LoadClient.java}) says to a user who runs it the wrong way: it
 * must name the mistake and the fix in one line, not end in a stack trace whose exception has no
 * message ({@code java.net.ConnectException}) or names only the JDK's parser.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoadScriptMistakesTest {

	private static final Path SCRIPT = Path.of("scripts", "LoadClient.java");

	@Test
	void noAppAtTheUrlIsNamedWithTheFix() throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Run run = run("--url=http://127.0.0.1:" + port, "--duration=1s", "--warmup=1s", "--rounds=1");
		assertThat(run.exit).as(run.output).isEqualTo(1);
		assertThat(run.output).contains("nothing answers at http://127.0.0.1:" + port)
			.contains("--start")
			.doesNotContain("\tat ");
	}

	@Test
	void aDurationWithoutAUnitIsNamedWithTheFix() throws Exception {
		Run run = run("--duration=20");
		assertThat(run.exit).as(run.output).isEqualTo(2);
		assertThat(run.output).contains("--duration=20").contains("20s").doesNotContain("\tat ");
	}

	private static Run run(String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add(SCRIPT.toString());
		command.addAll(List.of(args));
		// Output to a file, not a pipe: a read of a pipe cannot be interrupted, so a hung script would hang
		// the build past any timeout; waitFor with a limit can.
		Path output = Files.createTempFile("load-script", ".txt");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
		try {
			if (!process.waitFor(60, TimeUnit.SECONDS)) {
				throw new AssertionError("the load script did not end within 60 s: " + Files.readString(output));
			}
			return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
		}
		finally {
			process.destroyForcibly();
			Files.deleteIfExists(output);
		}
	}

	private record Run(int exit, String output) {
	}
}
