package io.uform.sample.search;

import java.util.SplittableRandom;

import io.uform.Executor;

/**
 * The embedding vectors searched: {@code rows x dimensions} floats, row-major, every row of unit
 * length: the passages' embeddings, or synthetic vectors generated from a seed for the scan
 * benchmarks. Immutable once made, so any number of threads may scan it.
 */
public final class Corpus {

	private final float[] vectors;

	private final int rows;

	private final int dimensions;

	private Corpus(float[] vectors, int rows, int dimensions) {
		this.vectors = vectors;
		this.rows = rows;
		this.dimensions = dimensions;
	}

	/**
	 * A corpus of given vectors.
	 * @param vectors {@code rows x dimensions} floats, row-major, each row of unit length; kept, not copied
	 * @param dimensions floats per row
	 * @return the corpus
	 */
	public static Corpus of(float[] vectors, int dimensions) {
		if (dimensions < 1 || vectors.length == 0 || vectors.length % dimensions != 0) {
			throw new IllegalArgumentException("a corpus needs whole rows of " + dimensions + " floats, had "
					+ vectors.length + " floats");
		}
		return new Corpus(vectors, vectors.length / dimensions, dimensions);
	}

	/**
	 * Generates a corpus, its rows sliced across an executor's threads. Row {@code r} comes from its
	 * own seed, so the vectors are the same whatever the thread count.
	 * @param properties rows, dimensions and seed
	 * @param executor the threads that fill it
	 * @return the corpus
	 */
	public static Corpus generate(VectorsProperties properties, Executor executor) {
		int rows = properties.rows();
		int dimensions = properties.dimensions();
		float[] vectors = new float[rows * dimensions];
		executor.forSlices(rows, (first, count, thread, colocation) -> {
			for (int row = first; row < first + count; row++) {
				fillUnitVector(new SplittableRandom(properties.seed() * 1_000_003L + row), vectors, row * dimensions,
						dimensions);
			}
		});
		return new Corpus(vectors, rows, dimensions);
	}

	/**
	 * A random unit query vector of this corpus's dimension.
	 * @param seed its seed
	 * @return a new vector
	 */
	public float[] randomQuery(long seed) {
		float[] query = new float[this.dimensions];
		fillUnitVector(new SplittableRandom(seed), query, 0, this.dimensions);
		return query;
	}

	/**
	 * Scores a range of rows against a query and offers each to a top-k.
	 * @param first the first row
	 * @param count how many rows
	 * @param query the query, {@link #dimensions()} floats
	 * @param into where the hits go
	 */
	void scan(int first, int count, float[] query, TopK into) {
		for (int row = first; row < first + count; row++) {
			into.offer(row, dot(row, query));
		}
	}

	/**
	 * One row's dot product with a query. Four running sums let the CPU overlap the additions;
	 * every path of the service calls this one method, so they agree to the last bit.
	 * @param row the row
	 * @param query the query
	 * @return the score
	 */
	float dot(int row, float[] query) {
		float[] v = this.vectors;
		int base = row * this.dimensions;
		int n = this.dimensions;
		float s0 = 0;
		float s1 = 0;
		float s2 = 0;
		float s3 = 0;
		int i = 0;
		for (; i + 3 < n; i += 4) {
			s0 += v[base + i] * query[i];
			s1 += v[base + i + 1] * query[i + 1];
			s2 += v[base + i + 2] * query[i + 2];
			s3 += v[base + i + 3] * query[i + 3];
		}
		for (; i < n; i++) {
			s0 += v[base + i] * query[i];
		}
		return (s0 + s1) + (s2 + s3);
	}

	/**
	 * Copies rows into an array, for uploading a shard to a device.
	 * @param first the first row
	 * @param into receives {@code into.length / dimensions} rows
	 */
	void copyRows(int first, float[] into) {
		System.arraycopy(this.vectors, first * this.dimensions, into, 0, into.length);
	}

	/**
	 * Vectors in the corpus.
	 * @return at least 1
	 */
	public int rows() {
		return this.rows;
	}

	/**
	 * Floats per vector.
	 * @return at least 1
	 */
	public int dimensions() {
		return this.dimensions;
	}

	private static void fillUnitVector(SplittableRandom random, float[] into, int offset, int length) {
		double norm = 0;
		for (int i = 0; i < length; i++) {
			float value = (float) (random.nextDouble() * 2 - 1);
			into[offset + i] = value;
			norm += (double) value * value;
		}
		// A vector of zeros has probability zero; guard anyway so no row is NaN.
		float scale = (norm > 0) ? (float) (1 / Math.sqrt(norm)) : 0;
		for (int i = 0; i < length; i++) {
			into[offset + i] *= scale;
		}
	}
}
