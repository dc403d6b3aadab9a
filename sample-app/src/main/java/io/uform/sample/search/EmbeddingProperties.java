package io.uform.sample.search;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The embedding model and its API's limits ({@code sample.embedding.*}).
 *
 * @param enabled whether to load the model, index the passages and serve text search and
 *        {@code POST /embed}; off, the application serves the synthetic vectors only
 *        ({@code sample.vectors.enabled}), without the model's jars (as on a GPU machine's check)
 * @param maxTexts texts one {@code POST /embed} takes at most, at least 1
 */
@ConfigurationProperties("sample.embedding")
public record EmbeddingProperties(@DefaultValue("true") boolean enabled, @DefaultValue("64") int maxTexts) {

	/** Characters of one text at most: no text of 256 tokens comes near it, and it bounds the body read. */
	public static final int MAX_CHARS = 16 * 1024;

	/**
	 * Checks the limit at binding, so a bad value fails startup naming the property.
	 */
	public EmbeddingProperties {
		if (maxTexts < 1) {
			throw new IllegalArgumentException("sample.embedding.max-texts must be at least 1, was " + maxTexts);
		}
	}
}
