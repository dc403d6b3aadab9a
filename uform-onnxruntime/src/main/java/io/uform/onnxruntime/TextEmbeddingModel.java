package io.uform.onnxruntime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import ai.onnxruntime.OrtException;
import io.uform.DeviceLane;
import io.uform.Executor;
import io.uform.UformException;

/**
 * A text embedding model on a uform executor: the model owns its weights (one ONNX Runtime session,
 * or one per device of a VRAM executor) and its tokenizer, and never a thread; the executor's threads
 * do all the work, so several models share one executor and no second pool competes for the cores.
 *
 * <h2>A request</h2>
 * {@link #embed(List)} checks the texts on the caller's thread (none, too many, an empty one, one too
 * long under {@link Truncation#REFUSE}: refused with {@link EmbeddingRefusedException} before it
 * takes a deferred slot), then submits one deferred call. That call takes the requests waiting, and
 * those that arrive while it runs, up to {@code maxBatchTokens}; every thread of a RAM executor (every
 * device of a VRAM executor) takes their texts one at a time, each text its own session call, so a
 * text's vector is the same bit for bit whatever it was batched with, and a caller has its vectors as
 * soon as its last text is embedded.
 *
 * <h2>Lifecycle</h2>
 * {@link #close()} refuses new requests, waits for those in flight, then releases the natives. Close
 * a model before freeing its executor; a request on a freed executor fails with the executor's own
 * {@code FREED} error. Never close a model from inside a task or deferred call of its executor (the
 * requests it waits for may need that thread).
 */
public final class TextEmbeddingModel implements AutoCloseable {

	private final Executor executor;

	private final TextEmbeddingOptions options;

	private final TextTokenizer tokenizer;

	/** One for a RAM executor; one per device, in lane order, for a VRAM executor. */
	private final List<ModelSession> sessions;

	private final ModelGate gate;

	private final DeferredBatches batches;

	private final int dimensions;

	private TextEmbeddingModel(Executor executor, TextEmbeddingOptions options, TextTokenizer tokenizer,
			List<ModelSession> sessions, ModelGate gate, int dimensions) {
		this.executor = executor;
		this.options = options;
		this.tokenizer = tokenizer;
		this.sessions = sessions;
		this.gate = gate;
		this.dimensions = dimensions;
		this.batches = new DeferredBatches(executor, this::onEveryLane, options);
	}

	/**
	 * Loads a model with the default options (mean pooling, unit vectors, 512 tokens, refusing longer
	 * texts).
	 * @param executor the executor whose threads (or devices) will run it
	 * @param model the ONNX file
	 * @param tokenizer its {@code tokenizer.json}
	 * @return the model; close it before the executor is freed
	 */
	public static TextEmbeddingModel load(Executor executor, ModelSource model, ModelSource tokenizer) {
		return load(executor, model, tokenizer, TextEmbeddingOptions.defaults());
	}

	/**
	 * Loads a model: reads the ONNX file once and opens its session (one per device on a VRAM
	 * executor, with ONNX Runtime's CUDA execution provider on the executor's device and stream).
	 * @param executor the executor whose threads (or devices) will run it
	 * @param model the ONNX file
	 * @param tokenizer its {@code tokenizer.json}
	 * @param options pooling, normalisation, length and batching
	 * @return the model; close it before the executor is freed
	 * @throws IllegalArgumentException naming what the file lacks (an input, the output asked for)
	 * @throws UformException {@code UNSUPPORTED} on a VRAM executor without the CUDA provider, saying
	 *         which jar to swap in; {@code FREED} on a freed executor
	 */
	public static TextEmbeddingModel load(Executor executor, ModelSource model, ModelSource tokenizer,
			TextEmbeddingOptions options) {
		return load(executor, model, tokenizer, options, CudaProvider.ORT);
	}

	static TextEmbeddingModel load(Executor executor, ModelSource model, ModelSource tokenizer,
			TextEmbeddingOptions options, CudaProvider cuda) {
		Objects.requireNonNull(executor, "executor");
		Objects.requireNonNull(model, "model");
		Objects.requireNonNull(tokenizer, "tokenizer");
		Objects.requireNonNull(options, "options");
		if (executor.statistics().state() == Executor.State.FREED) {
			throw new UformException(UformException.Status.FREED, "executor '" + executor.name() + "' is freed: load model '"
					+ options.name() + "' on a running executor");
		}
		ModelGate gate = new ModelGate(options.name());
		byte[] bytes = (model.path() != null) ? null : model.bytes();
		List<ModelSession> sessions = new ArrayList<>();
		TextTokenizer words = null;
		boolean loaded = false;
		try {
			if (executor.kind() == Executor.Kind.VRAM) {
				for (DeviceLane lane : executor.lanes()) {
					sessions.add(ModelSession.open(model, bytes, lane, cuda, options, gate));
				}
			}
			else {
				sessions.add(ModelSession.open(model, bytes, null, cuda, options, gate));
			}
			words = TextTokenizer.load(tokenizer, options);
			TextEmbeddingModel made = new TextEmbeddingModel(executor, options, words, List.copyOf(sessions), gate,
					sessions.get(0).declaredDimensions());
			loaded = true;
			return made;
		}
		catch (OrtException ex) {
			throw new IllegalArgumentException("ONNX Runtime could not read model '" + options.name() + "': "
					+ ex.getMessage(), ex);
		}
		finally {
			if (!loaded) {
				for (ModelSession session : sessions) {
					session.close();
				}
				if (words != null) {
					words.close();
				}
			}
		}
	}

	/**
	 * Embeds one text.
	 * @param text a text with words
	 * @return its vector
	 * @see #embed(List)
	 */
	public float[] embed(String text) {
		return embed(Collections.singletonList(text))[0];
	}

	/**
	 * Embeds texts on the executor, batched with other callers' waiting texts.
	 * @param texts from 1 to {@code maxTexts} texts, none empty
	 * @return a vector per text, in order
	 * @throws EmbeddingRefusedException as {@link #embedDetailed(List)}
	 */
	public float[][] embed(List<String> texts) {
		return embedDetailed(texts).vectors();
	}

	/**
	 * Embeds texts as {@link #embed(List)} does, and tells each text's tokens and the batch that
	 * served them (what a service reports as usage).
	 * @param texts from 1 to {@code maxTexts} texts, none empty
	 * @return the vectors, tokens and batch
	 * @throws EmbeddingRefusedException on the caller's thread, before anything is queued, naming the
	 *         first text that is missing, empty or too long, or the count when there are too many
	 * @throws IllegalStateException once the model is closed
	 * @throws UformException the executor's own: {@code TIMEOUT} when it stayed saturated
	 *         past {@code slotWait}, {@code FREED} once it is freed, {@code INTERRUPTED}
	 */
	public Embeddings embedDetailed(List<String> texts) {
		return embedDetailed(texts, this.options.truncation());
	}

	/**
	 * Embeds texts as {@link #embedDetailed(List)} does, with this request's own rule for texts too
	 * long (as TEI's {@code truncate} request field): a service may refuse its clients' long queries
	 * and still cut the long documents it indexes itself, with one model.
	 * @param texts from 1 to {@code maxTexts} texts, none empty
	 * @param truncation what happens to a text longer than the model's maximum tokens
	 * @return the vectors, tokens, texts cut and batch
	 * @throws EmbeddingRefusedException as {@link #embedDetailed(List)}
	 */
	public Embeddings embedDetailed(List<String> texts, Truncation truncation) {
		Objects.requireNonNull(truncation, "truncation");
		try {
			return embedChecked(texts, truncation);
		}
		catch (EmbeddingRefusedException ex) {
			throw heard(ex);
		}
	}

	/** Tells the listener of a refusal; a listener that throws does not change what the caller gets. */
	private EmbeddingRefusedException heard(EmbeddingRefusedException refusal) {
		try {
			this.options.listener().refused(this.options.name(), refusal);
		}
		catch (RuntimeException ex) {
			refusal.addSuppressed(ex);
		}
		return refusal;
	}

	private Embeddings embedChecked(List<String> texts, Truncation truncation) {
		if (texts == null || texts.isEmpty()) {
			throw new EmbeddingRefusedException("no texts to embed: give 1 to " + this.options.maxTexts() + " texts", -1,
					-1);
		}
		if (texts.size() > this.options.maxTexts()) {
			throw new EmbeddingRefusedException(texts.size() + " texts in one request; model '" + this.options.name()
					+ "' takes at most " + this.options.maxTexts() + " (maxTexts): split them over several requests", -1,
					-1);
		}
		for (int i = 0; i < texts.size(); i++) {
			TextTokenizer.check(texts.get(i), i, name(texts, i));
		}
		this.gate.enter();
		try {
			long[][] ids = tokenize(texts);
			int[] tokens = new int[ids.length];
			long total = 0;
			int truncated = 0;
			// Refusals first, in order, so that the first text too long is the one named.
			for (int i = 0; i < ids.length; i++) {
				long[] fitting = this.tokenizer.fit(ids[i], i, name(texts, i), truncation);
				truncated += (fitting != ids[i]) ? 1 : 0;
				ids[i] = fitting;
				tokens[i] = fitting.length;
				total += fitting.length;
			}
			DeferredBatches.Served served = this.batches.embed(Arrays.asList(ids), total);
			return new Embeddings(served.vectors(), tokens, truncated, served.batch());
		}
		finally {
			this.gate.exit();
		}
	}

	/**
	 * Tokenizes on the caller's thread, or for several texts across the executor's threads (a fork,
	 * not a deferred slot), so that a text too long is refused before the request is queued.
	 */
	private long[][] tokenize(List<String> texts) {
		long[][] ids = new long[texts.size()][];
		if (texts.size() == 1) {
			ids[0] = this.tokenizer.ids(texts.get(0));
			return ids;
		}
		this.executor.forSlices(texts.size(), (first, count, thread, colocation) -> {
			for (int i = first; i < first + count; i++) {
				ids[i] = this.tokenizer.ids(texts.get(i));
			}
		});
		return ids;
	}

	/**
	 * Runs in a deferred call: {@code work} once on every thread of a RAM executor, all calling the one
	 * session, or once per device of a VRAM executor, each with its device's session. The work takes
	 * texts one at a time (each its own session call), so a thread that drew short texts takes more.
	 */
	private void onEveryLane(Consumer<ModelSession> work) {
		if (this.executor.kind() == Executor.Kind.VRAM) {
			this.executor.forDevices((lane) -> work.accept(this.sessions.get(lane.index())));
			return;
		}
		ModelSession session = this.sessions.get(0);
		this.executor.forThreads((thread, colocation) -> work.accept(session));
	}

	private static String name(List<String> texts, int i) {
		return (texts.size() == 1) ? "the text" : "texts[" + i + "]";
	}

	/**
	 * The model's name.
	 * @return from its options
	 */
	public String name() {
		return this.options.name();
	}

	/**
	 * Floats per vector.
	 * @return as the ONNX file declares it; {@code -1} where the file leaves it symbolic
	 */
	public int dimensions() {
		return this.dimensions;
	}

	/**
	 * How it runs.
	 * @return the options it was loaded with
	 */
	public TextEmbeddingOptions options() {
		return this.options;
	}

	/**
	 * Where it runs.
	 * @return the executor it was loaded on
	 */
	public Executor executor() {
		return this.executor;
	}

	/** Tests only: the sessions, to observe the threads that call them. */
	List<ModelSession> sessions() {
		return this.sessions;
	}

	/**
	 * Refuses new requests, waits for those in flight, then closes the sessions and the tokenizer. A
	 * second close does nothing. The executor stays the caller's to free.
	 */
	@Override
	public void close() {
		this.gate.close(() -> {
			RuntimeException failure = null;
			for (ModelSession session : this.sessions) {
				try {
					session.close();
				}
				catch (RuntimeException ex) {
					failure = ex;
				}
			}
			this.tokenizer.close();
			if (failure != null) {
				throw failure;
			}
		});
	}

	@Override
	public String toString() {
		return "TextEmbeddingModel[" + this.options.name() + " on " + this.executor.name() + "]";
	}
}
