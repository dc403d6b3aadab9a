package io.uform.sample.openai;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.sample.search.TextSearch;

/**
 * The models the OpenAI-compatible route serves: the sample's own, while it has one.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
class OpenAiConfiguration {

	@Bean
	ServedModels servedModels(TextSearch text) {
		return new SampleServedModels(text);
	}
}
