package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/** What the ONNX file declares is read, not assumed; and what a text too long becomes. */
@Timeout(120)
class ModelInputsAndOutputsTest {

	/** Debian's python3 (python3-onnx is a Debian package; a pyenv python on the PATH lacks it). */
	private static final String PYTHON = "/usr/bin/python3";

	/** Drops the token_type_ids input and feeds the graph zeros shaped like input_ids instead. */
	private static final String WITHOUT_TOKEN_TYPES = """
			import sys
			import onnx
			from onnx import helper, TensorProto
			model = onnx.load(sys.argv[1])
			graph = model.graph
			graph.input.remove([i for i in graph.input if i.name == "token_type_ids"][0])
			shape = helper.make_node("Shape", ["input_ids"], ["uform_test_input_shape"])
			zeros = helper.make_node("ConstantOfShape", ["uform_test_input_shape"], ["token_type_ids"],
			    value=helper.make_tensor("zero", TensorProto.INT64, [1], [0]))
			graph.node.insert(0, zeros)
			graph.node.insert(0, shape)
			onnx.save(model, sys.argv[2])
			""";

	private static Executor executor;

	@BeforeAll
	static void start() {
		executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
	}

	@AfterAll
	static void free() {
		executor.free();
	}

	@Test
	void aModelWithoutTokenTypeIdsEmbedsAsTheOriginalDoes(@TempDir Path dir) throws Exception {
		Assumptions.assumeTrue(pythonOnnx(), "skipped: " + PYTHON + " cannot import onnx; install Debian's python3-onnx "
				+ "(apt-get install -y python3-onnx, as .ci/run does) to write the model copy without token_type_ids");
		Path original = dir.resolve("original.onnx");
		Files.write(original, MiniLm.MODEL.bytes());
		Path script = Files.writeString(dir.resolve("without_token_types.py"), WITHOUT_TOKEN_TYPES);
		Path copy = dir.resolve("without-token-types.onnx");
		Process python = new ProcessBuilder(PYTHON, script.toString(), original.toString(), copy.toString())
			.redirectErrorStream(true).start();
		String output = new String(python.getInputStream().readAllBytes());
		assertThat(python.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(python.exitValue()).as(output).isZero();
		try (TextEmbeddingModel withTypes = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS);
				TextEmbeddingModel without = TextEmbeddingModel.load(executor, ModelSource.of(copy), MiniLm.TOKENIZER,
						MiniLm.OPTIONS)) {
			assertThat(without.sessions().get(0).signature().tokenTypes()).isFalse();
			assertThat(withTypes.sessions().get(0).signature().tokenTypes()).isTrue();
			float[][] expected = withTypes.embed(MiniLm.TEXTS);
			float[][] actual = without.embed(MiniLm.TEXTS);
			for (int i = 0; i < expected.length; i++) {
				assertThat(actual[i]).as(MiniLm.TEXTS.get(i)).containsExactly(expected[i]);
			}
		}
	}

	@Test
	void anOutputTheFileLacksIsRefusedNamingTheOutputsItHas() {
		assertThatThrownBy(() -> TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
				MiniLm.OPTIONS.withOutput("sentence_embedding")))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("has no output 'sentence_embedding'")
			.hasMessageContaining("[last_hidden_state]")
			.hasMessageContaining("withOutput");
	}

	@Test
	void theOutputCanBeNamedExplicitly() {
		try (TextEmbeddingModel named = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
				MiniLm.OPTIONS.withOutput("last_hidden_state"))) {
			assertThat(named.embed("GPU")).hasSize(MiniLm.DIMENSIONS);
		}
	}

	@Test
	void aTextTooLongIsRefusedUnderRefuseAndCutToItsFirstTokensUnderTruncate() {
		String tooLong = "word ".repeat(300); // [CLS] + 300 + [SEP] = 302 tokens
		String fits = "word ".repeat(254); // [CLS] + 254 + [SEP] = 256: what cutting the long one leaves
		try (TextEmbeddingModel refusing = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS);
				TextEmbeddingModel truncating = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withTruncation(Truncation.TRUNCATE))) {
			assertThatThrownBy(() -> refusing.embed(java.util.List.of("fine", tooLong)))
				.isInstanceOf(EmbeddingRefusedException.class)
				.hasMessageContaining("texts[1] is 302 tokens long")
				.isInstanceOfSatisfying(EmbeddingRefusedException.class, ex -> {
					assertThat(ex.text()).isEqualTo(1);
					assertThat(ex.tokens()).isEqualTo(302);
				});
			float[] cut = truncating.embed(tooLong);
			assertThat(cut).containsExactly(truncating.embed(fits));
			assertThat(cut).containsExactly(refusing.embed(fits));
			// A request may choose for itself: the refusing model cuts when asked to.
			Embeddings asked = refusing.embedDetailed(java.util.List.of(tooLong, fits), Truncation.TRUNCATE);
			assertThat(asked.vectors()[0]).containsExactly(cut);
			assertThat(asked.tokens()).containsExactly(256, 256);
			assertThat(asked.truncated()).isEqualTo(1);
			assertThat(truncating.embedDetailed(java.util.List.of(fits)).truncated()).isZero();
		}
	}

	@Test
	void aModelCanBeLoadedFromAFileAndFromAStream(@TempDir Path dir) throws Exception {
		Path file = Files.write(dir.resolve("model.onnx"), MiniLm.MODEL.bytes());
		Path tokenizer = Files.write(dir.resolve("tokenizer.json"), MiniLm.TOKENIZER.bytes());
		try (TextEmbeddingModel fromClassPath = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
				MiniLm.OPTIONS);
				TextEmbeddingModel fromFiles = TextEmbeddingModel.load(executor, ModelSource.of(file),
						ModelSource.of(tokenizer), MiniLm.OPTIONS);
				var modelStream = Files.newInputStream(file);
				var tokenizerStream = Files.newInputStream(tokenizer);
				TextEmbeddingModel fromStreams = TextEmbeddingModel.load(executor, ModelSource.of(modelStream, "a stream"),
						ModelSource.of(tokenizerStream, "another stream"), MiniLm.OPTIONS)) {
			float[] expected = fromClassPath.embed(MiniLm.TEXTS.get(1));
			assertThat(fromFiles.embed(MiniLm.TEXTS.get(1))).containsExactly(expected);
			assertThat(fromStreams.embed(MiniLm.TEXTS.get(1))).containsExactly(expected);
		}
	}

	@Test
	void aMissingResourceIsNamed() {
		assertThatThrownBy(() -> TextEmbeddingModel.load(executor, ModelSource.classPath("no-such-model.onnx"),
				MiniLm.TOKENIZER, MiniLm.OPTIONS))
			.hasMessageContaining("no class-path resource no-such-model.onnx");
	}

	private static boolean pythonOnnx() {
		try {
			Process check = new ProcessBuilder(PYTHON, "-c", "import onnx").redirectErrorStream(true).start();
			check.getInputStream().readAllBytes();
			return check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0;
		}
		catch (Exception ex) {
			return false;
		}
	}
}
