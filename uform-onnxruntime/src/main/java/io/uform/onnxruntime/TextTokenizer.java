package io.uform.onnxruntime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;

/**
 * A model's tokenizer ({@code tokenizer.json}, through DJL's HuggingFace tokenizers) and its rule for
 * texts longer than the model takes. Safe to call from many threads at once; each call tokenizes
 * one text on the calling thread (never {@code batchEncode}, whose native side would start a thread
 * pool of its own).
 */
final class TextTokenizer implements AutoCloseable {

	/** DJL's switch for its usage tracking, read from the environment, then the system properties. */
	static final String USAGE_TRACKING = "OPT_OUT_TRACKING";

	private final HuggingFaceTokenizer tokenizer;

	private final int maxTokens;

	private final String model;

	/** The id that closes every encoding ({@code [SEP]}), kept last when a text is cut. */
	private final long closing;

	private TextTokenizer(HuggingFaceTokenizer tokenizer, int maxTokens, String model) {
		this.tokenizer = tokenizer;
		this.maxTokens = maxTokens;
		this.model = model;
		long[] empty = tokenizer.encode("").getIds();
		this.closing = (empty.length > 0) ? empty[empty.length - 1] : -1;
	}

	/**
	 * Loads a {@code tokenizer.json}.
	 * @param source where it is
	 * @param options the model's name and length
	 * @return the tokenizer
	 */
	static TextTokenizer load(ModelSource source, TextEmbeddingOptions options) {
		// Truncation and padding off in the tokenizer: this class cuts, knowingly, and nothing pads.
		Map<String, String> settings = Map.of("truncation", "false", "padding", "false");
		optOutOfUsageTracking(System.getenv(USAGE_TRACKING), System.getProperties());
		try {
			HuggingFaceTokenizer tokenizer;
			if (source.path() != null) {
				tokenizer = HuggingFaceTokenizer.newInstance(source.path(), settings);
			}
			else {
				try (InputStream json = source.open()) {
					tokenizer = HuggingFaceTokenizer.newInstance(json, settings);
				}
			}
			return new TextTokenizer(tokenizer, options.maxTokens(), options.name());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not read the tokenizer, " + source + ": " + ex.getMessage(), ex);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("the tokenizer " + source + " is not a HuggingFace tokenizer.json that "
					+ "DJL can load: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Turns DJL's usage tracking off unless the application chose: without {@code OPT_OUT_TRACKING} in
	 * the environment or the system properties, DJL probes the cloud metadata address over HTTP when its
	 * native library loads, and a server loading a model should make no network call it was not asked to.
	 * DJL reads the environment first, so an application that sets either (to {@code false} too) decides.
	 * @param environment the environment's {@code OPT_OUT_TRACKING}, or {@code null}
	 * @param properties the system properties, where the opt-out is written
	 */
	static void optOutOfUsageTracking(String environment, java.util.Properties properties) {
		if (environment == null) {
			properties.putIfAbsent(USAGE_TRACKING, "true");
		}
	}

	/**
	 * Checks a text before it is tokenized: one that is empty is refused.
	 * @param text the text
	 * @param index its position in the request
	 * @param what how the request names it, e.g. {@code texts[3]}
	 * @throws EmbeddingRefusedException for a null or blank text
	 */
	static void check(String text, int index, String what) {
		if (text == null || text.isBlank()) {
			throw new EmbeddingRefusedException(what + " is " + ((text == null) ? "null" : "blank")
					+ "; every text must have words", index, -1);
		}
	}

	/**
	 * A text's token ids, special tokens included, however many.
	 * @param text a text that passed {@link #check}
	 * @return its ids
	 */
	long[] ids(String text) {
		return this.tokenizer.encode(text).getIds();
	}

	/**
	 * Fits ids to the model's maximum: cut or refused past it.
	 * @param ids from {@link #ids(String)}
	 * @param index the text's position in the request
	 * @param what how the request names it, e.g. {@code texts[3]}
	 * @param truncation what to do when it is too long
	 * @return {@code ids} itself when it fits, else its first tokens and the closing one
	 * @throws EmbeddingRefusedException for a text too long under {@link Truncation#REFUSE}
	 */
	long[] fit(long[] ids, int index, String what, Truncation truncation) {
		if (ids.length <= this.maxTokens) {
			return ids;
		}
		if (truncation == Truncation.REFUSE) {
			throw new EmbeddingRefusedException(what + " is " + ids.length + " tokens long; model '" + this.model
					+ "' takes at most " + this.maxTokens + " (special tokens included), and refuses rather than cut "
					+ "a text silently: shorten it or split it", index, ids.length);
		}
		long[] cut = Arrays.copyOf(ids, this.maxTokens);
		if (this.closing >= 0) {
			cut[this.maxTokens - 1] = this.closing;
		}
		return cut;
	}

	@Override
	public void close() {
		this.tokenizer.close();
	}
}
