package io.uform.sample.e2e;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
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
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		try {
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			return new Run(process.waitFor(), output);
		}
		finally {
			process.destroyForcibly();
		}
	}

	private record Run(int exit, String output) {
	}
}
