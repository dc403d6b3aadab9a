package io.uform.spring.autoconfigure.models;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.onnxruntime.EmbeddingRefusedException;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The beans {@code uform.models.*} makes: which ones for which class path, which are primary, when they
 * back off, what each property changes, and the order they close in. Every context loads the real test
 * model.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UformModelsAutoConfigurationTest {

	private static final String SPRING_AI = "minilmSpringAiEmbeddingModel";

	private static final String LANGCHAIN4J = "minilmLangchain4jEmbeddingModel";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformModelsAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2");

	@Test
	void oneModelIsAUformSpringAiAndLangchain4jBeanOnTheRamExecutorAndPrimary() {
		this.runner.withPropertyValues(MiniLm.entry("minilm")).run((context) -> {
			TextEmbeddingModel model = context.getBean("minilmEmbeddingModel", TextEmbeddingModel.class);
			assertThat(context.getBean(TextEmbeddingModel.class)).isSameAs(model);
			assertThat(model.executor()).isSameAs(context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME));
			assertThat(model.dimensions()).isEqualTo(MiniLm.DIMENSIONS);
			assertThat(context.getBean(org.springframework.ai.embedding.EmbeddingModel.class))
				.isSameAs(context.getBean(SPRING_AI));
			assertThat(context.getBean(dev.langchain4j.model.embedding.EmbeddingModel.class))
				.isSameAs(context.getBean(LANGCHAIN4J));
			float[] vector = context.getBean(org.springframework.ai.embedding.EmbeddingModel.class).embed("uform");
			assertThat(vector).isEqualTo(model.embed("uform"));
			assertThat(context.getBean(dev.langchain4j.model.embedding.EmbeddingModel.class).embed("uform").content()
				.vector()).isEqualTo(vector);
		});
	}

	@Test
	void anAsyncMethodOnTheRamExecutorEmbedsThroughTheSpringAiAndLangchain4jBeans() {
		// The method runs on the executor's deferred thread: a model that deferred from there would wait
		// for its own call behind the method's, and hang the executor for good.
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withPropertyValues("uform.ram.async-executor=true")
			.withUserConfiguration(AsyncEmbedding.class)
			.run((context) -> {
				AsyncEmbedding embedding = context.getBean(AsyncEmbedding.class);
				float[] springAi = embedding.springAi(context.getBean(SPRING_AI,
						org.springframework.ai.embedding.EmbeddingModel.class), "hello")
					.get(20, TimeUnit.SECONDS);
				float[] langchain4j = embedding.langchain4j(context.getBean(LANGCHAIN4J,
						dev.langchain4j.model.embedding.EmbeddingModel.class), "hello")
					.get(20, TimeUnit.SECONDS);
				assertThat(springAi).hasSize(MiniLm.DIMENSIONS)
					.containsExactly(context.getBean(TextEmbeddingModel.class).embed("hello"));
				assertThat(langchain4j).containsExactly(springAi);
			});
	}

	@Test
	void noModelsMakeNoModelBeans() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(TextEmbeddingModel.class)
				.doesNotHaveBean(org.springframework.ai.embedding.EmbeddingModel.class)
				.doesNotHaveBean(dev.langchain4j.model.embedding.EmbeddingModel.class);
			assertThat(context.getBean(UformModels.class).reports()).isEmpty();
		});
	}

	@Test
	void withoutSpringAiOnlyTheUformAndLangchain4jBeansAreMade() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.ai."))
			.withPropertyValues(MiniLm.entry("minilm"))
			.run((context) -> assertThat(context).hasBean("minilmEmbeddingModel").hasBean(LANGCHAIN4J)
				.doesNotHaveBean(SPRING_AI));
	}

	@Test
	void withoutLangchain4jOnlyTheUformAndSpringAiBeansAreMade() {
		this.runner.withClassLoader(new FilteredClassLoader("dev.langchain4j."))
			.withPropertyValues(MiniLm.entry("minilm"))
			.run((context) -> assertThat(context).hasBean("minilmEmbeddingModel").hasBean(SPRING_AI)
				.doesNotHaveBean(LANGCHAIN4J));
	}

	@Test
	void withNeitherLibraryOnlyTheUformModelIsMade() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.ai.", "dev.langchain4j."))
			.withPropertyValues(MiniLm.entry("minilm"))
			.run((context) -> assertThat(context).hasSingleBean(TextEmbeddingModel.class).doesNotHaveBean(SPRING_AI)
				.doesNotHaveBean(LANGCHAIN4J));
	}

	@Test
	void withoutUformOnnxruntimeTheModelsAreLeftOutAndTheExecutorsStay() {
		this.runner.withClassLoader(new FilteredClassLoader("io.uform.onnxruntime."))
			.withPropertyValues(MiniLm.entry("minilm"))
			.run((context) -> assertThat(context).hasNotFailed().hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(UformModels.BEAN_NAME).doesNotHaveBean("minilmEmbeddingModel"));
	}

	@Test
	void ofSeveralModelsNoneIsPrimaryUnlessOneSaysSo() {
		ApplicationContextRunner two = this.runner.withPropertyValues(MiniLm.entry("first"))
			.withPropertyValues(MiniLm.entry("second"));
		two.run((context) -> {
			assertThat(context).getBeans(TextEmbeddingModel.class).containsOnlyKeys("firstEmbeddingModel",
					"secondEmbeddingModel");
			assertThatThrownBy(() -> context.getBean(TextEmbeddingModel.class))
				.isInstanceOf(NoUniqueBeanDefinitionException.class);
			assertThatThrownBy(() -> context.getBean(org.springframework.ai.embedding.EmbeddingModel.class))
				.isInstanceOf(NoUniqueBeanDefinitionException.class);
		});
		two.withPropertyValues("uform.models.second.primary=true").run((context) -> {
			assertThat(context.getBean(TextEmbeddingModel.class).name()).isEqualTo("second");
			assertThat(context.getBean(org.springframework.ai.embedding.EmbeddingModel.class))
				.isSameAs(context.getBean("secondSpringAiEmbeddingModel"));
			assertThat(context.getBean(dev.langchain4j.model.embedding.EmbeddingModel.class).modelName())
				.isEqualTo("second");
		});
	}

	@Test
	void twoPrimaryModelsAreRefusedNamingTheSecond() {
		this.runner.withPropertyValues(MiniLm.entry("first"))
			.withPropertyValues(MiniLm.entry("second"))
			.withPropertyValues("uform.models.first.primary=true", "uform.models.second.primary=true")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("uform.models.second.primary")
				.hasMessageContaining("model 'first' is primary already"));
	}

	@Test
	void anApplicationsOwnSpringAiEmbeddingModelMakesTheStartersBackOff() {
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withUserConfiguration(OwnSpringAiModel.class)
			.run((context) -> {
				assertThat(context).getBeans(org.springframework.ai.embedding.EmbeddingModel.class)
					.containsOnlyKeys("ownEmbeddingModel");
				assertThat(context).hasBean("minilmEmbeddingModel").hasBean(LANGCHAIN4J);
			});
	}

	@Test
	void anApplicationsOwnLangchain4jEmbeddingModelMakesTheStartersBackOff() {
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withBean("ownEmbeddingModel", dev.langchain4j.model.embedding.EmbeddingModel.class,
					() -> new dev.langchain4j.model.embedding.EmbeddingModel() {
					})
			.run((context) -> {
				assertThat(context).getBeans(dev.langchain4j.model.embedding.EmbeddingModel.class)
					.containsOnlyKeys("ownEmbeddingModel");
				assertThat(context).hasBean(SPRING_AI);
			});
	}

	@Test
	void anApplicationsOwnBeanOfAModelsNameReplacesThatModelAndTheAdaptersServeIt() {
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withPropertyValues(MiniLm.entry("other"))
			.withUserConfiguration(OwnUformModel.class)
			.run((context) -> {
				assertThat(context.getBean("minilmEmbeddingModel", TextEmbeddingModel.class).options().maxTokens())
					.isEqualTo(16);
				assertThat(context.getBean(SPRING_AI, org.springframework.ai.embedding.EmbeddingModel.class)
					.embed("uform")).isEqualTo(context.getBean("minilmEmbeddingModel", TextEmbeddingModel.class)
						.embed("uform"));
			});
	}

	@Test
	void anApplicationsOwnModelBeanKeepsInjectionByTypeAndTheStartersIsInjectedByName() {
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withUserConfiguration(OwnUformModelOfAnotherName.class)
			.run((context) -> {
				assertThat(context.getBean(TextEmbeddingModel.class).name()).isEqualTo("mine");
				assertThat(context.getBean("minilmEmbeddingModel", TextEmbeddingModel.class).name()).isEqualTo("minilm");
				// The adapters are the starter's only Spring AI and langchain4j models: still primary.
				assertThat(context.getBean(org.springframework.ai.embedding.EmbeddingModel.class))
					.isSameAs(context.getBean(SPRING_AI));
			});
	}

	@Test
	void poolingNormalizeMaxTokensTruncateAndMaxBatchTokensReachTheModel() {
		String longText = "word ".repeat(40);
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withPropertyValues("uform.models.minilm.max-tokens=8", "uform.models.minilm.max-batch-tokens=100")
			.run((context) -> {
				TextEmbeddingModel model = context.getBean(TextEmbeddingModel.class);
				assertThat(model.options().maxBatchTokens()).isEqualTo(100);
				assertThat(model.options().maxTokens()).isEqualTo(8);
				assertThatThrownBy(() -> model.embed(longText)).isInstanceOf(EmbeddingRefusedException.class)
					.hasMessageContaining("tokens long");
			});
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withPropertyValues("uform.models.minilm.max-tokens=8", "uform.models.minilm.truncate=true")
			.run((context) -> assertThat(context.getBean(TextEmbeddingModel.class).embed(longText))
				.hasSize(MiniLm.DIMENSIONS));
		float[][] mean = new float[1][];
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.run((context) -> mean[0] = context.getBean(TextEmbeddingModel.class).embed("executors own threads"));
		assertThat(norm(mean[0])).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withPropertyValues("uform.models.minilm.pooling=cls", "uform.models.minilm.normalize=false")
			.run((context) -> {
				TextEmbeddingModel model = context.getBean(TextEmbeddingModel.class);
				assertThat(model.options().pooling()).isEqualTo(io.uform.onnxruntime.Pooling.CLS);
				float[] cls = model.embed("executors own threads");
				assertThat(cls).isNotEqualTo(mean[0]);
				assertThat(norm(cls)).isNotCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-2));
			});
	}

	@Test
	void maxTextsAndSlotWaitReachTheModelAndARequestWithMoreTextsIsRefused() {
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withPropertyValues("uform.models.minilm.max-texts=2", "uform.models.minilm.slot-wait=250ms")
			.run((context) -> {
				TextEmbeddingModel model = context.getBean(TextEmbeddingModel.class);
				assertThat(model.options().maxTexts()).isEqualTo(2);
				assertThat(model.options().slotWait()).isEqualTo(java.time.Duration.ofMillis(250));
				assertThat(model.embed(List.of("one", "two"))).hasNumberOfRows(2);
				assertThatThrownBy(() -> model.embed(List.of("one", "two", "three")))
					.isInstanceOf(EmbeddingRefusedException.class)
					.hasMessageContaining("3 texts");
			});
	}

	@Test
	void withoutMaxTextsAndSlotWaitAModelTakesTheLibrarysDefaultsAndWaitsForASlot() {
		this.runner.withPropertyValues(MiniLm.entry("minilm")).run((context) -> {
			TextEmbeddingModel model = context.getBean(TextEmbeddingModel.class);
			assertThat(model.options().maxTexts()).isEqualTo(io.uform.onnxruntime.TextEmbeddingOptions.defaults().maxTexts())
				.isEqualTo(1024);
			assertThat(model.options().slotWait()).isNull();
		});
	}

	@Test
	void everyEntryGetsItsOwnSlotWait() {
		this.runner.withPropertyValues(MiniLm.entry("first"))
			.withPropertyValues(MiniLm.entry("second"))
			.withPropertyValues("uform.models.first.slot-wait=1s", "uform.models.second.slot-wait=0")
			.run((context) -> {
				assertThat(context.getBean("firstEmbeddingModel", TextEmbeddingModel.class).options().slotWait())
					.isEqualTo(java.time.Duration.ofSeconds(1));
				assertThat(context.getBean("secondEmbeddingModel", TextEmbeddingModel.class).options().slotWait())
					.isEqualTo(java.time.Duration.ZERO);
			});
	}

	@Test
	void theExecutorPropertyTakesTheBeanNameOfAnApplicationsExecutor() {
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withPropertyValues("uform.models.minilm.executor=embeddingExecutor")
			.withBean("embeddingExecutor", Executor.class,
					() -> Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1)), (definition) -> {
						definition.setDestroyMethodName("free");
						definition.setAutowireCandidate(false);
					})
			.run((context) -> assertThat(context.getBean(TextEmbeddingModel.class).executor())
				.isSameAs(context.getBean("embeddingExecutor")));
	}

	@Test
	void aModelIsClosedBeforeItsExecutorIsFreed() {
		List<String> destroyed = new ArrayList<>();
		List<Executor.State> executorWhenModelClosed = new ArrayList<>();
		this.runner.withPropertyValues(MiniLm.entry("minilm"))
			.withBean(DestructionOrder.class, () -> new DestructionOrder(destroyed, executorWhenModelClosed))
			.run((context) -> {
				TextEmbeddingModel model = context.getBean(TextEmbeddingModel.class);
				assertThat(model.embed("before the close")).hasSize(MiniLm.DIMENSIONS);
				context.close();
				assertThatThrownBy(() -> model.embed("after the close")).isInstanceOf(IllegalStateException.class);
			});
		assertThat(destroyed).containsSubsequence("minilmEmbeddingModel", "uformRamExecutorLifecycle");
		assertThat(executorWhenModelClosed).singleElement().isNotEqualTo(Executor.State.FREED);
	}

	@Test
	@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
	void theLoadIsLoggedWithItsTimeAndWhatWasLoaded(org.springframework.boot.test.system.CapturedOutput output) {
		this.runner.withPropertyValues(MiniLm.entry("minilm")).run((context) -> assertThat(output)
			.containsPattern("Model 'minilm' loaded on uformRamExecutor in \\d+ ms \\(384 dimensions, mean pooling, "
					+ "class path resource \\[all-minilm-l6-v2-q.onnx\\]\\)"));
	}

	private static double norm(float[] vector) {
		double squares = 0;
		for (float x : vector) {
			squares += (double) x * x;
		}
		return Math.sqrt(squares);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnSpringAiModel {

		@Bean
		org.springframework.ai.embedding.EmbeddingModel ownEmbeddingModel() {
			return new org.springframework.ai.embedding.EmbeddingModel() {

				@Override
				public org.springframework.ai.embedding.EmbeddingResponse call(
						org.springframework.ai.embedding.EmbeddingRequest request) {
					return new org.springframework.ai.embedding.EmbeddingResponse(List.of());
				}

				@Override
				public float[] embed(org.springframework.ai.document.Document document) {
					return new float[0];
				}
			};
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnUformModel {

		@Bean(destroyMethod = "close")
		TextEmbeddingModel minilmEmbeddingModel(@org.springframework.beans.factory.annotation.Qualifier(
				UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME) Executor executor) {
			return TextEmbeddingModel.load(executor,
					io.uform.onnxruntime.ModelSource.classPath("all-minilm-l6-v2-q.onnx"),
					io.uform.onnxruntime.ModelSource.classPath("all-minilm-l6-v2-q-tokenizer.json"),
					io.uform.onnxruntime.TextEmbeddingOptions.defaults().withName("minilm").withMaxTokens(16));
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnUformModelOfAnotherName {

		@Bean(destroyMethod = "close")
		TextEmbeddingModel embeddingModel(@org.springframework.beans.factory.annotation.Qualifier(
				UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME) Executor executor) {
			return TextEmbeddingModel.load(executor,
					io.uform.onnxruntime.ModelSource.classPath("all-minilm-l6-v2-q.onnx"),
					io.uform.onnxruntime.ModelSource.classPath("all-minilm-l6-v2-q-tokenizer.json"),
					io.uform.onnxruntime.TextEmbeddingOptions.defaults().withName("mine").withMaxTokens(256));
		}
	}

	/** {@code @Async} methods on the RAM executor's view that embed, as a user writes them. */
	@Configuration(proxyBeanMethods = false)
	@org.springframework.scheduling.annotation.EnableAsync
	static class AsyncEmbedding {

		@org.springframework.scheduling.annotation.Async(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
		public java.util.concurrent.CompletableFuture<float[]> springAi(
				org.springframework.ai.embedding.EmbeddingModel model, String text) {
			return java.util.concurrent.CompletableFuture.completedFuture(model.embed(text));
		}

		@org.springframework.scheduling.annotation.Async(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
		public java.util.concurrent.CompletableFuture<float[]> langchain4j(
				dev.langchain4j.model.embedding.EmbeddingModel model, String text) {
			return java.util.concurrent.CompletableFuture.completedFuture(model.embed(text).content().vector());
		}
	}

	/** Records the order beans are destroyed in, and the model's executor's state when the model goes. */
	record DestructionOrder(List<String> destroyed, List<Executor.State> executorWhenModelClosed)
			implements DestructionAwareBeanPostProcessor {

		@Override
		public void postProcessBeforeDestruction(Object bean, String beanName) throws BeansException {
			this.destroyed.add(beanName);
			if (bean instanceof TextEmbeddingModel model) {
				this.executorWhenModelClosed.add(model.executor().statistics().state());
			}
		}
	}
}
