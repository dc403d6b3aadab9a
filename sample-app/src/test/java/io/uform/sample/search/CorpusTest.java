package io.uform.sample.search;

import org.junit.jupiter.api.Test;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * The corpus is the same whatever thread count made it, and its rows are unit vectors.
 */
class CorpusTest {

	@Test
	void theVectorsDependOnTheSeedAloneNotOnTheThreads() {
		VectorsProperties properties = new VectorsProperties(true, 1001, 37, 5);
		Corpus one;
		Corpus three;
		try (Executor serial = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
				Executor parallel = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3))) {
			one = Corpus.generate(properties, serial);
			three = Corpus.generate(properties, parallel);
		}
		float[] query = one.randomQuery(9);
		float[] sameRows = new float[1001 * 37];
		float[] otherRows = new float[1001 * 37];
		one.copyRows(0, sameRows);
		three.copyRows(0, otherRows);
		assertThat(otherRows).containsExactly(sameRows);
		for (int row = 0; row < 1001; row += 100) {
			float[] unit = new float[37];
			System.arraycopy(sameRows, row * 37, unit, 0, 37);
			double norm = 0;
			for (float value : unit) {
				norm += value * value;
			}
			assertThat(norm).isCloseTo(1.0, within(1e-5));
			assertThat(one.dot(row, query)).isEqualTo(three.dot(row, query));
		}
	}

	@Test
	void sizesThatCannotBeHeldAreRefusedNamingTheProperty() {
		assertThatIllegalArgumentException().isThrownBy(() -> new VectorsProperties(true, 0, 256, 1))
			.withMessage("sample.vectors.rows must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new VectorsProperties(true, 10, -1, 1))
			.withMessage("sample.vectors.dimensions must be at least 1, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> new VectorsProperties(true, 100_000_000, 256, 1))
			.withMessageContaining("must fit one Java array").withMessageContaining("make the corpus smaller");
	}
}
