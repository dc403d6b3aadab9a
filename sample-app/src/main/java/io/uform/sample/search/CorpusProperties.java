package io.uform.sample.search;

import java.nio.file.Path;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The text corpus the service indexes at startup ({@code sample.corpus.*}).
 *
 * @param path directory of {@code .md} and {@code .txt} files, read recursively; unset, the project's
 *        docs pages bundled into the jar
 * @param batchSize passages embedded per deferred call while indexing, at least 1
 */
@ConfigurationProperties("sample.corpus")
public record CorpusProperties(@Nullable Path path, @DefaultValue("64") int batchSize) {

	/**
	 * Checks the batch size at binding, so a bad value fails startup naming the property.
	 */
	public CorpusProperties {
		if (batchSize < 1) {
			throw new IllegalArgumentException("sample.corpus.batch-size must be at least 1, was " + batchSize);
		}
	}
}
