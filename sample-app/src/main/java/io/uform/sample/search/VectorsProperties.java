package io.uform.sample.search;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The synthetic vector corpus ({@code sample.vectors.*}): random unit vectors instead of passages, for
 * the scan benchmarks and the VRAM path (the corpus held in the VRAM executor's scratch, scanned by the
 * PTX dot-product kernel where a GPU exists). Generated at startup from the seed, so every instance
 * with the same properties holds the same vectors. Off unless enabled.
 *
 * @param enabled whether to generate the corpus and serve {@code GET /search/random} and
 *        {@code POST /search} with a vector
 * @param rows vectors in the corpus, at least 1; 100k of 256 floats is about 100 MB
 * @param dimensions floats per vector, at least 1
 * @param seed the seed the vectors are generated from
 */
@ConfigurationProperties("sample.vectors")
public record VectorsProperties(@DefaultValue("false") boolean enabled, @DefaultValue("100000") int rows,
		@DefaultValue("256") int dimensions, @DefaultValue("42") long seed) {

	/** The most floats one Java array holds. */
	static final long MAX_FLOATS = Integer.MAX_VALUE - 8;

	/**
	 * Checks the sizes at binding, so a bad value fails startup naming the property.
	 */
	public VectorsProperties {
		if (rows < 1) {
			throw new IllegalArgumentException("sample.vectors.rows must be at least 1, was " + rows);
		}
		if (dimensions < 1) {
			throw new IllegalArgumentException("sample.vectors.dimensions must be at least 1, was " + dimensions);
		}
		if ((long) rows * dimensions > MAX_FLOATS) {
			throw new IllegalArgumentException("sample.vectors.rows x sample.vectors.dimensions must fit one Java array ("
					+ MAX_FLOATS + " floats), was " + rows + " x " + dimensions + " = " + (long) rows * dimensions
					+ "; make the corpus smaller");
		}
	}
}
