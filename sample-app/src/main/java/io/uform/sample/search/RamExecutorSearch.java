package io.uform.sample.search;

import java.time.Duration;
import java.util.List;

import io.uform.Executor;

/**
 * The scan on the RAM executor: each search is a deferred call (so searches queue in order, within
 * the executor's {@code deferred-limit}, and the queue shows in its metrics), and the call forks the
 * corpus as blocks of rows handed out dynamically ({@code forNDynamic}); each thread keeps its own
 * top-k across the blocks it takes, and the call merges them.
 */
final class RamExecutorSearch implements SearchEngine {

	/**
	 * Rows per block handed out: about 100 us of scoring at 256 dimensions, so the hand-out (one
	 * atomic increment) is noise, and a thread slowed by something else on its core (the web server,
	 * the collector, another process) leaves its share to the others instead of making the whole
	 * search wait for it, as equal static slices would.
	 */
	static final int ROWS_PER_BLOCK = 1024;

	private final Executor executor;

	private final Corpus corpus;

	private final Duration slotWait;

	/**
	 * @param executor the RAM executor
	 * @param corpus what it scans
	 * @param slotWait how long a request waits for a deferred-call slot before it is refused
	 */
	RamExecutorSearch(Executor executor, Corpus corpus, Duration slotWait) {
		this.executor = executor;
		this.corpus = corpus;
		this.slotWait = slotWait;
	}

	@Override
	public String name() {
		return "ram";
	}

	@Override
	public String path() {
		return "ram-executor";
	}

	@Override
	public List<Hit> search(float[] query, int k) {
		return DeferredSearch.await(this.executor.defer(() -> scan(query, k), this.slotWait));
	}

	/**
	 * Scans now, on the calling thread and the executor's others: for a deferred call that has more to
	 * do than the scan (embedding the query first, say).
	 * @param query a vector of the corpus's dimension
	 * @param k from 1 to the corpus's rows
	 * @return the hits, best first
	 */
	List<Hit> scan(float[] query, int k) {
		int rows = this.corpus.rows();
		int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
		// One slot per thread: each thread writes only its own, and the fork's return publishes them.
		TopK[] perThread = new TopK[this.executor.threads()];
		this.executor.forNDynamic(blocks, (block, thread, colocation) -> {
			TopK top = perThread[thread];
			if (top == null) {
				top = new TopK(k);
				perThread[thread] = top;
			}
			int first = block * ROWS_PER_BLOCK;
			this.corpus.scan(first, Math.min(ROWS_PER_BLOCK, rows - first), query, top);
		});
		TopK merged = new TopK(k);
		for (TopK top : perThread) {
			if (top != null) {
				merged.merge(top);
			}
		}
		return merged.hits();
	}
}
