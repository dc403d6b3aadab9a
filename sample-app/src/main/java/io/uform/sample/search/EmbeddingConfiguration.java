package io.uform.sample.search;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.sample.embedding.EmbeddingMetrics;
import io.uform.sample.embedding.ExecutorEmbedder;
import io.uform.sample.embedding.MiniLm;
import io.uform.sample.passages.DocumentSource;

/**
 * The embedding model, served on the RAM executor, and the passage index it builds in the background:
 * the documents are read and split at startup (so a wrong {@code sample.corpus.path} fails it), and
 * embedded after it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CorpusProperties.class)
class EmbeddingConfiguration {

	private static final Log logger = LogFactory.getLog(EmbeddingConfiguration.class);

	@Bean(destroyMethod = "close")
	MiniLm miniLm() {
		long start = System.nanoTime();
		MiniLm model = MiniLm.load();
		logger.info("Loaded all-MiniLM-L6-v2 (quantized, " + MiniLm.DIMENSIONS + " dimensions) in "
				+ (System.nanoTime() - start) / 1_000_000 + " ms");
		return model;
	}

	@Bean
	ExecutorEmbedder executorEmbedder(MiniLm model, Executor executor) {
		return new ExecutorEmbedder(model, executor);
	}

	@Bean
	EmbeddingMetrics embeddingMetrics(MeterRegistry registry) {
		return new EmbeddingMetrics(registry);
	}

	@Bean
	PassageIndex passageIndex(CorpusProperties properties) {
		PassageIndex index = new PassageIndex(DocumentSource.passages(properties.path()));
		logger.info("Corpus: " + index.passages().size() + " passages from "
				+ ((properties.path() != null) ? properties.path() : "the bundled docs") + "; indexing after startup");
		return index;
	}

	@Bean
	PassageIndexer passageIndexer(PassageIndex index, ExecutorEmbedder embedder, Executor executor,
			EmbeddingMetrics metrics, ApplicationEventPublisher events, CorpusProperties properties) {
		return new PassageIndexer(index, embedder, executor, metrics, events, properties.batchSize());
	}

	@Bean
	TextSearch textSearch(ExecutorEmbedder embedder, Executor executor, PassageIndex index, EmbeddingMetrics metrics,
			EmbeddingProperties properties) {
		return new TextSearch(embedder, executor, index, metrics, SearchService.SLOT_WAIT, properties.maxTexts());
	}
}
