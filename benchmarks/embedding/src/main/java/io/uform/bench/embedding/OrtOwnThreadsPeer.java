package io.uform.bench.embedding;

import java.io.IOException;
import java.io.InputStream;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * ONNX Runtime's own threading: one session with an intra-op pool of one thread per core, a batch as
 * one call padded to its longest text (the attention mask keeps padding out of the mean), vectors
 * mean-pooled and normalised in plain Java. One text alone is a call of one, unpadded.
 */
final class OrtOwnThreadsPeer implements Peer {

	private final OrtEnvironment environment = OrtEnvironment.getEnvironment();

	private final OrtSession session;

	private final HuggingFaceTokenizer tokenizer;

	OrtOwnThreadsPeer(int intraOpThreads) throws OrtException, IOException {
		try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
			options.setIntraOpNumThreads(intraOpThreads);
			options.setInterOpNumThreads(1);
			options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
			this.session = this.environment.createSession(ModelFiles.read(ModelFiles.MODEL), options);
		}
		try (InputStream json = ModelFiles.open(ModelFiles.TOKENIZER)) {
			this.tokenizer = HuggingFaceTokenizer.newInstance(json, Map.of("padding", "false", "truncation", "false"));
		}
	}

	@Override
	public String name() {
		return "ort-own-threads";
	}

	@Override
	public float[][] embedAll(List<String> texts) {
		long[][] batch = new long[texts.size()][];
		int longest = 0;
		for (int t = 0; t < batch.length; t++) {
			batch[t] = this.tokenizer.encode(texts.get(t)).getIds();
			longest = Math.max(longest, batch[t].length);
		}
		long[] ids = new long[batch.length * longest];
		long[] mask = new long[batch.length * longest];
		for (int t = 0; t < batch.length; t++) {
			System.arraycopy(batch[t], 0, ids, t * longest, batch[t].length);
			Arrays.fill(mask, t * longest, t * longest + batch[t].length, 1);
		}
		long[] shape = { batch.length, longest };
		try (OnnxTensor inputIds = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ids), shape);
				OnnxTensor attention = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(mask), shape);
				OnnxTensor types = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(new long[ids.length]), shape);
				OrtSession.Result result = this.session
					.run(Map.of("input_ids", inputIds, "attention_mask", attention, "token_type_ids", types))) {
			float[][][] hidden = (float[][][]) result.get(0).getValue();
			float[][] vectors = new float[batch.length][];
			for (int t = 0; t < batch.length; t++) {
				vectors[t] = Vectors.meanUnit(hidden[t], batch[t].length);
			}
			return vectors;
		}
		catch (OrtException ex) {
			throw new IllegalStateException("ONNX Runtime failed on a batch of " + batch.length, ex);
		}
	}

	@Override
	public float[] embed(String text) {
		return embedAll(List.of(text))[0];
	}

	@Override
	public void close() throws Exception {
		this.tokenizer.close();
		this.session.close();
	}
}
