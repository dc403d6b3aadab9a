package io.uform.sample.search;

import java.time.Duration;
import java.util.List;

import io.uform.Executor;

/**
 * The scan on the RAM executor: each search is a deferred call (so searches queue in order, within
 * the executor's {@code deferred-limit}, and the queue shows in its metrics), and the call forks the
 * corpus into one contiguous slice per thread; each thread keeps its own top-k, and the call merges
 * them.
 */
final class RamExecutorSearch implements SearchEngine {

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

	private List<Hit> scan(float[] query, int k) {
		// One slot per thread: each thread writes only its own, and the fork's return publishes them.
		TopK[] perThread = new TopK[this.executor.threads()];
		this.executor.forSlices(this.corpus.rows(), (first, count, thread, colocation) -> {
			TopK top = new TopK(k);
			this.corpus.scan(first, count, query, top);
			perThread[thread] = top;
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
