package io.uform.onnxruntime;

/**
 * What one request got: its vectors, each text's tokens (what an OpenAI-style {@code usage} counts),
 * and the batch it was served in.
 *
 * @param vectors a vector per text, in order
 * @param tokens each text's tokens as embedded, special tokens included (after truncation)
 * @param truncated texts that were cut to the model's maximum tokens ({@link Truncation#TRUNCATE})
 * @param batch the batch on the executor that served it, which other requests may have shared, as it
 *        stood when this request's last text was embedded (a batch grows while it runs)
 */
public record Embeddings(float[][] vectors, int[] tokens, int truncated, EmbeddingBatch batch) {

	/**
	 * The request's own tokens.
	 * @return the sum of {@link #tokens()}
	 */
	public long totalTokens() {
		long total = 0;
		for (int count : this.tokens) {
			total += count;
		}
		return total;
	}
}
