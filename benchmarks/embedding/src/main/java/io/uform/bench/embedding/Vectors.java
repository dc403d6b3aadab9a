package io.uform.bench.embedding;

/** Pooling for the plain ONNX Runtime peer, and the comparison of every peer's vectors with uform's. */
final class Vectors {

	private Vectors() {
	}

	/** The mean of the first {@code tokens} rows, scaled to unit length. */
	static float[] meanUnit(float[][] hidden, int tokens) {
		int dimensions = hidden[0].length;
		float[] sum = new float[dimensions];
		for (int t = 0; t < tokens; t++) {
			for (int d = 0; d < dimensions; d++) {
				sum[d] += hidden[t][d];
			}
		}
		double squares = 0;
		for (int d = 0; d < dimensions; d++) {
			sum[d] /= tokens;
			squares += (double) sum[d] * sum[d];
		}
		float scale = (float) (1 / Math.sqrt(squares));
		for (int d = 0; d < dimensions; d++) {
			sum[d] *= scale;
		}
		return sum;
	}

	/** The cosine of two vectors of any length (Spring AI's are not normalised). */
	static double cosine(float[] a, float[] b) {
		double dot = 0;
		double aa = 0;
		double bb = 0;
		for (int d = 0; d < a.length; d++) {
			dot += (double) a[d] * b[d];
			aa += (double) a[d] * a[d];
			bb += (double) b[d] * b[d];
		}
		return dot / Math.sqrt(aa * bb);
	}

	/** The least cosine over pairs of rows. */
	static double minCosine(float[][] a, float[][] b) {
		if (a.length != b.length) {
			throw new IllegalStateException(a.length + " vectors against " + b.length);
		}
		double min = 1;
		for (int i = 0; i < a.length; i++) {
			min = Math.min(min, cosine(a[i], b[i]));
		}
		return min;
	}

	/** How many pairs of rows have a cosine under {@code floor}. */
	static int countUnder(float[][] a, float[][] b, double floor) {
		int under = 0;
		for (int i = 0; i < a.length; i++) {
			under += (cosine(a[i], b[i]) < floor) ? 1 : 0;
		}
		return under;
	}
}
