package io.uform.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/uform-info}, the one-word launcher the docs name, runs the command from a jar and
 * says plainly what is missing when it cannot. The jar here is a stand-in for the shaded cli jar
 * (which the build makes only after the tests): a manifest with the same {@code Main-Class} whose
 * {@code Class-Path} points at this test's classes and JNA.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UformInfoLauncherTest {

	private static final Path SCRIPT = Path.of("..", "scripts", "uform-info").toAbsolutePath().normalize();

	@TempDir
	Path dir;

	private record Result(int status, String out, String err) {
	}

	private Result launch(Path script, Map<String, String> env, String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("bash", script.toString()));
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().remove("UFORM_CLI_JAR");
		builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
		builder.environment().putAll(env);
		Path out = this.dir.resolve("out.txt");
		Path err = this.dir.resolve("err.txt");
		Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
		assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("uform-info finished").isTrue();
		return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
	}

	/** A runnable jar of UformInfo over this JVM's class path (target/classes and JNA among it). */
	private Path standInJar(Path jar) throws IOException {
		Manifest manifest = new Manifest();
		Attributes main = manifest.getMainAttributes();
		main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
		main.put(Attributes.Name.MAIN_CLASS, UformInfo.class.getName());
		List<String> urls = new ArrayList<>();
		for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
			urls.add(Path.of(entry).toAbsolutePath().toUri().toString());
		}
		main.put(Attributes.Name.CLASS_PATH, String.join(" ", urls));
		Files.createDirectories(jar.getParent());
		try (OutputStream file = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(file, manifest)) {
			// The manifest is the whole jar.
		}
		return jar;
	}

	@Test
	void runsTheReportFromTheJarItIsGiven() throws Exception {
		Path jar = standInJar(this.dir.resolve("uform-java-cli.jar"));

		Result report = launch(SCRIPT, Map.of("UFORM_CLI_JAR", jar.toString()));
		assertThat(report.status()).as(report.err()).isZero();
		assertThat(report.out()).contains("GPUs: ", "CPU class: ", "NUMA domains: ", "Capabilities", "Problems: ");

		Result help = launch(SCRIPT, Map.of("UFORM_CLI_JAR", jar.toString()), "--help");
		assertThat(help.status()).isZero();
		assertThat(help.out()).startsWith("Usage: uform-info [--csv | --help]");
	}

	@Test
	void passesTheCommandsOwnExitStatusThrough() throws Exception {
		Path jar = standInJar(this.dir.resolve("uform-java-cli.jar"));

		Result bogus = launch(SCRIPT, Map.of("UFORM_CLI_JAR", jar.toString()), "--bogus");
		assertThat(bogus.status()).isEqualTo(2);
		assertThat(bogus.err()).contains("Unknown option: --bogus");
	}

	@Test
	void linkedOntoThePathItFindsTheJarOfItsOwnCheckout() throws Exception {
		Path checkout = this.dir.resolve("checkout");
		Path script = Files.createDirectories(checkout.resolve("scripts")).resolve("uform-info");
		Files.copy(SCRIPT, script);
		standInJar(checkout.resolve("uform-java/target/uform-java-9.9.9-cli.jar"));
		Path link = Files.createDirectories(this.dir.resolve("bin")).resolve("uform-info");
		Files.createSymbolicLink(link, script);

		Result report = launch(link, Map.of(), "--help");
		assertThat(report.status()).as(report.err()).isZero();
		assertThat(report.out()).startsWith("Usage: uform-info");
	}

	@Test
	void withoutAJarItSaysHowToBuildOne() throws Exception {
		Path checkout = this.dir.resolve("checkout");
		Path script = Files.createDirectories(checkout.resolve("scripts")).resolve("uform-info");
		Files.copy(SCRIPT, script);

		Result missing = launch(script, Map.of());
		assertThat(missing.status()).isEqualTo(2);
		assertThat(missing.err()).contains("no cli jar in " + checkout.toRealPath() + "/uform-java/target",
				"./mvnw -q -B -pl uform-java -DskipTests package", "UFORM_CLI_JAR");
		assertThat(missing.out()).isEmpty();

		Result wrong = launch(SCRIPT, Map.of("UFORM_CLI_JAR", this.dir.resolve("nothing.jar").toString()));
		assertThat(wrong.status()).isEqualTo(2);
		assertThat(wrong.err()).contains("UFORM_CLI_JAR names '" + this.dir.resolve("nothing.jar") + "', which is not a file");
	}
}
