package io.uform.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.ExecutorHooks;
import io.uform.UformException;

/**
 * The executors' configurations, imported by {@link UformAutoConfiguration}: for each of RAM and VRAM
 * the config bean (from {@code uform.ram.*} or {@code uform.vram.*}, then the customizer beans), the
 * executor bean made from it, and the executor's {@link UformExecutorLifecycle}. Both executor beans
 * are made by {@link ExecutorConfiguration#executor}.
 */
final class UformExecutorConfigurations {

	private UformExecutorConfigurations() {
	}

	/**
	 * What the RAM and VRAM configurations share: the executor bean's making, with its hooks, its
	 * startup line, its lifecycle, and the blame of a refused field on whoever set it.
	 * @param <C> the config type
	 * @param <K> the customizer type
	 */
	abstract static class ExecutorConfiguration<C extends Record, K> {

		private final String beanName;

		private final Environment environment;

		final ConfigFieldBlame<C, K> blame;

		ExecutorConfiguration(String beanName, Environment environment, ConfigFieldBlame<C, K> blame) {
			this.beanName = beanName;
			this.environment = environment;
			this.blame = blame;
		}

		/** uform's executor of that config, with those hooks. */
		abstract Executor make(C config, ExecutorHooks hooks);

		/**
		 * The executor bean: made, logged and handed to its lifecycle; a field uform refuses fails startup
		 * naming the property or bean that set it. Its {@code fork-context-propagation} is bound alone,
		 * to its type, rather than read from {@link UformProperties}: an executor made from the
		 * application's config bean does not depend on the rest of {@code uform.*} binding
		 * ({@code uform.shutdown.*}, say), so that its lifecycle frees it when that fails the start; and
		 * binding the whole {@code uform.ram.*} section again here measurably lengthened the executor
		 * beans' startup ({@code benchmarks/startup.sh}, 2026-12-05).
		 */
		final Executor executor(C config, UformExecutorLifecycle lifecycle, ObjectProvider<UformExecutorHooks> hooks) {
			boolean forkContext = Binder.get(this.environment)
				.bind(this.blame.prefix() + ".fork-context-propagation", Boolean.class)
				.orElse(false);
			ExecutorHooks made = hooks(hooks.getIfAvailable(), forkContext);
			try {
				return lifecycle.manage(UformStartupLog.made(this.beanName, make(config, made)));
			}
			catch (UformException ex) {
				throw this.blame.blame(this.beanName, ex, config);
			}
		}

		/**
		 * The hooks an executor bean is made with, from the {@link UformExecutorHooks} bean (the
		 * starter's observes deferred calls and carries context); none without one. A
		 * fork-context-propagation property set to {@code true} that no fork decorator honours fails
		 * startup naming it.
		 */
		private ExecutorHooks hooks(@Nullable UformExecutorHooks factory, boolean forkContext) {
			ExecutorHooks hooks = (factory != null) ? factory.hooksFor(this.beanName, forkContext) : ExecutorHooks.NONE;
			if (hooks == null) {
				throw new IllegalStateException("UformExecutorHooks bean (" + factory.getClass().getName() + ") returned "
						+ "null for executor bean '" + this.beanName + "'; return ExecutorHooks.NONE for no hooks");
			}
			if (forkContext && hooks.forks() == null) {
				throw new InvalidConfigurationPropertyValueException(this.blame.prefix() + ".fork-context-propagation",
						true, "Forks carry the forking thread's context with Micrometer's context-propagation library, "
								+ "and executor bean '" + this.beanName + "' got no fork decorator (UformExecutorHooks "
								+ "bean: " + ((factory != null) ? factory.getClass().getName() : "none") + "). Add "
								+ "io.micrometer:context-propagation to the class path (Micrometer Tracing brings it), "
								+ "or remove the property");
			}
			return hooks;
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "uform.ram.enabled", matchIfMissing = true)
	static class RamExecutorConfiguration extends ExecutorConfiguration<ExecutorForRamConfig, ExecutorForRamConfigCustomizer> {

		RamExecutorConfiguration(Environment environment, ListableBeanFactory beans) {
			super(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, environment,
					new ConfigFieldBlame<>("uform.ram", ExecutorForRamConfig.class, ExecutorForRamConfigCustomizer.class,
							ExecutorForRamConfigCustomizer::customize, environment, beans));
		}

		@Bean
		@ConditionalOnMissingBean
		ExecutorForRamConfig uformRamExecutorConfig(UformProperties properties,
				ObjectProvider<ExecutorForRamConfigCustomizer> customizers) {
			return this.blame.customize(ramConfig(properties), customizers);
		}

		/**
		 * The RAM executor's config as {@code uform.ram.*} alone makes it, before any customizer: every
		 * field through its {@code with} method, an unset property leaving the field absent.
		 */
		static ExecutorForRamConfig ramConfig(UformProperties properties) {
			UformProperties.Ram ram = properties.getRam();
			return ExecutorForRamConfig.defaults()
				.withMemoryDomains(ram.getMemoryDomains())
				.withCpuClass(ram.getCpuClass())
				.withDeferredLimit(ram.getDeferredLimit())
				.withThreads(ram.getThreads());
		}

		// No destroy method: its lifecycle, which it depends on, frees it within the shutdown period.
		@Bean(name = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, destroyMethod = "")
		@Conditional(OnNoUserRamExecutorCondition.class)
		Executor uformRamExecutor(ExecutorForRamConfig config,
				@Qualifier("uformRamExecutorLifecycle") UformExecutorLifecycle lifecycle,
				ObjectProvider<UformExecutorHooks> hooks) {
			return executor(config, lifecycle, hooks);
		}

		@Override
		Executor make(ExecutorForRamConfig config, ExecutorHooks hooks) {
			return Executor.forRam(config, hooks);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(OnVramEnabledCondition.class)
	static class VramExecutorConfiguration
			extends ExecutorConfiguration<ExecutorForVramConfig, ExecutorForVramConfigCustomizer> {

		VramExecutorConfiguration(Environment environment, ListableBeanFactory beans) {
			super(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, environment,
					new ConfigFieldBlame<>("uform.vram", ExecutorForVramConfig.class, ExecutorForVramConfigCustomizer.class,
							ExecutorForVramConfigCustomizer::customize, environment, beans));
		}

		@Bean
		@ConditionalOnMissingBean
		ExecutorForVramConfig uformVramExecutorConfig(UformProperties properties,
				ObjectProvider<ExecutorForVramConfigCustomizer> customizers) {
			return this.blame.customize(vramConfig(properties), customizers);
		}

		/** The VRAM executor's config as {@code uform.vram.*} alone makes it, built as {@code ramConfig} is. */
		static ExecutorForVramConfig vramConfig(UformProperties properties) {
			UformProperties.Vram vram = properties.getVram();
			DataSize scratchLimit = vram.getScratchLimit();
			return ExecutorForVramConfig.defaults()
				.withMemoryDomains(vram.getMemoryDomains())
				.withCpuClass(vram.getCpuClass())
				.withDeferredLimit(vram.getDeferredLimit())
				.withDevices(vram.getDevices())
				.withGpuClass(vram.getGpuClass())
				.withScratchLimit((scratchLimit != null) ? scratchLimit.toBytes() : null);
		}

		// Not a default candidate: injecting an io.uform.Executor by type keeps meaning the RAM executor;
		// ask for this one by name (@Qualifier("uformVramExecutor")).
		@Bean(name = UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, destroyMethod = "", defaultCandidate = false)
		@ConditionalOnMissingBean(name = UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)
		Executor uformVramExecutor(ExecutorForVramConfig config,
				@Qualifier("uformVramExecutorLifecycle") UformExecutorLifecycle lifecycle,
				ObjectProvider<UformExecutorHooks> hooks) {
			return executor(config, lifecycle, hooks);
		}

		@Override
		Executor make(ExecutorForVramConfig config, ExecutorHooks hooks) {
			return Executor.forVram(config, hooks);
		}
	}

	/**
	 * Each executor bean's lifecycle, the application's own executor bean of the starter's name
	 * included, whatever {@code uform.ram.enabled} and {@code uform.vram.enabled} say: imported after
	 * the executors' configurations, whose beans it looks for.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ExecutorLifecycleConfiguration {

		@Bean
		@ConditionalOnBean(name = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
		@ConditionalOnMissingBean(name = "uformRamExecutorLifecycle")
		UformExecutorLifecycle uformRamExecutorLifecycle() {
			return new UformExecutorLifecycle(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME);
		}

		@Bean
		@ConditionalOnBean(name = UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)
		@ConditionalOnMissingBean(name = "uformVramExecutorLifecycle")
		UformExecutorLifecycle uformVramExecutorLifecycle() {
			return new UformExecutorLifecycle(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
		}
	}
}
