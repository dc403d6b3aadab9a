package io.uform.sample.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

import io.uform.sample.embedding.MiniLm;

/**
 * The benchmark's reference: the sample's model on ONNX Runtime's own threading (an intra-op pool of
 * one thread per core), the way a library that owns its threads runs it: one padded call per batch,
 * or one call per text. Mean pooling and unit length, as the model card prescribes.
 */
final class OrtOwnThreads implements AutoCloseable {

	private final OrtEnvironment environment = OrtEnvironment.getEnvironment();

	private final OrtSession session;

	private final HuggingFaceTokenizer tokenizer;

	OrtOwnThreads(int intraOpThreads) {
		try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
				InputStream model = MiniLm.class.getResourceAsStream(MiniLm.MODEL);
				InputStream json = MiniLm.class.getResourceAsStream(MiniLm.TOKENIZER)) {
			options.setIntraOpNumThreads(intraOpThreads);
			this.session = this.environment.createSession(model.readAllBytes(), options);
			this.tokenizer = HuggingFaceTokenizer.newInstance(json, Map.of("truncation", "false", "padding", "false"));
		}
		catch (OrtException ex) {
			throw new IllegalStateException(ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	long[] tokenize(String text) {
		return this.tokenizer.encode(text).getIds();
	}

	/** One padded session call for the batch. */
	float[][] padded(List<String> batch) {
		long[][] texts = new long[batch.size()][];
		int longest = 0;
		for (int t = 0; t < texts.length; t++) {
			texts[t] = tokenize(batch.get(t));
			longest = Math.max(longest, texts[t].length);
		}
		long[] ids = new long[texts.length * longest];
		long[] mask = new long[texts.length * longest];
		for (int t = 0; t < texts.length; t++) {
			System.arraycopy(texts[t], 0, ids, t * longest, texts[t].length);
			Arrays.fill(mask, t * longest, t * longest + texts[t].length, 1);
		}
		float[][][] hidden = run(ids, mask, new long[] { texts.length, longest });
		float[][] vectors = new float[texts.length][];
		for (int t = 0; t < texts.length; t++) {
			vectors[t] = meanUnit(hidden[t], texts[t].length);
		}
		return vectors;
	}

	/** One session call per text, no padding. */
	float[][] perText(List<String> batch) {
		float[][] vectors = new float[batch.size()][];
		for (int t = 0; t < vectors.length; t++) {
			long[] ids = tokenize(batch.get(t));
			long[] ones = new long[ids.length];
			Arrays.fill(ones, 1);
			vectors[t] = meanUnit(run(ids, ones, new long[] { 1, ids.length })[0], ids.length);
		}
		return vectors;
	}

	private float[][][] run(long[] ids, long[] mask, long[] shape) {
		try (OnnxTensor inputIds = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ids), shape);
				OnnxTensor attention = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(mask), shape);
				OnnxTensor types = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(new long[ids.length]), shape);
				OrtSession.Result result = this.session
					.run(Map.of("input_ids", inputIds, "attention_mask", attention, "token_type_ids", types))) {
			return (float[][][]) result.get(0).getValue();
		}
		catch (OrtException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static float[] meanUnit(float[][] hidden, int tokens) {
		float[] sum = new float[hidden[0].length];
		for (int t = 0; t < tokens; t++) {
			for (int d = 0; d < sum.length; d++) {
				sum[d] += hidden[t][d];
			}
		}
		double squares = 0;
		for (int d = 0; d < sum.length; d++) {
			sum[d] /= tokens;
			squares += (double) sum[d] * sum[d];
		}
		float scale = (float) (1 / Math.sqrt(squares));
		for (int d = 0; d < sum.length; d++) {
			sum[d] *= scale;
		}
		return sum;
	}

	@Override
	public void close() throws OrtException {
		this.tokenizer.close();
		this.session.close();
	}
}
