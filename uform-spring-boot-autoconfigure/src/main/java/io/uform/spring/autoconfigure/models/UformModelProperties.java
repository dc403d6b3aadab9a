package io.uform.spring.autoconfigure.models;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.Resource;

/**
 * One entry of {@code uform.models}: a text embedding model, its tokenizer, how it pools and where it
 * runs. Every field but the two files has the model card's usual value; a value wrong on its own is
 * refused while Boot binds, so that the report names the property, its value and where it was set.
 */
public class UformModelProperties {

	/**
	 * ONNX file of the model, as a Spring resource location: 'classpath:/model.onnx',
	 * 'file:/models/model.onnx'.
	 */
	private @Nullable Resource model;

	/**
	 * HuggingFace tokenizer.json of the model, as a Spring resource location.
	 */
	private @Nullable Resource tokenizer;

	/**
	 * How token vectors become one vector: 'mean' (sentence-transformers' default) or 'cls' (the first
	 * token's).
	 */
	private Pooling pooling = Pooling.MEAN;

	/**
	 * Whether vectors are scaled to unit length.
	 */
	private boolean normalize = true;

	/**
	 * Most tokens the model takes, special tokens included: the model card's max_seq_length, at least 2.
	 */
	private int maxTokens = 512;

	/**
	 * Whether a longer text is cut to max-tokens. When false, it is refused, naming the text.
	 */
	private boolean truncate;

	/**
	 * Executor the model runs on: 'ram', 'vram', or the bean name of any io.uform.Executor bean.
	 */
	private String executor = "ram";

	/**
	 * Most tokens one deferred call gathers from waiting requests, at least 1.
	 */
	private int maxBatchTokens = 16384;

	/**
	 * Most texts one request may hold, at least 1. A request with more is refused before it reaches the
	 * executor.
	 */
	private int maxTexts = 1024;

	/**
	 * Longest a request waits for a deferred slot while the executor's deferred-limit calls are in flight,
	 * then it is refused with the executor's saturation error (UformException, status TIMEOUT). Unset, a
	 * request waits as long as it takes; 0 refuses at once.
	 */
	private @Nullable Duration slotWait;

	/**
	 * Whether this model's beans are the ones an unqualified injection gets when several models are
	 * configured. A single model is primary without it.
	 */
	private boolean primary;

	public @Nullable Resource getModel() {
		return this.model;
	}

	public void setModel(@Nullable Resource model) {
		this.model = model;
	}

	public @Nullable Resource getTokenizer() {
		return this.tokenizer;
	}

	public void setTokenizer(@Nullable Resource tokenizer) {
		this.tokenizer = tokenizer;
	}

	public Pooling getPooling() {
		return this.pooling;
	}

	public void setPooling(Pooling pooling) {
		this.pooling = pooling;
	}

	public boolean isNormalize() {
		return this.normalize;
	}

	public void setNormalize(boolean normalize) {
		this.normalize = normalize;
	}

	public int getMaxTokens() {
		return this.maxTokens;
	}

	public void setMaxTokens(int maxTokens) {
		if (maxTokens < 2) {
			throw new IllegalArgumentException("must be at least 2 (the special tokens around a text): use the model "
					+ "card's max_seq_length");
		}
		this.maxTokens = maxTokens;
	}

	public boolean isTruncate() {
		return this.truncate;
	}

	public void setTruncate(boolean truncate) {
		this.truncate = truncate;
	}

	public String getExecutor() {
		return this.executor;
	}

	public void setExecutor(String executor) {
		if (executor.isBlank()) {
			throw new IllegalArgumentException("must be 'ram', 'vram' or the bean name of an io.uform.Executor bean");
		}
		this.executor = executor.strip();
	}

	public int getMaxBatchTokens() {
		return this.maxBatchTokens;
	}

	public void setMaxBatchTokens(int maxBatchTokens) {
		if (maxBatchTokens < 1) {
			throw new IllegalArgumentException("must be at least 1 token");
		}
		this.maxBatchTokens = maxBatchTokens;
	}

	public int getMaxTexts() {
		return this.maxTexts;
	}

	public void setMaxTexts(int maxTexts) {
		if (maxTexts < 1) {
			throw new IllegalArgumentException("must be at least 1 text per request");
		}
		this.maxTexts = maxTexts;
	}

	public @Nullable Duration getSlotWait() {
		return this.slotWait;
	}

	public void setSlotWait(@Nullable Duration slotWait) {
		if (slotWait != null && slotWait.isNegative()) {
			throw new IllegalArgumentException("must be 0 (refuse at once when every deferred slot is taken) or "
					+ "longer; leave it unset to wait for a slot");
		}
		this.slotWait = slotWait;
	}

	public boolean isPrimary() {
		return this.primary;
	}

	public void setPrimary(boolean primary) {
		this.primary = primary;
	}

	/** How a text's token vectors become one vector. */
	public enum Pooling {

		/** The mean over the text's tokens. */
		MEAN,

		/** The first token's vector ({@code [CLS]}). */
		CLS
	}
}
