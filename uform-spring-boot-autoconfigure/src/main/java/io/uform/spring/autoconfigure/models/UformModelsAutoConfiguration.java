package io.uform.spring.autoconfigure.models;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.http.ProblemDetail;

import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

/**
 * Auto-configuration of the text embedding models of {@code uform.models.<name>.*}, where
 * {@code io.uform:uform-onnxruntime} is on the class path. For each entry:
 * <ul>
 * <li>{@code <name>EmbeddingModel}, the uform {@link TextEmbeddingModel}, loaded when its bean is made
 * (a bad file or executor stops startup with a report naming the property) and closed when the
 * context destroys it, before its executor is freed;</li>
 * <li>{@code <name>SpringAiEmbeddingModel}, a {@link UformSpringAiEmbeddingModel}, where Spring AI is on
 * the class path and the application has no Spring AI {@code EmbeddingModel} bean of its own;</li>
 * <li>{@code <name>Langchain4jEmbeddingModel}, a {@link UformLangchain4jEmbeddingModel}, where
 * langchain4j is, on the same terms.</li>
 * </ul>
 * With one entry its beans are primary; with several, only those of the entry that says
 * {@code primary: true}. {@link UformModels} loads them and reports on them (the {@code uform}
 * endpoint and info show the reports); where Micrometer is, {@link UformModelMetrics} binds their meters,
 * where {@code spring-boot-health} is, {@link UformModelsHealthIndicator} is the {@code uformModels}
 * health, and in a web application {@link ModelErrorResponses} answers a model's refusals as 400 and
 * 503 problem details.
 */
@AutoConfiguration(after = UformAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" },
		beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass(TextEmbeddingModel.class)
@Import(ModelBeanRegistrars.Models.class)
public final class UformModelsAutoConfiguration {

	@Bean(name = UformModels.BEAN_NAME)
	@ConditionalOnMissingBean(name = UformModels.BEAN_NAME)
	static UformModels uformModels(Environment environment, BeanFactory beans) {
		return new UformModels(environment, beans);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(org.springframework.ai.embedding.EmbeddingModel.class)
	@Import(ModelBeanRegistrars.SpringAi.class)
	static class SpringAiConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(dev.langchain4j.model.embedding.EmbeddingModel.class)
	@Import(ModelBeanRegistrars.Langchain4j.class)
	static class Langchain4jConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(ProblemDetail.class)
	static class WebConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "uformModelErrorResponses")
		ModelErrorResponses uformModelErrorResponses() {
			return new ModelErrorResponses();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Health.class, ConditionalOnEnabledHealthIndicator.class })
	@ConditionalOnEnabledHealthIndicator("uform")
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "uformModelsHealthIndicator")
		UformModelsHealthIndicator uformModelsHealthIndicator(ConfigurableApplicationContext context, UformModels models) {
			return new UformModelsHealthIndicator(context, models);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "uformModelMetrics")
		UformModelMetrics uformModelMetrics(UformModels models) {
			return new UformModelMetrics(models);
		}
	}
}
