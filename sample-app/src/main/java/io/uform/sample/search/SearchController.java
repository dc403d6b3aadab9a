package io.uform.sample.search;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.annotation.JsonDeserialize;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The search API: {@code GET /search?q=} and {@code POST /search} with a {@code query} find the
 * passages nearest a question; with {@code sample.vectors.enabled}, {@code POST /search} with a
 * {@code vector} and {@code GET /search/random} scan the synthetic vector corpus instead.
 */
@RestController
public class SearchController {

	/** Hits returned when a request does not say. */
	static final int DEFAULT_K = 10;

	private final ObjectProvider<TextSearch> text;

	private final ObjectProvider<SearchService> vectors;

	SearchController(ObjectProvider<TextSearch> text, ObjectProvider<SearchService> vectors) {
		this.text = text;
		this.vectors = vectors;
	}

	/**
	 * Finds the passages nearest a query.
	 * @param q the question or phrase
	 * @param k hits wanted; 10, or every passage where there are fewer, when absent
	 * @return the passages and what it took
	 */
	@GetMapping("/search")
	public TextSearchResponse searchText(@RequestParam(required = false) @Nullable String q,
			@RequestParam(required = false) @Nullable Integer k) {
		if (q == null) {
			throw new BadSearchException("q is missing: give a question or phrase, e.g. /search?q=how+many+threads&k=5");
		}
		return TextSearchResponse.of(q, requireText().search(q, k));
	}

	/**
	 * Searches with a query's text, or with a vector of the synthetic corpus.
	 * @param request the query or vector, k and engine
	 * @return the passages found, or the vector search's hits
	 */
	@PostMapping("/search")
	public Object search(@RequestBody @Nullable SearchRequest request) {
		SearchService vectors = this.vectors.getIfAvailable();
		if (request == null) {
			throw new BadSearchException("the body is empty: send {\"query\": \"a question\", \"k\": " + DEFAULT_K + "}"
					+ ((vectors != null) ? " or {\"vector\": [" + vectors.corpus().dimensions() + " numbers], \"k\": "
							+ DEFAULT_K + "}" : ""));
		}
		if (request.query() != null && request.vector() != null) {
			throw new BadSearchException("give query or vector, not both: query finds passages, vector scans the "
					+ "synthetic vector corpus");
		}
		if (request.vector() != null) {
			SearchService service = requireVectors(vectors, "a search with a vector");
			int k = (request.k() != null) ? request.k() : DEFAULT_K;
			return SearchResponse.of(service.search(request.vector(), k, request.engine()), service.corpus(), null);
		}
		if (request.query() == null) {
			throw new BadSearchException("query is missing: send {\"query\": \"a question\", \"k\": " + DEFAULT_K + "}"
					+ ((vectors != null) ? " (or a vector of " + vectors.corpus().dimensions() + " numbers)" : ""));
		}
		if (request.engine() != null && !List.of(SearchService.AUTO, "ram").contains(request.engine())) {
			throw new BadSearchException("a text search scans the passages on the RAM executor: engine must be auto or "
					+ "ram, was '" + request.engine() + "'");
		}
		return TextSearchResponse.of(request.query(), requireText().search(request.query(), request.k()));
	}

	/**
	 * Scans the synthetic vector corpus with a random unit vector.
	 * @param k hits wanted
	 * @param engine {@code auto}, {@code ram}, {@code vram} or {@code parallel-stream}
	 * @param seed the query's seed; a random one (echoed in the response) when absent
	 * @return the hits and what served them
	 */
	@GetMapping("/search/random")
	public SearchResponse random(@RequestParam(defaultValue = "" + DEFAULT_K) int k,
			@RequestParam(defaultValue = SearchService.AUTO) String engine, @RequestParam @Nullable Long seed) {
		SearchService service = requireVectors(this.vectors.getIfAvailable(), "GET /search/random");
		long querySeed = (seed != null) ? seed : ThreadLocalRandom.current().nextLong();
		float[] query = service.corpus().randomQuery(querySeed);
		return SearchResponse.of(service.search(query, k, engine), service.corpus(), querySeed);
	}

	private TextSearch requireText() {
		TextSearch text = this.text.getIfAvailable();
		if (text == null) {
			throw new BadSearchException("a search with a query needs the embedding model, which this application "
					+ "runs without (sample.embedding.enabled=false): start it without that setting, or scan the "
					+ "synthetic vectors with GET /search/random");
		}
		return text;
	}

	private static SearchService requireVectors(@Nullable SearchService vectors, String what) {
		if (vectors == null) {
			throw new BadSearchException(what + " scans the synthetic vector corpus, which this application does not "
					+ "have: start it with sample.vectors.enabled=true, or search passages with a query");
		}
		return vectors;
	}

	/**
	 * The body of {@code POST /search}: a query, or a vector.
	 *
	 * @param query a question or phrase, to find passages
	 * @param vector a vector of the synthetic corpus's dimension, to scan it
	 * @param k hits wanted, 10 when absent
	 * @param engine which path scans, {@code auto} when absent
	 */
	public record SearchRequest(@Nullable String query,
			@JsonDeserialize(using = JsonNumberArray.class) float @Nullable [] vector, @Nullable Integer k,
			@Nullable String engine) {
	}

	/**
	 * A vector search's answer.
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

	/**
	 * A text search's answer.
	 *
	 * @param query the query
	 * @param k hits returned
	 * @param passages passages searched
	 * @param tokens the query's tokens
	 * @param batch queries embedded together with this one, itself included
	 * @param embedding what embedded the query (with its batch), and how long it took
	 * @param scan what scanned the passages, and how long it took
	 * @param hits best first
	 */
	public record TextSearchResponse(String query, int k, int passages, int tokens, int batch, Step embedding, Step scan,
			List<PassageHit> hits) {

		static TextSearchResponse of(String query, TextSearch.Result result) {
			List<PassageHit> hits = new ArrayList<>(result.found().size());
			for (TextSearch.Found found : result.found()) {
				hits.add(new PassageHit(found.passage().file(), found.passage().heading(), found.passage().text(),
						found.score()));
			}
			return new TextSearchResponse(query, hits.size(), result.passages(), result.tokens(), result.batch(),
					new Step(TextSearch.EMBEDDING_PATH, result.embedMicros()),
					new Step(result.scanPath(), result.scanMicros()), hits);
		}
	}

	/**
	 * One step of a text search.
	 *
	 * @param path what served it: {@code ram-executor}
	 * @param tookMicros its time, excluding the wait for the deferred call's turn
	 */
	public record Step(String path, long tookMicros) {
	}

	/**
	 * A passage found.
	 *
	 * @param file the document, relative to the corpus directory
	 * @param heading the heading it sits under
	 * @param text the passage
	 * @param score cosine similarity with the query, higher is nearer
	 */
	public record PassageHit(String file, String heading, String text, float score) {
	}
}
