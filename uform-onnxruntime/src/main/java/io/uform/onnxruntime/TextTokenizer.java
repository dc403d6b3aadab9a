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

	private final HuggingFaceTokenizer tokenizer;

	private final int maxTokens;

	private final Truncation truncation;

	private final String model;

	/** The id that closes every encoding ({@code [SEP]}), kept last when a text is cut. */
	private final long closing;

	private TextTokenizer(HuggingFaceTokenizer tokenizer, int maxTokens, Truncation truncation, String model) {
		this.tokenizer = tokenizer;
		this.maxTokens = maxTokens;
		this.truncation = truncation;
		this.model = model;
		long[] empty = tokenizer.encode("").getIds();
		this.closing = (empty.length > 0) ? empty[empty.length - 1] : -1;
	}

	/**
	 * Loads a {@code tokenizer.json}.
	 * @param source where it is
	 * @param options the model's length and truncation
	 * @return the tokenizer
	 */
	static TextTokenizer load(ModelSource source, TextEmbeddingOptions options) {
		// Truncation and padding off in the tokenizer: this class cuts, knowingly, and nothing pads.
		Map<String, String> settings = Map.of("truncation", "false", "padding", "false");
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
			return new TextTokenizer(tokenizer, options.maxTokens(), options.truncation(), options.name());
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
	 * Checks a text before it is tokenized: one that is empty is refused.
	 * @param text the text
	 * @param what how the request names it, e.g. {@code texts[3]}
	 * @throws EmbeddingRefusedException for a null or blank text
	 */
	static void check(String text, String what) {
		if (text == null || text.isBlank()) {
			throw new EmbeddingRefusedException(what + " is " + ((text == null) ? "null" : "blank")
					+ "; every text must have words");
		}
	}

	/**
	 * A text's token ids, special tokens included, cut or refused past the model's maximum.
	 * @param text a text that passed {@link #check}
	 * @param what how the request names it, e.g. {@code texts[3]}
	 * @return at most {@code maxTokens} ids
	 * @throws EmbeddingRefusedException for a text too long under {@link Truncation#REFUSE}
	 */
	long[] ids(String text, String what) {
		long[] ids = this.tokenizer.encode(text).getIds();
		if (ids.length <= this.maxTokens) {
			return ids;
		}
		if (this.truncation == Truncation.REFUSE) {
			throw new EmbeddingRefusedException(what + " is " + ids.length + " tokens long; model '" + this.model
					+ "' takes at most " + this.maxTokens + " (special tokens included), and refuses rather than cut "
					+ "a text silently: shorten it, split it, or load the model with Truncation.TRUNCATE");
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
