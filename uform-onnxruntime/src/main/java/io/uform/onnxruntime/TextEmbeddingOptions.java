package io.uform.onnxruntime;

import java.time.Duration;
import java.util.Objects;

/**
 * How a text embedding model runs: immutable, start from {@link #defaults()} and change what differs
 * from the model card with the {@code with...} methods.
 *
 * @param name the model's name, for messages and listeners
 * @param pooling how token vectors become one ({@link Pooling#MEAN} by default)
 * @param normalize whether vectors are scaled to unit length (by default they are)
 * @param maxTokens the most tokens the model takes, special tokens included (the model card's
 *        {@code max_seq_length}; 512 by default, BERT's positions)
 * @param truncation what happens to a longer text ({@link Truncation#REFUSE} by default)
 * @param output the ONNX output to pool; {@code null} picks {@code last_hidden_state}, or the only
 *        output where there is one
 * @param maxTexts the most texts one request may hold (1024 by default)
 * @param maxBatchTokens the most tokens one deferred call gathers from waiting requests (TEI's
 *        {@code max-batch-tokens}; 16384 by default); a single larger request still runs, alone
 * @param slotWait the longest a request waits for a deferred slot when the executor's
 *        {@code deferred-limit} calls are in flight, then it is refused with the executor's
 *        saturation error; {@code null} waits as long as it takes (the default)
 * @param listener hears every batch ({@link EmbeddingListener#NONE} by default)
 */
public record TextEmbeddingOptions(String name, Pooling pooling, boolean normalize, int maxTokens, Truncation truncation,
		String output, int maxTexts, int maxBatchTokens, Duration slotWait, EmbeddingListener listener) {

	/** Checks every field, naming the bad one. */
	public TextEmbeddingOptions {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(pooling, "pooling");
		Objects.requireNonNull(truncation, "truncation");
		Objects.requireNonNull(listener, "listener");
		if (maxTokens < 2) {
			throw new IllegalArgumentException("maxTokens must be at least 2 (the special tokens around a text), was "
					+ maxTokens);
		}
		if (maxTexts < 1) {
			throw new IllegalArgumentException("maxTexts must be at least 1, was " + maxTexts);
		}
		if (maxBatchTokens < 1) {
			throw new IllegalArgumentException("maxBatchTokens must be at least 1, was " + maxBatchTokens);
		}
		if (slotWait != null && slotWait.isNegative()) {
			throw new IllegalArgumentException("slotWait must be zero (refuse at once) or positive, or null to wait; was "
					+ slotWait);
		}
	}

	/**
	 * The defaults: mean pooling, unit vectors, 512 tokens, refuse longer texts.
	 * @return the defaults
	 */
	public static TextEmbeddingOptions defaults() {
		return new TextEmbeddingOptions("text-embedding", Pooling.MEAN, true, 512, Truncation.REFUSE, null, 1024, 16384,
				null, EmbeddingListener.NONE);
	}

	/**
	 * @param name the model's name, for messages and listeners
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withName(String name) {
		return new TextEmbeddingOptions(name, this.pooling, this.normalize, this.maxTokens, this.truncation, this.output,
				this.maxTexts, this.maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param pooling how token vectors become one
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withPooling(Pooling pooling) {
		return new TextEmbeddingOptions(this.name, pooling, this.normalize, this.maxTokens, this.truncation, this.output,
				this.maxTexts, this.maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param normalize whether vectors are scaled to unit length
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withNormalize(boolean normalize) {
		return new TextEmbeddingOptions(this.name, this.pooling, normalize, this.maxTokens, this.truncation, this.output,
				this.maxTexts, this.maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param maxTokens the most tokens the model takes, special tokens included
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withMaxTokens(int maxTokens) {
		return new TextEmbeddingOptions(this.name, this.pooling, this.normalize, maxTokens, this.truncation, this.output,
				this.maxTexts, this.maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param truncation what happens to a longer text
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withTruncation(Truncation truncation) {
		return new TextEmbeddingOptions(this.name, this.pooling, this.normalize, this.maxTokens, truncation, this.output,
				this.maxTexts, this.maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param output the ONNX output to pool
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withOutput(String output) {
		return new TextEmbeddingOptions(this.name, this.pooling, this.normalize, this.maxTokens, this.truncation, output,
				this.maxTexts, this.maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param maxTexts the most texts one request may hold
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withMaxTexts(int maxTexts) {
		return new TextEmbeddingOptions(this.name, this.pooling, this.normalize, this.maxTokens, this.truncation, this.output,
				maxTexts, this.maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param maxBatchTokens the most tokens one deferred call gathers
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withMaxBatchTokens(int maxBatchTokens) {
		return new TextEmbeddingOptions(this.name, this.pooling, this.normalize, this.maxTokens, this.truncation, this.output,
				this.maxTexts, maxBatchTokens, this.slotWait, this.listener);
	}

	/**
	 * @param slotWait the longest wait for a deferred slot; {@code null} waits
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withSlotWait(Duration slotWait) {
		return new TextEmbeddingOptions(this.name, this.pooling, this.normalize, this.maxTokens, this.truncation, this.output,
				this.maxTexts, this.maxBatchTokens, slotWait, this.listener);
	}

	/**
	 * @param listener hears every batch
	 * @return a copy with it
	 */
	public TextEmbeddingOptions withListener(EmbeddingListener listener) {
		return new TextEmbeddingOptions(this.name, this.pooling, this.normalize, this.maxTokens, this.truncation, this.output,
				this.maxTexts, this.maxBatchTokens, this.slotWait, listener);
	}
}
