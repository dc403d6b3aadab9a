package io.uform.sample.search;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.onnxruntime.TextEmbeddingModel;
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
	PassageIndex passageIndex(CorpusProperties properties) {
		PassageIndex index = new PassageIndex(DocumentSource.passages(properties.path()));
		logger.info("Corpus: " + index.passages().size() + " passages from "
				+ ((properties.path() != null) ? properties.path() : "the bundled docs") + "; indexing after startup");
		return index;
	}

	@Bean
	PassageIndexer passageIndexer(PassageIndex index, TextEmbeddingModel model,
			ApplicationEventPublisher events, CorpusProperties properties) {
		return new PassageIndexer(index, model, events, properties.batchSize());
	}

	@Bean
	TextSearch textSearch(TextEmbeddingModel model, Executor executor, PassageIndex index) {
		return new TextSearch(model, executor, index);
	}
}
