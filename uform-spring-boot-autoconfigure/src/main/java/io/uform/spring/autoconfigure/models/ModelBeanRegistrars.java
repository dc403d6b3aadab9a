package io.uform.spring.autoconfigure.models;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.RuntimeBeanReference;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

import io.uform.Executor;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

/**
 * Registers the beans of each {@code uform.models} entry, as Boot registers a bean per configured
 * instance: the names are read from the environment when the configuration is parsed, and each bean is
 * a definition (no instance supplier), so that Spring AOT can write it out. A bean the application
 * defines itself wins: the uform model's by its name, the Spring AI and langchain4j ones by their type
 * (as {@code @ConditionalOnMissingBean} would), since an application that brings its own
 * {@code EmbeddingModel} means that one.
 */
final class ModelBeanRegistrars {

	private ModelBeanRegistrars() {
	}

	/**
	 * Each entry's uform {@link TextEmbeddingModel}, made by {@link UformModels#load}. Where the application
	 * has a {@code TextEmbeddingModel} bean of its own, the entries' are neither primary nor default
	 * candidates (as the VRAM executor is not): injection by type keeps meaning the application's model,
	 * and the entries' are injected by name.
	 */
	static final class Models extends Registrar {

		@Override
		boolean applicationHasItsOwn(BeanDefinitionRegistry registry) {
			return registry instanceof ListableBeanFactory beans
					&& beans.getBeanNamesForType(TextEmbeddingModel.class, true, false).length > 0;
		}

		@Override
		void register(String name, boolean primary, boolean applicationHasItsOwn, UformModelProperties entry,
				BeanDefinitionRegistry registry) {
			String bean = ModelEntries.modelBean(name);
			String executor = ModelEntries.executorBean(entry);
			checkExecutor(name, entry, executor, registry);
			if (registry.containsBeanDefinition(bean)) {
				return;
			}
			RootBeanDefinition definition = new RootBeanDefinition();
			definition.setTargetType(TextEmbeddingModel.class);
			definition.setFactoryBeanName(UformModels.BEAN_NAME);
			definition.setFactoryMethodName("load");
			definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
			// Made after its executor, and so destroyed (closed) before the executor is freed.
			definition.setDependsOn(executor);
			definition.setPrimary(primary && !applicationHasItsOwn);
			definition.setDefaultCandidate(!applicationHasItsOwn);
			definition.setDestroyMethodName("close");
			definition.setRole(BeanDefinition.ROLE_APPLICATION);
			registry.registerBeanDefinition(bean, definition);
		}

		/**
		 * The entry's executor bean must exist: the report says which are there, or how to get a VRAM one.
		 * The starter's executors are registered by now ({@code UformAutoConfiguration} comes first), and
		 * the application's own beans before any auto-configuration.
		 */
		private static void checkExecutor(String name, UformModelProperties entry, String executor,
				BeanDefinitionRegistry registry) {
			if (registry.containsBeanDefinition(executor) || registry.isAlias(executor)) {
				return;
			}
			String property = ModelEntries.property(name, "executor");
			if (executor.equals(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)) {
				throw new InvalidConfigurationPropertyValueException(property, entry.getExecutor(), "there is no VRAM "
						+ "executor: uform.vram.enabled is false, or auto (the default) and this process sees no GPU. On a "
						+ "machine with an NVIDIA GPU, set uform.vram.enabled=true to be told why none was found; run the "
						+ "model with executor: ram where there is no GPU");
			}
			List<String> executors = (registry instanceof ListableBeanFactory beans)
					? Arrays.asList(beans.getBeanNamesForType(Executor.class, true, false)) : List.of();
			throw new InvalidConfigurationPropertyValueException(property, entry.getExecutor(), "there is no "
					+ "io.uform.Executor bean named '" + executor + "'. Executor beans: " + executors + "; write 'ram', "
					+ "'vram' or the bean name of one of them");
		}
	}

	/** Each entry's Spring AI {@code EmbeddingModel}, over its uform model. */
	static final class SpringAi extends Adapters {

		SpringAi() {
			super(org.springframework.ai.embedding.EmbeddingModel.class, UformSpringAiEmbeddingModel.class);
		}

		@Override
		String bean(String name) {
			return ModelEntries.springAiBean(name);
		}
	}

	/** Each entry's langchain4j {@code EmbeddingModel}, over its uform model. */
	static final class Langchain4j extends Adapters {

		Langchain4j() {
			super(dev.langchain4j.model.embedding.EmbeddingModel.class, UformLangchain4jEmbeddingModel.class);
		}

		@Override
		String bean(String name) {
			return ModelEntries.langchain4jBean(name);
		}
	}

	/**
	 * The beans of another library's interface: an adapter per entry, made with the entry's uform model
	 * and, by type, whatever else its constructor takes; none where the application has a bean of that
	 * interface already.
	 */
	abstract static class Adapters extends Registrar {

		private final Class<?> api;

		private final Class<?> adapter;

		Adapters(Class<?> api, Class<?> adapter) {
			this.api = api;
			this.adapter = adapter;
		}

		abstract String bean(String name);

		@Override
		boolean applicationHasItsOwn(BeanDefinitionRegistry registry) {
			return registry instanceof ListableBeanFactory beans && beans.getBeanNamesForType(this.api, true, false).length > 0;
		}

		@Override
		void register(String name, boolean primary, boolean applicationHasItsOwn, UformModelProperties entry,
				BeanDefinitionRegistry registry) {
			if (applicationHasItsOwn) {
				return;
			}
			RootBeanDefinition definition = new RootBeanDefinition(this.adapter);
			definition.getConstructorArgumentValues()
				.addIndexedArgumentValue(0, new RuntimeBeanReference(ModelEntries.modelBean(name)));
			definition.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
			definition.setPrimary(primary);
			registry.registerBeanDefinition(bean(name), definition);
		}
	}

	/** Reads the entries once and registers each one's bean. */
	abstract static class Registrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

		private Environment environment;

		@Override
		public void setEnvironment(Environment environment) {
			this.environment = environment;
		}

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			Map<String, UformModelProperties> entries = ModelEntries.bind(this.environment);
			if (entries.isEmpty()) {
				return;
			}
			// Asked once, before any of these is registered: the application's beans are registered by now.
			boolean own = applicationHasItsOwn(registry);
			entries.forEach((name, entry) -> register(name, ModelEntries.primary(name, entries), own, entry, registry));
		}

		/** Whether the application defines a bean of the type these are. */
		abstract boolean applicationHasItsOwn(BeanDefinitionRegistry registry);

		abstract void register(String name, boolean primary, boolean applicationHasItsOwn, UformModelProperties entry,
				BeanDefinitionRegistry registry);
	}
}
