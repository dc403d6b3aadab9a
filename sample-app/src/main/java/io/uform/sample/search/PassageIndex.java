package io.uform.sample.search;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.uform.sample.passages.Passage;

/**
 * The passages searched and, once the indexer has embedded them all, their embeddings as a corpus the
 * engines scan (row {@code r} is passage {@code r}).
 *
 * <p>Where threads meet: {@code embedded} is written by the indexer thread after each batch and
 * {@code corpus} once at the end, both volatile; request threads read them. The corpus's vectors are
 * complete before the volatile write that publishes them, so a reader that sees the corpus sees every
 * vector.
 */
public final class PassageIndex {

	private final List<Passage> passages;

	private volatile int embedded;

	private volatile @Nullable Corpus corpus;

	private volatile @Nullable String failure;

	/**
	 * @param passages what is to be indexed, in row order
	 */
	PassageIndex(List<Passage> passages) {
		this.passages = List.copyOf(passages);
	}

	/**
	 * Every passage, embedded or not yet.
	 * @return in row order
	 */
	public List<Passage> passages() {
		return this.passages;
	}

	/**
	 * Passages embedded so far.
	 * @return from 0 to {@code passages().size()}
	 */
	public int embedded() {
		return this.embedded;
	}

	/**
	 * Whether every passage is embedded and searchable.
	 * @return {@code true} once the index is built
	 */
	public boolean ready() {
		return this.corpus != null;
	}

	/**
	 * The passages' embeddings, once built.
	 * @return the corpus
	 * @throws IndexNotReadyException while the index is being built, or when building it failed
	 */
	Corpus corpus() {
		Corpus built = this.corpus;
		if (built == null) {
			String failed = this.failure;
			throw new IndexNotReadyException((failed != null) ? "the passage index could not be built: " + failed
					: "the passage index is being built: " + this.embedded + " of " + this.passages.size()
							+ " passages embedded; retry in a moment (/actuator/health/readiness says when)");
		}
		return built;
	}

	void progress(int embedded) {
		this.embedded = embedded;
	}

	void complete(float[] vectors, int dimensions) {
		this.embedded = this.passages.size();
		this.corpus = Corpus.of(vectors, dimensions);
	}

	void failed(String why) {
		this.failure = why;
	}
}
