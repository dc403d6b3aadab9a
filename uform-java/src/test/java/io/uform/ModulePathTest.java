package io.uform;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import com.sun.jna.Native;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * uform's one face on the module path: the descriptor exports {@code io.uform} and
 * {@code io.uform.cli} and nothing else to users, the jar runs as a named module beside JNA's
 * automatic module (the CLI, and a RAM executor whose workers JNA pins), and a consumer module cannot
 * compile against the runtime. The other tests run on the class path, as Spring Boot applications do.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ModulePathTest {

	/** The module's classes (target/classes), as the build wrote them. */
	private static final Path CLASSES = locationOf(Executor.class);

	/** JNA's jar, an automatic module named {@code com.sun.jna}. */
	private static final Path JNA = locationOf(Native.class);

	@TempDir
	Path dir;

	@Test
	void theDescriptorExportsTheApiAndTheCliAndNoPackageToOneModuleAlone() {
		ModuleDescriptor descriptor = ModuleFinder.of(CLASSES).find("io.uform").orElseThrow().descriptor();
		Set<String> toEveryone = new TreeSet<>();
		Map<String, Set<String>> qualified = new TreeMap<>();
		for (ModuleDescriptor.Exports exports : descriptor.exports()) {
			if (exports.isQualified()) {
				qualified.put(exports.source(), exports.targets());
			}
			else {
				toEveryone.add(exports.source());
			}
		}
		assertThat(descriptor.isAutomatic()).isFalse();
		assertThat(toEveryone).containsExactly("io.uform", "io.uform.cli");
		// The starter reads io.uform as any application does: no runtime package is exported to it alone.
		assertThat(qualified).as("qualified exports").isEmpty();
		assertThat(descriptor.packages()).contains("io.uform.host", "io.uform.gpu", "io.uform.mesh");
		assertThat(descriptor.opens()).isEmpty();
	}

	@Test
	void theCliRunsAsANamedModuleBesideJna() throws Exception {
		Run run = java(List.of("--module-path", modulePath(CLASSES, JNA), "-m", "io.uform/io.uform.cli.UformInfo"));
		assertThat(run.exitCode()).as(run.output()).isZero();
		assertThat(run.output()).contains("CPU class: ").doesNotContain("WARNING");
	}

	@Test
	void aConsumerModuleForksOnARamExecutorWhoseWorkersJnaPins() throws Exception {
		assumeTrue(System.getProperty("os.name", "").startsWith("Linux"),
				() -> "pinning uses Linux's sched_setaffinity; this OS is " + System.getProperty("os.name"));
		Path out = this.dir.resolve("consumer");
		String errors = compile(out, """
				package consumer;

				import java.util.concurrent.atomic.AtomicLong;

				import io.uform.Executor;
				import io.uform.ExecutorForRamConfig;

				public final class Fork {
					public static void main(String[] args) {
						AtomicLong sum = new AtomicLong();
						try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
							executor.forN(1000, i -> sum.addAndGet(i));
							System.out.println("sum " + sum + "; " + executor.statistics().pinning());
						}
					}
				}
				""");
		assertThat(errors).isEmpty();
		Run run = java(List.of("--module-path", modulePath(CLASSES, JNA, out), "-m", "consumer/consumer.Fork"));
		assertThat(run.exitCode()).as(run.output()).isZero();
		// "pinned" needs libc's sched_setaffinity through JNA: a JNA that failed to load says "not pinned".
		assertThat(run.output()).contains("sum 499500; pinned").doesNotContain("WARNING");
	}

	@Test
	void aConsumerModuleCannotCompileAgainstTheRuntime() throws Exception {
		String errors = compile(this.dir.resolve("intruder"), """
				package consumer;

				import io.uform.host.HostPool;

				public final class Intruder {
					HostPool pool;
				}
				""");
		assertThat(errors).contains("package io.uform.host is not visible")
			.contains("does not export it");
	}

	@Test
	void theStarterModuleReadsWhatItNeedsThroughTheApiAndTheRuntimeNoMoreThanAnyModule() throws Exception {
		String errors = compile(this.dir.resolve("starter"), "io.uform.spring.autoconfigure", """
				package io.uform.spring.autoconfigure;

				import io.uform.SimulatedGpus;
				import io.uform.Uform;

				public final class Reads {
					static String all() {
						return SimulatedGpus.COUNT_PROPERTY + Uform.bestCpuClass()
								+ Uform.nearestNames("hoper", java.util.List.of("nvidia-hopper"));
					}
				}
				""");
		assertThat(errors).isEmpty();
		String intruding = compile(this.dir.resolve("starter-intruding"), "io.uform.spring.autoconfigure", """
				package io.uform.spring.autoconfigure;

				import io.uform.host.NearestNames;

				public final class Intrudes {
					NearestNames names;
				}
				""");
		assertThat(intruding).contains("package io.uform.host is not visible").contains("does not export it");
	}

	/** Compiles module {@code consumer} (requires io.uform) with one class; returns javac's diagnostics. */
	private static String compile(Path out, String source) throws IOException {
		return compile(out, "consumer", source);
	}

	/** Compiles a module that requires io.uform, with one class; returns javac's diagnostics. */
	private static String compile(Path out, String module, String source) throws IOException {
		Path sources = out.resolveSibling(out.getFileName() + "-src");
		String packageName = source.replaceAll("(?s)^\\s*package ([\\w.]+);.*", "$1");
		String className = source.replaceAll("(?s).*public final class (\\w+).*", "$1");
		Path file = sources.resolve(packageName.replace('.', '/')).resolve(className + ".java");
		Files.createDirectories(file.getParent());
		Files.writeString(file, source);
		Path descriptor = sources.resolve("module-info.java");
		Files.writeString(descriptor, "module " + module + " {\n\trequires io.uform;\n}\n");
		// An empty class path: javac in this JVM would otherwise search the tests' class path, where
		// every package of uform is visible.
		Path noClassPath = Files.createDirectories(out.resolveSibling(out.getFileName() + "-cp"));
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
		int status = javac.run(null, diagnostics, diagnostics, "-d", out.toString(), "--class-path",
				noClassPath.toString(), "--module-path",
				modulePath(CLASSES, JNA), descriptor.toString(), file.toString());
		String printed = diagnostics.toString(StandardCharsets.UTF_8).strip();
		return (status == 0) ? printed : "javac exit " + status + ": " + printed;
	}

	/** Runs {@code java} with native access granted to the two modules that load or bind native code. */
	private Run java(List<String> args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("--enable-native-access=com.sun.jna,io.uform");
		command.addAll(args);
		Path output = Files.createTempFile(this.dir, "java", ".out");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
		if (!process.waitFor(60, TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			throw new AssertionError(command + " did not end within 60 s; it printed:\n" + Files.readString(output));
		}
		return new Run(process.exitValue(), Files.readString(output));
	}

	private record Run(int exitCode, String output) {
	}

	private static String modulePath(Path... entries) {
		return String.join(File.pathSeparator, Arrays.stream(entries).map(Path::toString).toList());
	}

	private static Path locationOf(Class<?> type) {
		try {
			return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}
}
