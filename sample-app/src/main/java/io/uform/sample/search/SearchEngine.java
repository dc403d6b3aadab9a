package io.uform.sample.search;

import java.util.List;

/**
 * One way to run an exact top-k scan of the corpus. The service keeps one per path it can serve and
 * picks one per request, so the paths can be compared at equal results.
 */
interface SearchEngine {

	/**
	 * The name a request selects it by.
	 * @return {@code ram}, {@code vram} or {@code parallel-stream}
	 */
	String name();

	/**
	 * What serves a search, as the response reports it.
	 * @return a stable token, such as {@code ram-executor} or {@code gpu-kernel}
	 */
	String path();

	/**
	 * Finds the {@code k} corpus rows with the highest dot product with a query.
	 * @param query a vector of the corpus's dimension, every value finite
	 * @param k from 1 to the corpus's rows
	 * @return the hits, best first; ties in score go to the lower row
	 */
	List<Hit> search(float[] query, int k);
}
