package io.uform.sample.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TopK} against sorting everything: the same hits in the same order, ties included, however
 * the rows are split and merged.
 */
class TopKTest {

	private static final Comparator<Hit> BEST_FIRST = Comparator.comparing(Hit::score, Comparator.reverseOrder())
		.thenComparingInt(Hit::row);

	@Test
	void keepsTheBestKOfRandomScoresWithManyTies() {
		SplittableRandom random = new SplittableRandom(7);
		for (int round = 0; round < 200; round++) {
			int rows = 1 + random.nextInt(300);
			int k = 1 + random.nextInt(rows + 5);
			List<Hit> all = new ArrayList<>();
			// Few distinct scores, so ties decide most places.
			for (int row = 0; row < rows; row++) {
				all.add(new Hit(row, random.nextInt(8) / 4f));
			}
			TopK top = new TopK(k);
			// Offered in a shuffled order: the result must not depend on it.
			List<Hit> shuffled = new ArrayList<>(all);
			java.util.Collections.shuffle(shuffled, new java.util.Random(round));
			shuffled.forEach((hit) -> top.offer(hit.row(), hit.score()));
			assertThat(top.hits()).containsExactlyElementsOf(best(all, k));
		}
	}

	@Test
	void mergingSplitsGivesWhatOneScanGives() {
		SplittableRandom random = new SplittableRandom(11);
		List<Hit> all = new ArrayList<>();
		for (int row = 0; row < 1000; row++) {
			all.add(new Hit(row, random.nextInt(50)));
		}
		for (int splits : new int[] { 1, 2, 3, 7, 1000 }) {
			TopK merged = new TopK(25);
			for (int s = 0; s < splits; s++) {
				TopK part = new TopK(25);
				for (int row = s * 1000 / splits; row < (s + 1) * 1000 / splits; row++) {
					part.offer(row, all.get(row).score());
				}
				merged.merge(part);
			}
			assertThat(merged.hits()).as("%d splits", splits).containsExactlyElementsOf(best(all, 25));
		}
	}

	@Test
	void nanAndInfinitiesKeepATotalOrder() {
		TopK top = new TopK(3);
		top.offer(0, Float.NaN);
		top.offer(1, Float.NEGATIVE_INFINITY);
		top.offer(2, 1f);
		top.offer(3, Float.POSITIVE_INFINITY);
		top.offer(4, -1f);
		assertThat(top.hits()).extracting(Hit::row).containsExactly(0, 3, 2);
	}

	private static List<Hit> best(List<Hit> all, int k) {
		return all.stream().sorted(BEST_FIRST).limit(k).toList();
	}
}
