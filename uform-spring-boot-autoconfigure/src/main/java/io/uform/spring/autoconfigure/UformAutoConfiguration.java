package io.uform.spring.autoconfigure;

import java.util.function.BiFunction;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;

/**
 * Auto-configuration for uform executors: {@code uform.ram.*} becomes an {@link ExecutorForRamConfig}
 * bean, and that config the {@code uformRamExecutor} bean, freed when the context stops by an
 * {@link UformExecutorLifecycle} after the web server's graceful shutdown, waiting at most
 * {@code uform.shutdown.await-termination-period} for its deferred calls. {@code uform.vram.*}
 * likewise becomes an {@link ExecutorForVramConfig} and the {@code uformVramExecutor} bean, made where
 * {@code uform.vram.enabled} says ({@code auto}: only where this process sees a GPU); it is not a
 * default candidate, so injecting an {@link Executor} by type still gets the RAM executor.
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

	/** Name of the VRAM executor bean. */
	public static final String VRAM_EXECUTOR_BEAN_NAME = "uformVramExecutor";

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
		return customize(config, customizers, ExecutorForRamConfigCustomizer::customize);
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

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnVramEnabledCondition.class)
	ExecutorForVramConfig uformVramExecutorConfig(UformProperties properties,
			ObjectProvider<ExecutorForVramConfigCustomizer> customizers) {
		UformProperties.Vram vram = properties.getVram();
		ExecutorForVramConfig config = new ExecutorForVramConfig(vram.getDevices(), vram.getGpuClass(),
				vram.getMemoryDomains(), vram.getCpuClass(), null,
				(vram.getScratchLimit() != null) ? vram.getScratchLimit().toBytes() : null, vram.getDeferredLimit());
		return customize(config, customizers, ExecutorForVramConfigCustomizer::customize);
	}

	// Not a default candidate: injecting an io.uform.Executor by type keeps meaning the RAM executor;
	// ask for this one by name (@Qualifier("uformVramExecutor")).
	@Bean(name = VRAM_EXECUTOR_BEAN_NAME, destroyMethod = "free", defaultCandidate = false)
	@ConditionalOnMissingBean(name = VRAM_EXECUTOR_BEAN_NAME)
	@Conditional(OnVramEnabledCondition.class)
	Executor uformVramExecutor(ExecutorForVramConfig config) {
		return Executor.forVram(config);
	}

	@Bean
	@ConditionalOnBean(name = VRAM_EXECUTOR_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformVramExecutorLifecycle")
	UformExecutorLifecycle uformVramExecutorLifecycle(@Qualifier(VRAM_EXECUTOR_BEAN_NAME) Executor executor,
			UformProperties properties) {
		return new UformExecutorLifecycle(VRAM_EXECUTOR_BEAN_NAME, executor, properties.getShutdown());
	}

	/**
	 * Applies the customizer beans to a config in {@code @Order} order, each to the previous one's result.
	 */
	private static <C, K> C customize(C config, ObjectProvider<K> customizers, BiFunction<K, C, C> apply) {
		C customized = config;
		for (K customizer : customizers.orderedStream().toList()) {
			customized = apply.apply(customizer, customized);
		}
		return customized;
	}
}
