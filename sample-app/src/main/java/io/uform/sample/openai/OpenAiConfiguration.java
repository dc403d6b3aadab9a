package io.uform.sample.openai;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The models the OpenAI-compatible route serves: every {@code TextEmbeddingModel} bean, the starter's
 * {@code uform.models.*} entries ({@code sample-models.yml}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
class OpenAiConfiguration {

	@Bean
	ServedModels servedModels(ListableBeanFactory beans) {
		return new ModelBeansServedModels(beans);
	}
}
