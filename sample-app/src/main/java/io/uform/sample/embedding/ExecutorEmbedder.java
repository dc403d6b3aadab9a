package io.uform.sample.embedding;

import java.util.List;

import io.uform.Executor;

/**
 * Embeds batches of texts on the RAM executor's threads: the batch is cut into one static slice per
 * thread ({@code forSlices}), and each thread tokenizes and embeds its slice one text at a time through
 * the model's single session. The model runs with ONNX Runtime's own pools at one thread, so the
 * executor's threads are the only ones embedding and no second pool competes with them for the cores.
 *
 * <p>Where threads meet: {@code vectors} and {@code tokens} are written by the thread whose slice holds
 * the index, each index by exactly one thread, and read by the caller after the fork returns, which
 * publishes every thread's writes.
 */
public final class ExecutorEmbedder {

	private final MiniLm model;

	private final Executor executor;

	/**
	 * @param model the model, loaded with one intra-op thread ({@link MiniLm#load()})
	 * @param executor the RAM executor whose threads embed
	 */
	public ExecutorEmbedder(MiniLm model, Executor executor) {
		this.model = model;
		this.executor = executor;
	}

	/**
	 * Embeds texts already tokenized, sliced across the executor's threads. Must run where a fork may:
	 * on an application thread or inside a deferred call of the executor (a fork inside one of its
	 * own tasks runs inline, on that one thread).
	 * @param tokenized each text's ids, at most {@link MiniLm#MAX_TOKENS}
	 * @return one unit vector per text, in order
	 */
	public float[][] embed(List<long[]> tokenized) {
		float[][] vectors = new float[tokenized.size()][];
		this.executor.forSlices(tokenized.size(), (first, count, thread, colocation) -> {
			for (int i = first; i < first + count; i++) {
				vectors[i] = this.model.embed(tokenized.get(i));
			}
		});
		return vectors;
	}

	/**
	 * Tokenizes texts, sliced across the executor's threads as {@link #embed} is.
	 * @param texts the texts
	 * @return each text's ids, untruncated
	 */
	public long[][] tokenize(List<String> texts) {
		long[][] ids = new long[texts.size()][];
		this.executor.forSlices(texts.size(), (first, count, thread, colocation) -> {
			for (int i = first; i < first + count; i++) {
				ids[i] = this.model.tokenize(texts.get(i));
			}
		});
		return ids;
	}

	/**
	 * The model it runs.
	 * @return the model
	 */
	public MiniLm model() {
		return this.model;
	}

	/**
	 * The threads that embed.
	 * @return the executor's thread count
	 */
	public int threads() {
		return this.executor.threads();
	}
}
