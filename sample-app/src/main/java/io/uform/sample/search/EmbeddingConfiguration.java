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
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.embedding.EmbeddingMetrics;
import io.uform.sample.passages.DocumentSource;

/**
 * The passage index and the text search over it, with the search's model: the primary
 * {@code uform.models} entry ({@code sample-models.yml}), which the starter loads on the RAM executor.
 * The documents are read and split at startup (so a wrong {@code sample.corpus.path} fails it), and
 * embedded after it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CorpusProperties.class)
class EmbeddingConfiguration {

	private static final Log logger = LogFactory.getLog(EmbeddingConfiguration.class);

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
	PassageIndexer passageIndexer(PassageIndex index, TextEmbeddingModel model, EmbeddingMetrics metrics,
			ApplicationEventPublisher events, CorpusProperties properties) {
		return new PassageIndexer(index, model, metrics, events, properties.batchSize());
	}

	@Bean
	TextSearch textSearch(TextEmbeddingModel model, Executor executor, PassageIndex index, EmbeddingMetrics metrics) {
		return new TextSearch(model, executor, index, metrics);
	}
}
