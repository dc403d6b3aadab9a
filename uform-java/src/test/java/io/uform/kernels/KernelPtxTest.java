package io.uform.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guards the committed PTX of the {@code uform_dot_f32} kernel: that it loads as the classpath
 * resource the runtime reads, declares PTX ISA 8.0 for sm_75 with 64-bit addresses (so CUDA 12.0+
 * drivers load it, not only CUDA 13 ones), has the entry and the six parameters the launch file
 * describes, and, where {@code nvcc} is on the PATH, that it is exactly what
 * {@code scripts/gen-ptx.sh} makes of the committed {@code .cu} source (so nobody edits one and
 * forgets the other).
 */
class KernelPtxTest {

	private static final String PTX = "/io/uform/kernels/uform_dot_f32.ptx";

	private static final String LAUNCH = "/io/uform/kernels/uform_dot_f32.launch";

	private static final String SCRIPT = "scripts/gen-ptx.sh";

	private static final Pattern ENTRY = Pattern.compile("^\\.visible \\.entry (\\w+)\\(\\n(.*?)\\n\\)",
			Pattern.MULTILINE | Pattern.DOTALL);

	private static byte[] resource(String name) throws IOException {
		try (InputStream in = KernelPtxTest.class.getResourceAsStream(name)) {
			assertThat(in).as("classpath resource %s", name).isNotNull();
			return in.readAllBytes();
		}
	}

	/** PTX is ASCII; ISO-8859-1 maps every byte to one char, so comparing strings compares bytes. */
	private static String text(byte[] bytes) {
		return new String(bytes, StandardCharsets.ISO_8859_1);
	}

	private static List<String> lines(String text) {
		return text.lines().map(String::strip).toList();
	}

	private static Properties launch() throws IOException {
		Properties properties = new Properties();
		properties.load(new StringReader(text(resource(LAUNCH))));
		return properties;
	}

	private static Path repositoryRoot() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve(SCRIPT))) {
				return dir;
			}
		}
		throw new AssertionError("no " + SCRIPT + " above " + Path.of("").toAbsolutePath());
	}

	private static boolean nvccOnPath() {
		String path = System.getenv("PATH");
		return path != null && Arrays.stream(path.split(File.pathSeparator))
			.filter(dir -> !dir.isEmpty())
			.anyMatch(dir -> Files.isExecutable(Path.of(dir, "nvcc")));
	}

	@Test
	void committedPtxDeclaresIsa80ForSm75With64BitAddresses() throws IOException {
		List<String> lines = lines(text(resource(PTX)));

		assertThat(lines).containsSubsequence(".version 8.0", ".target sm_75", ".address_size 64");
		assertThat(lines).filteredOn(line -> line.startsWith(".version ")).containsExactly(".version 8.0");
		assertThat(lines).filteredOn(line -> line.startsWith(".target ")).containsExactly(".target sm_75");
	}

	@Test
	void committedPtxHasOneEntryWithThreePointersThenThreeUnsignedInts() throws IOException {
		String ptx = text(resource(PTX));

		assertThat(ptx).containsOnlyOnce(".entry ").contains(".visible .entry uform_dot_f32(");
		Matcher entry = ENTRY.matcher(ptx);
		assertThat(entry.find()).as("entry declaration in %s", PTX).isTrue();
		assertThat(entry.group(1)).isEqualTo("uform_dot_f32");
		List<String> params = lines(entry.group(2)).stream().map(p -> p.replaceAll(",$", "")).toList();
		assertThat(params).containsExactly(".param .u64 uform_dot_f32_param_0", ".param .u64 uform_dot_f32_param_1",
				".param .u64 uform_dot_f32_param_2", ".param .u32 uform_dot_f32_param_3",
				".param .u32 uform_dot_f32_param_4", ".param .u32 uform_dot_f32_param_5");
	}

	@Test
	void launchFileNamesThePtxEntryAndAWholeNumberOfWarps() throws IOException {
		Properties launch = launch();

		assertThat(launch.getProperty("entry")).isEqualTo("uform_dot_f32");
		assertThat(text(resource(PTX))).contains(".visible .entry " + launch.getProperty("entry") + "(");
		int blockThreads = Integer.parseInt(launch.getProperty("blockThreads"));
		int rowsPerBlock = Integer.parseInt(launch.getProperty("rowsPerBlock"));
		assertThat(blockThreads).isEqualTo(256).isEqualTo(32 * rowsPerBlock);
		assertThat(launch.getProperty("sharedBytes")).isEqualTo("0");
		// No dynamic shared memory is declared, so none may be asked for at launch.
		assertThat(text(resource(PTX))).doesNotContain(".shared");
	}

	@Test
	void classpathPtxIsTheCommittedFileUnfiltered() throws IOException {
		Path committed = repositoryRoot().resolve("uform-java/src/main/resources" + PTX);

		assertThat(text(resource(PTX))).isEqualTo(text(Files.readAllBytes(committed)));
	}

	@Test
	void freshBuildFromTheSourceMatchesTheCommittedPtx(@TempDir Path temp) throws IOException, InterruptedException {
		Assumptions.assumeTrue(nvccOnPath(),
				"nvcc is not on the PATH; the committed PTX could not be compared with a fresh build");
		Path root = repositoryRoot();
		Path fresh = temp.resolve("fresh.ptx");
		Path log = temp.resolve("gen-ptx.log");

		Process process = new ProcessBuilder("bash", root.resolve(SCRIPT).toString(), fresh.toString())
			.directory(root.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		if (!process.waitFor(120, TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			fail("%s ran past 120 s; its output:%n%s", SCRIPT, Files.readString(log, StandardCharsets.ISO_8859_1));
		}
		if (process.exitValue() != 0) {
			fail("%s exited with %d; its output:%n%s", SCRIPT, process.exitValue(),
					Files.readString(log, StandardCharsets.ISO_8859_1));
		}

		Path committed = root.resolve("uform-java/src/main/resources" + PTX);
		assertThat(text(Files.readAllBytes(fresh)))
			.as("%s rebuilt from uform-java/src/main/cuda/uform_dot_f32.cu; run %s and commit the PTX", committed,
					SCRIPT)
			.isEqualTo(text(Files.readAllBytes(committed)));
	}
}
