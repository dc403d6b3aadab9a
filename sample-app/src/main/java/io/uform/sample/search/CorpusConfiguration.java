package io.uform.sample.search;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;

/**
 * Generates the corpus at startup, on the RAM executor's threads.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(CorpusProperties.class)
class CorpusConfiguration {

	private static final Log logger = LogFactory.getLog(CorpusConfiguration.class);

	@Bean
	Corpus corpus(CorpusProperties properties, Executor executor) {
		long start = System.nanoTime();
		Corpus corpus = Corpus.generate(properties, executor);
		logger.info("Generated " + corpus.rows() + " x " + corpus.dimensions() + " corpus (seed " + properties.seed()
				+ ") in " + (System.nanoTime() - start) / 1_000_000 + " ms");
		return corpus;
	}

	@Bean
	FilterRegistrationBean<SearchBodyLimit> searchBodyLimit(CorpusProperties properties) {
		FilterRegistrationBean<SearchBodyLimit> registration = new FilterRegistrationBean<>(
				new SearchBodyLimit(properties.dimensions()));
		registration.addUrlPatterns("/search");
		return registration;
	}
}
