package io.uform.sample.search;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

import io.uform.Executor;
import io.uform.onnxruntime.EmbeddingRefusedException;
import io.uform.onnxruntime.Embeddings;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.passages.Passage;

/**
 * Semantic search over the passage index, and embedding on demand, both on the RAM executor: the
 * model (uform-onnxruntime) embeds each request in a deferred call that takes every request waiting
 * at that moment, so searches arriving together are embedded together, each text its own session
 * call; a search then scans the passages' embeddings for the nearest in a deferred call of its own,
 * with the same fork-join scan as the vector engines. Requests queue in order within the executor's
 * {@code deferred-limit}, and a saturated service answers 503 rather than queueing forever: the scan
 * waits for a slot as long as the model does (its entry's {@code slot-wait}).
 */
public final class TextSearch {

	/** Passages a search returns when it does not say. */
	public static final int DEFAULT_K = 10;

	/** Path that embeds: the model's session called from the RAM executor's threads. */
	public static final String EMBEDDING_PATH = "ram-executor";

	private final TextEmbeddingModel model;

	private final Executor executor;

	private final PassageIndex index;

	TextSearch(TextEmbeddingModel model, Executor executor, PassageIndex index) {
		this.model = model;
		this.executor = executor;
		this.index = index;
	}

	/**
	 * Finds the passages nearest a query.
	 * @param query the question or phrase, at most the model's {@code max-tokens}
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
		TextChecks.check(query, "query", maxTokens());
		Corpus corpus = this.index.corpus();
		int hits = (k != null) ? k : Math.min(DEFAULT_K, corpus.rows());
		if (hits < 1 || hits > corpus.rows()) {
			throw new BadSearchException("k must be between 1 and " + corpus.rows() + " (the passages indexed), was " + hits);
		}
		Embeddings embedded = embed(Collections.singletonList(query), (i) -> "query");
		long scanStart = System.nanoTime();
		RamExecutorSearch scan = new RamExecutorSearch(this.executor, corpus, this.model.options().slotWait());
		List<Hit> nearest = scan.search(embedded.vectors()[0], hits);
		long scanMicros = (System.nanoTime() - scanStart) / 1_000;
		List<Found> found = new ArrayList<>(nearest.size());
		for (Hit hit : nearest) {
			found.add(new Found(this.index.passages().get(hit.row()), hit.score()));
		}
		return new Result(embedded.tokens()[0], embedded.batch().requests(), embedded.batch().nanos() / 1_000,
				scan.path(), scanMicros, corpus.rows(), found);
	}

	/**
	 * Embeds texts, sliced across the executor's threads.
	 * @param texts from 1 to the model's {@code max-texts}, each at most its {@code max-tokens}
	 * @return a unit vector per text, and each text's tokens
	 * @throws BadSearchException naming the first text that is missing, empty or too long
	 */
	public Embeddings embed(List<String> texts) {
		if (texts == null || texts.isEmpty()) {
			throw new BadSearchException("texts is missing or empty: send {\"texts\": [\"a sentence\", ...]}, 1 to "
					+ maxTexts() + " texts");
		}
		if (texts.size() > maxTexts()) {
			throw new BadSearchException("too many texts: " + texts.size() + ", at most " + maxTexts()
					+ " per call (uform.models." + this.model.name() + ".max-texts); split them over several calls");
		}
		for (int i = 0; i < texts.size(); i++) {
			TextChecks.check(texts.get(i), "texts[" + i + "]", maxTokens());
		}
		return embed(texts, (i) -> "texts[" + i + "]");
	}

	/** Embeds, refusing as this service words it; the starter's uform.model.* meters count it. */
	private Embeddings embed(List<String> texts, IntFunction<String> what) {
		try {
			return this.model.embedDetailed(texts);
		}
		catch (EmbeddingRefusedException ex) {
			// Empty texts and counts were refused above in this service's words; here, a text too long.
			throw (ex.tokens() > 0) ? TextChecks.tooLong(what.apply(ex.text()), ex.tokens(), maxTokens())
					: new BadSearchException(ex.getMessage());
		}
	}

	/**
	 * The most texts one {@link #embed} call takes.
	 * @return the model's {@code max-texts}
	 */
	public int maxTexts() {
		return this.model.options().maxTexts();
	}

	private int maxTokens() {
		return this.model.options().maxTokens();
	}

	/**
	 * The model that embeds: the primary {@code uform.models} entry's.
	 * @return the model
	 */
	public TextEmbeddingModel model() {
		return this.model;
	}

	/**
	 * Threads that embed.
	 * @return the RAM executor's
	 */
	public int threads() {
		return this.executor.threads();
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
	 * @param batch requests embedded together with this one, itself included
	 * @param embedMicros time to embed the batch on the executor
	 * @param scanPath what scanned
	 * @param scanMicros time to scan the passages
	 * @param passages passages searched
	 * @param found best first
	 */
	public record Result(int tokens, int batch, long embedMicros, String scanPath, long scanMicros, int passages, List<Found> found) {
	}
}
