package io.uform.sample.search;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.onnxruntime.TextEmbeddingModel;

/**
 * The synthetic vector corpus, generated at startup on the RAM executor's threads where
 * {@code sample.vectors.enabled} is set, and the cap on request bodies.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(VectorsProperties.class)
class CorpusConfiguration {

	private static final Log logger = LogFactory.getLog(CorpusConfiguration.class);

	@Bean
	@ConditionalOnBooleanProperty("sample.vectors.enabled")
	Corpus corpus(VectorsProperties properties, Executor executor) {
		long start = System.nanoTime();
		Corpus corpus = Corpus.generate(properties, executor);
		logger.info("Generated " + corpus.rows() + " x " + corpus.dimensions() + " corpus (seed " + properties.seed()
				+ ") in " + (System.nanoTime() - start) / 1_000_000 + " ms");
		return corpus;
	}

	@Bean
	FilterRegistrationBean<SearchBodyLimit> searchBodyLimit(VectorsProperties vectors) {
		FilterRegistrationBean<SearchBodyLimit> registration = new FilterRegistrationBean<>(
				SearchBodyLimit.forSearch(vectors.enabled() ? vectors.dimensions() : 0));
		registration.addUrlPatterns("/search");
		return registration;
	}

	/** {@code POST /embed} embeds with the primary model: its {@code max-texts} caps the body. */
	@Bean
	FilterRegistrationBean<SearchBodyLimit> embedBodyLimit(ObjectProvider<TextEmbeddingModel> models) {
		FilterRegistrationBean<SearchBodyLimit> registration = new FilterRegistrationBean<>(SearchBodyLimit.forEmbed(
				() -> primaryMaxTexts(models), "the search model's uform.models.<name>.max-texts"));
		registration.addUrlPatterns("/embed");
		return registration;
	}

	/** {@code POST /v1/embeddings} names any model: the largest {@code max-texts} caps the body. */
	@Bean
	FilterRegistrationBean<SearchBodyLimit> openAiBodyLimit(ObjectProvider<TextEmbeddingModel> models) {
		FilterRegistrationBean<SearchBodyLimit> registration = new FilterRegistrationBean<>(SearchBodyLimit.forEmbed(
				() -> models.orderedStream().mapToInt((model) -> model.options().maxTexts()).max().orElse(1),
				"the largest uform.models.<name>.max-texts"));
		registration.addUrlPatterns("/v1/embeddings");
		return registration;
	}

	private static int primaryMaxTexts(ObjectProvider<TextEmbeddingModel> models) {
		TextEmbeddingModel primary = models.getIfUnique();
		return (primary != null) ? primary.options().maxTexts() : 1;
	}
}
