package io.uform.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Auto-configuration for uform executors: {@code uform.ram.*} becomes an {@link ExecutorForRamConfig}
 * bean, and that config the {@code uformRamExecutor} bean, freed when the context stops by an
 * {@link UformExecutorLifecycle} after the web server's graceful shutdown, waiting at most
 * {@code uform.shutdown.await-termination-period} for its deferred calls.
 *
 * <p>The config bean and the executor bean are separate so that a user can replace either; both back
 * off when the user defines their own.
 */
@AutoConfiguration
@ConditionalOnClass(Executor.class)
@EnableConfigurationProperties(UformProperties.class)
public class UformAutoConfiguration {

	/** Name of the RAM executor bean. */
	public static final String RAM_EXECUTOR_BEAN_NAME = "uformRamExecutor";

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "uform.ram.enabled", matchIfMissing = true)
	ExecutorForRamConfig uformRamExecutorConfig(UformProperties properties,
			ObjectProvider<ExecutorForRamConfigCustomizer> customizers) {
		UformProperties.Ram ram = properties.getRam();
		ExecutorForRamConfig config = ExecutorForRamConfig.defaults()
			.withThreads(ram.getThreads())
			.withMemoryDomains(ram.getMemoryDomains())
			.withCpuClass(ram.getCpuClass())
			.withDeferredLimit(ram.getDeferredLimit());
		for (ExecutorForRamConfigCustomizer customizer : customizers.orderedStream().toList()) {
			config = customizer.customize(config);
		}
		return config;
	}

	// destroyMethod stays as the fallback for a context that failed before its lifecycle started; once
	// the lifecycle below has freed the executor it returns at once.
	@Bean(name = RAM_EXECUTOR_BEAN_NAME, destroyMethod = "free")
	@ConditionalOnMissingBean(name = RAM_EXECUTOR_BEAN_NAME)
	@ConditionalOnBooleanProperty(name = "uform.ram.enabled", matchIfMissing = true)
	Executor uformRamExecutor(ExecutorForRamConfig config) {
		return Executor.forRam(config);
	}

	@Bean
	@ConditionalOnBean(name = RAM_EXECUTOR_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformRamExecutorLifecycle")
	UformExecutorLifecycle uformRamExecutorLifecycle(@Qualifier(RAM_EXECUTOR_BEAN_NAME) Executor executor,
			UformProperties properties) {
		return new UformExecutorLifecycle(RAM_EXECUTOR_BEAN_NAME, executor, properties.getShutdown());
	}
}
