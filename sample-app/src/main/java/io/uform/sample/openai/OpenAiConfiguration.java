package io.uform.sample.openai;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.sample.search.EmbeddingProperties;

/**
 * The models the OpenAI-compatible route serves: every {@code TextEmbeddingModel} bean, the sample's
 * search model and the starter's {@code uform.models.*} entries.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
class OpenAiConfiguration {

	@Bean
	ServedModels servedModels(ListableBeanFactory beans, EmbeddingProperties properties) {
		return new ModelBeansServedModels(beans, properties.maxTexts());
	}
}
