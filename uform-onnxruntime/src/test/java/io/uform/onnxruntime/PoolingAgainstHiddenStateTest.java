package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Pooling and normalisation checked against vectors computed here independently: the test opens its
 * own ONNX Runtime session at ONNX Runtime's defaults, tokenizes with its own tokenizer, and pools
 * the session's {@code last_hidden_state} with plain double arithmetic.
 */
@Timeout(120)
class PoolingAgainstHiddenStateTest {

	private static Executor executor;

	private static OrtEnvironment environment;

	private static OrtSession reference;

	private static HuggingFaceTokenizer tokenizer;

	@BeforeAll
	static void open() throws Exception {
		executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
		environment = OrtEnvironment.getEnvironment();
		reference = environment.createSession(MiniLm.MODEL.bytes(), new OrtSession.SessionOptions());
		try (var json = MiniLm.TOKENIZER.open()) {
			tokenizer = HuggingFaceTokenizer.newInstance(json, Map.of());
		}
	}

	@AfterAll
	static void close() throws Exception {
		tokenizer.close();
		reference.close();
		executor.free();
	}

	@Test
	void meanPoolingIsTheMeanOfTheHiddenStateScaledToUnitLength() throws Exception {
		try (TextEmbeddingModel model = load(MiniLm.OPTIONS)) {
			for (String text : MiniLm.TEXTS) {
				assertClose(model.embed(text), unit(mean(hidden(text))), text);
			}
		}
	}

	@Test
	void clsPoolingIsTheFirstTokensRowScaledToUnitLength() throws Exception {
		try (TextEmbeddingModel model = load(MiniLm.OPTIONS.withPooling(Pooling.CLS))) {
			for (String text : MiniLm.TEXTS) {
				assertClose(model.embed(text), unit(toDoubles(hidden(text)[0])), text);
			}
		}
	}

	@Test
	void withoutNormalisationTheMeanKeepsItsLength() throws Exception {
		try (TextEmbeddingModel model = load(MiniLm.OPTIONS.withNormalize(false))) {
			for (String text : MiniLm.TEXTS) {
				double[] mean = mean(hidden(text));
				assertClose(model.embed(text), mean, text);
				assertThat(norm(mean)).as("the raw mean is not already unit length").isNotCloseTo(1.0, within(0.05));
			}
		}
	}

	private static TextEmbeddingModel load(TextEmbeddingOptions options) {
		return TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, options);
	}

	/** The reference session's last_hidden_state for one text: tokens x dimensions. */
	private static float[][] hidden(String text) throws Exception {
		long[] ids = tokenizer.encode(text).getIds();
		long[] shape = { 1, ids.length };
		long[] ones = new long[ids.length];
		Arrays.fill(ones, 1);
		try (OnnxTensor inputIds = OnnxTensor.createTensor(environment, LongBuffer.wrap(ids), shape);
				OnnxTensor mask = OnnxTensor.createTensor(environment, LongBuffer.wrap(ones), shape);
				OnnxTensor types = OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[ids.length]), shape);
				OrtSession.Result result = reference
					.run(Map.of("input_ids", inputIds, "attention_mask", mask, "token_type_ids", types))) {
			return ((float[][][]) result.get("last_hidden_state").orElseThrow().getValue())[0];
		}
	}

	private static double[] mean(float[][] rows) {
		double[] mean = new double[rows[0].length];
		for (float[] row : rows) {
			for (int d = 0; d < row.length; d++) {
				mean[d] += row[d];
			}
		}
		for (int d = 0; d < mean.length; d++) {
			mean[d] /= rows.length;
		}
		return mean;
	}

	private static double[] toDoubles(float[] row) {
		double[] out = new double[row.length];
		for (int d = 0; d < row.length; d++) {
			out[d] = row[d];
		}
		return out;
	}

	private static double norm(double[] vector) {
		double squares = 0;
		for (double x : vector) {
			squares += x * x;
		}
		return Math.sqrt(squares);
	}

	private static double[] unit(double[] vector) {
		double length = norm(vector);
		double[] out = new double[vector.length];
		for (int d = 0; d < vector.length; d++) {
			out[d] = vector[d] / length;
		}
		return out;
	}

	private static void assertClose(float[] actual, double[] expected, String text) {
		assertThat(actual).as(text).hasSize(expected.length);
		for (int d = 0; d < expected.length; d++) {
			assertThat((double) actual[d]).as("%s, dimension %d", text, d).isCloseTo(expected[d], within(1e-5));
		}
	}
}
