package io.uform.sample.search;

import java.util.Arrays;
import java.util.List;

/**
 * The best {@code k} rows seen so far, kept by one thread: a min-heap whose root is the worst hit
 * kept, so a row that does not beat it costs one comparison. Better means a higher score, and on
 * equal scores the lower row, so that every scan order (serial, sliced across threads, split by a
 * parallel stream, sharded across devices) merges to exactly the same hits.
 *
 * <p>Not thread-safe: each thread fills its own, and the owner merges them after the threads are done.
 */
final class TopK {

	private final int[] rows;

	private final float[] scores;

	private int size;

	/**
	 * @param k hits to keep, at least 1
	 */
	TopK(int k) {
		this.rows = new int[k];
		this.scores = new float[k];
	}

	/**
	 * Offers a row.
	 * @param row the row
	 * @param score its score
	 */
	void offer(int row, float score) {
		if (this.size < this.rows.length) {
			this.rows[this.size] = row;
			this.scores[this.size] = score;
			siftUp(this.size++);
		}
		else if (better(row, score, this.rows[0], this.scores[0])) {
			this.rows[0] = row;
			this.scores[0] = score;
			siftDown(0);
		}
	}

	/**
	 * Adds another thread's hits to these.
	 * @param other hits kept with the same {@code k}
	 * @return this
	 */
	TopK merge(TopK other) {
		for (int i = 0; i < other.size; i++) {
			offer(other.rows[i], other.scores[i]);
		}
		return this;
	}

	/**
	 * The hits, best first.
	 * @return at most {@code k}
	 */
	List<Hit> hits() {
		Hit[] hits = new Hit[this.size];
		for (int i = 0; i < this.size; i++) {
			hits[i] = new Hit(this.rows[i], this.scores[i]);
		}
		Arrays.sort(hits, (a, b) -> (a.row() == b.row()) ? 0 : better(a.row(), a.score(), b.row(), b.score()) ? -1 : 1);
		return List.of(hits);
	}

	/** A total order on (score, row): {@link Float#compare} also orders NaN, so no input breaks the heap. */
	static boolean better(int row, float score, int thanRow, float thanScore) {
		int byScore = Float.compare(score, thanScore);
		return (byScore != 0) ? byScore > 0 : row < thanRow;
	}

	private void siftUp(int index) {
		while (index > 0) {
			int parent = (index - 1) >>> 1;
			if (!better(this.rows[parent], this.scores[parent], this.rows[index], this.scores[index])) {
				return;
			}
			swap(index, parent);
			index = parent;
		}
	}

	private void siftDown(int index) {
		while (true) {
			int worst = index;
			for (int child = 2 * index + 1; child <= 2 * index + 2 && child < this.size; child++) {
				if (better(this.rows[worst], this.scores[worst], this.rows[child], this.scores[child])) {
					worst = child;
				}
			}
			if (worst == index) {
				return;
			}
			swap(index, worst);
			index = worst;
		}
	}

	private void swap(int a, int b) {
		int row = this.rows[a];
		float score = this.scores[a];
		this.rows[a] = this.rows[b];
		this.scores[a] = this.scores[b];
		this.rows[b] = row;
		this.scores[b] = score;
	}
}
