package io.uform.onnxruntime;

import java.nio.FloatBuffer;

/** How a text's token vectors (the model's hidden state) become one vector. */
public enum Pooling {

	/** The mean over the text's tokens, special tokens included (sentence-transformers' default). */
	MEAN,

	/** The first token's vector ({@code [CLS]}). */
	CLS;

	/**
	 * Pools one text's hidden state.
	 * @param hidden {@code tokens x dimensions} floats, row-major, from position 0
	 * @param tokens rows
	 * @param dimensions floats per row
	 * @return a new vector
	 */
	float[] pool(FloatBuffer hidden, int tokens, int dimensions) {
		float[] vector = new float[dimensions];
		if (this == CLS) {
			hidden.get(0, vector, 0, dimensions);
			return vector;
		}
		float[] row = new float[dimensions];
		for (int t = 0; t < tokens; t++) {
			hidden.get(t * dimensions, row, 0, dimensions);
			for (int d = 0; d < dimensions; d++) {
				vector[d] += row[d];
			}
		}
		for (int d = 0; d < dimensions; d++) {
			vector[d] /= tokens;
		}
		return vector;
	}

	/**
	 * Scales a vector to unit length in place; a zero vector stays zero rather than becoming NaN.
	 * @param vector the vector
	 */
	static void normalize(float[] vector) {
		double squares = 0;
		for (float x : vector) {
			squares += (double) x * x;
		}
		float scale = (squares > 0) ? (float) (1 / Math.sqrt(squares)) : 0;
		for (int d = 0; d < vector.length; d++) {
			vector[d] *= scale;
		}
	}
}
