package io.uform.sample.search;

import java.util.List;
import java.util.stream.IntStream;

/**
 * The same scan as {@link RamExecutorSearch}, written as a parallel stream on the JDK's common
 * fork-join pool: the alternative a Java team would write without uform, kept here so the two can be
 * measured side by side (docs/benchmarks.md). Each split keeps its own top-k, merged as splits join.
 */
final class ParallelStreamSearch implements SearchEngine {

	private final Corpus corpus;

	/**
	 * @param corpus what it scans
	 */
	ParallelStreamSearch(Corpus corpus) {
		this.corpus = corpus;
	}

	@Override
	public String name() {
		return "parallel-stream";
	}

	@Override
	public String path() {
		return "parallel-stream";
	}

	@Override
	public List<Hit> search(float[] query, int k) {
		return IntStream.range(0, this.corpus.rows())
			.parallel()
			.collect(() -> new TopK(k), (top, row) -> top.offer(row, this.corpus.dot(row, query)), TopK::merge)
			.hits();
	}
}
