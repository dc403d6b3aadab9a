package io.uform.sample.search;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.annotation.JsonDeserialize;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The search API: {@code POST /search} with a vector, and {@code GET /search/random} with a random
 * one, for a quick try from a browser or a load script.
 */
@RestController
public class SearchController {

	/** Hits returned when a request does not say. */
	static final int DEFAULT_K = 10;

	private final SearchService search;

	SearchController(SearchService search) {
		this.search = search;
	}

	/**
	 * Searches with a given vector.
	 * @param request the vector, k and engine
	 * @return the hits and what served them
	 */
	@PostMapping("/search")
	public SearchResponse search(@RequestBody @Nullable SearchRequest request) {
		if (request == null) {
			throw new BadSearchException("the body is empty: send {\"vector\": [" + this.search.corpus().dimensions()
					+ " numbers], \"k\": " + DEFAULT_K + "}");
		}
		int k = (request.k() != null) ? request.k() : DEFAULT_K;
		return SearchResponse.of(this.search.search(request.vector(), k, request.engine()), this.search.corpus(), null);
	}

	/**
	 * Searches with a random unit vector.
	 * @param k hits wanted
	 * @param engine {@code auto}, {@code ram}, {@code vram} or {@code parallel-stream}
	 * @param seed the query's seed; a random one (echoed in the response) when absent
	 * @return the hits and what served them
	 */
	@GetMapping("/search/random")
	public SearchResponse random(@RequestParam(defaultValue = "" + DEFAULT_K) int k,
			@RequestParam(defaultValue = SearchService.AUTO) String engine, @RequestParam @Nullable Long seed) {
		long querySeed = (seed != null) ? seed : ThreadLocalRandom.current().nextLong();
		float[] query = this.search.corpus().randomQuery(querySeed);
		return SearchResponse.of(this.search.search(query, k, engine), this.search.corpus(), querySeed);
	}

	/**
	 * The body of {@code POST /search}.
	 *
	 * @param vector the query, as many numbers as the corpus's dimension
	 * @param k hits wanted, 10 when absent
	 * @param engine which path scans, {@code auto} when absent
	 */
	public record SearchRequest(@JsonDeserialize(using = JsonNumberArray.class) float @Nullable [] vector,
			@Nullable Integer k, @Nullable String engine) {
	}

	/**
	 * A search's answer.
	 *
	 * @param engine the engine that ran it
	 * @param path what served it: {@code ram-executor}, {@code gpu-kernel},
	 *        {@code simulated-gpu-host-scan} or {@code parallel-stream}
	 * @param k hits asked for
	 * @param rows rows scanned
	 * @param dimensions the vectors' dimension
	 * @param seed the random query's seed ({@code GET /search/random} only)
	 * @param tookMicros time in the engine, queueing included
	 * @param hits best first
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	public record SearchResponse(String engine, String path, int k, int rows, int dimensions, @Nullable Long seed,
			long tookMicros, List<Hit> hits) {

		static SearchResponse of(SearchService.SearchResult result, Corpus corpus, @Nullable Long seed) {
			return new SearchResponse(result.engine(), result.path(), result.hits().size(), corpus.rows(),
					corpus.dimensions(), seed, result.tookMicros(), result.hits());
		}
	}
}
