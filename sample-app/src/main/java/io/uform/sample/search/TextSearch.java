package io.uform.sample.search;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.uform.Executor;
import io.uform.sample.embedding.EmbeddingMetrics;
import io.uform.sample.embedding.ExecutorEmbedder;
import io.uform.sample.embedding.MiniLm;
import io.uform.sample.passages.Passage;

/**
 * Semantic search over the passage index, and embedding on demand, both on the RAM executor: each
 * request is one deferred call (so requests queue in order within the executor's
 * {@code deferred-limit}, and a saturated service answers 503 rather than queueing forever) that
 * embeds texts across the executor's threads and, for a search, scans the passages' embeddings for the
 * nearest with the same fork-join scan as the vector engines. Searches waiting together are embedded
 * together ({@link QueryBatch}). Bad input never reaches the executor: length, count and a token floor
 * ({@link TokenFloor}) are checked first, then texts are tokenized on the request thread, and only
 * texts that fit are deferred.
 */
public final class TextSearch {

	/** Passages a search returns when it does not say. */
	public static final int DEFAULT_K = 10;

	/** Path that embeds: the model's session called from the RAM executor's threads. */
	public static final String EMBEDDING_PATH = "ram-executor";

	private final ExecutorEmbedder embedder;

	private final Executor executor;

	private final PassageIndex index;

	private final EmbeddingMetrics metrics;

	private final Duration slotWait;

	private final int maxTexts;

	private final QueryBatch queries;

	TextSearch(ExecutorEmbedder embedder, Executor executor, PassageIndex index, EmbeddingMetrics metrics,
			Duration slotWait, int maxTexts) {
		this.embedder = embedder;
		this.executor = executor;
		this.index = index;
		this.metrics = metrics;
		this.slotWait = slotWait;
		this.maxTexts = maxTexts;
		this.queries = new QueryBatch(embedder, executor, index, metrics, slotWait, maxTexts);
	}

	/**
	 * Finds the passages nearest a query.
	 * @param query the question or phrase, at most {@link MiniLm#MAX_TOKENS} tokens
	 * @param k hits wanted, from 1 to the passages indexed; {@code null} for {@link #DEFAULT_K}, or every
	 *        passage where there are fewer
	 * @return the passages, best first, and what it took
	 * @throws BadSearchException for an empty or too long query, or a {@code k} out of range
	 * @throws IndexNotReadyException while the index is being built
	 */
	public Result search(String query, @Nullable Integer k) {
		if (query == null || query.isBlank()) {
			throw new BadSearchException("query is empty: give a question or phrase, e.g. ?q=how+many+threads");
		}
		checkLength(query, "query");
		Corpus corpus = this.index.corpus();
		int hits = (k != null) ? k : Math.min(DEFAULT_K, corpus.rows());
		if (hits < 1 || hits > corpus.rows()) {
			throw new BadSearchException("k must be between 1 and " + corpus.rows() + " (the passages indexed), was " + hits);
		}
		// On the request thread: the executor's threads only ever embed texts that fit.
		return this.queries.search(fitting(this.embedder.model().tokenize(query), "query"), hits, corpus);
	}

	/**
	 * Embeds texts, sliced across the executor's threads.
	 * @param texts from 1 to the configured maximum, each at most {@link MiniLm#MAX_TOKENS} tokens
	 * @return a unit vector per text, and each text's tokens
	 * @throws BadSearchException naming the first text that is missing, empty or too long
	 */
	public Embeddings embed(List<String> texts) {
		if (texts == null || texts.isEmpty()) {
			throw new BadSearchException("texts is missing or empty: send {\"texts\": [\"a sentence\", ...]}, 1 to "
					+ this.maxTexts + " texts");
		}
		if (texts.size() > this.maxTexts) {
			throw new BadSearchException("too many texts: " + texts.size() + ", at most " + this.maxTexts
					+ " per call (sample.embedding.max-texts); split them over several calls");
		}
		return embedEach(texts, "texts");
	}

	/**
	 * Embeds texts already counted, sliced across the executor's threads.
	 * @param texts from 1 to the configured maximum, each at most {@link MiniLm#MAX_TOKENS} tokens
	 * @param field what the request calls them, for the refusal of one ({@code texts}, {@code input})
	 * @return a unit vector per text, and each text's tokens
	 * @throws BadSearchException naming the first text that is missing, empty or too long
	 */
	public Embeddings embedEach(List<String> texts, String field) {
		for (int i = 0; i < texts.size(); i++) {
			if (texts.get(i) == null || texts.get(i).isBlank()) {
				throw new BadSearchException(field + "[" + i + "] is " + ((texts.get(i) == null) ? "null" : "blank")
						+ "; every text must have words");
			}
			checkLength(texts.get(i), field + "[" + i + "]");
		}
		// Every text is checked before any is tokenized, and tokenized here, on the request thread.
		List<long[]> ids = new ArrayList<>(texts.size());
		int[] tokens = new int[texts.size()];
		long total = 0;
		for (int i = 0; i < texts.size(); i++) {
			ids.add(fitting(this.embedder.model().tokenize(texts.get(i)), field + "[" + i + "]"));
			tokens[i] = ids.get(i).length;
			total += tokens[i];
		}
		long allTokens = total;
		return DeferredSearch.await(this.executor.defer(() -> {
			long start = System.nanoTime();
			float[][] vectors = this.embedder.embed(ids);
			long took = System.nanoTime() - start;
			this.metrics.record("embed", texts.size(), allTokens, took);
			return new Embeddings(vectors, tokens, took / 1_000);
		}, this.slotWait));
	}

	/**
	 * The most texts one {@link #embed} call takes.
	 * @return {@code sample.embedding.max-texts}
	 */
	public int maxTexts() {
		return this.maxTexts;
	}

	/**
	 * Threads that embed.
	 * @return the RAM executor's
	 */
	public int threads() {
		return this.embedder.threads();
	}

	private static void checkLength(String text, String what) {
		// Before tokenizing: no text this long fits the model, and tokenizing it would cost for nothing.
		if (text.length() > EmbeddingProperties.MAX_CHARS) {
			throw new BadSearchException(what + " has " + text.length() + " characters; the model takes at most "
					+ MiniLm.MAX_TOKENS + " tokens, and this service at most " + EmbeddingProperties.MAX_CHARS
					+ " characters: shorten it, or split it into several");
		}
		int floor = TokenFloor.of(text);
		if (floor > MiniLm.MAX_TOKENS) {
			throw new BadSearchException(what + " has at least " + floor + " tokens (its words and punctuation marks, "
					+ "[CLS] and [SEP]); the model takes at most " + MiniLm.MAX_TOKENS + ", and this service refuses "
					+ "rather than cut a text silently: shorten it, or split it into several");
		}
	}

	private static long[] fitting(long[] ids, String what) {
		if (ids.length > MiniLm.MAX_TOKENS) {
			throw tooLong(what, ids.length);
		}
		return ids;
	}

	/**
	 * The refusal of a text longer than the model takes.
	 * @param what the text, as the request names it
	 * @param tokens its length in tokens
	 * @return the exception to throw
	 */
	static BadSearchException tooLong(String what, int tokens) {
		return new BadSearchException(what + " is " + tokens + " tokens long; the model takes at most "
				+ MiniLm.MAX_TOKENS + " (word pieces, [CLS] and [SEP] included), and this service refuses rather "
				+ "than cut a text silently: shorten it, or split it into several");
	}

	/**
	 * A passage found, and its cosine similarity with the query.
	 *
	 * @param passage the passage
	 * @param score from -1 to 1, higher is nearer
	 */
	public record Found(Passage passage, float score) {
	}

	/**
	 * What a search found and what it took.
	 *
	 * @param tokens the query's tokens
	 * @param batch queries embedded together with this one, itself included
	 * @param embedMicros time to tokenize and embed the batch
	 * @param scanPath what scanned
	 * @param scanMicros time to scan the passages
	 * @param passages passages searched
	 * @param found best first
	 */
	public record Result(int tokens, int batch, long embedMicros, String scanPath, long scanMicros, int passages, List<Found> found) {
	}

	/**
	 * Texts' embeddings.
	 *
	 * @param vectors a unit vector per text, in order
	 * @param tokens each text's tokens
	 * @param tookMicros time to tokenize and embed them all
	 */
	public record Embeddings(float[][] vectors, int[] tokens, long tookMicros) {
	}
}
