package io.uform.spring.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.support.TaskExecutorAdapter;

import io.uform.DeferredCallExecutor;
import io.uform.Executor;

/**
 * The {@link AsyncTaskExecutor} views of the starter's executors, one per
 * {@code uform.ram.async-executor} / {@code uform.vram.async-executor}: a {@link DeferredCallExecutor}
 * behind Spring's {@link TaskExecutorAdapter}, so that {@code @Async("uformRamExecutor")} and
 * {@code CompletableFuture.supplyAsync(task, view)} run tasks as the executor's deferred calls.
 *
 * <p>Each view is declared not a default candidate: a plain {@code AsyncTaskExecutor} bean would make
 * Spring Boot's {@code applicationTaskExecutor} back off, and plain {@code @Async} with it. It carries
 * the executor's bean name as a qualifier, which is how {@code @Async("uformRamExecutor")} finds it:
 * the executor bean of that name is not a {@link java.util.concurrent.Executor}, so it does not
 * compete. A view exists where its executor bean does (the same conditions), and wraps whichever
 * executor bean has that name, the application's included.
 */
final class UformAsyncExecutorConfigurations {

	/** Name of the RAM executor's async view bean; its qualifier is the executor's bean name. */
	static final String RAM_ASYNC_EXECUTOR_BEAN_NAME = "uformRamAsyncExecutor";

	/** Name of the VRAM executor's async view bean. */
	static final String VRAM_ASYNC_EXECUTOR_BEAN_NAME = "uformVramAsyncExecutor";

	private UformAsyncExecutorConfigurations() {
	}

	static AsyncTaskExecutor view(Executor executor, UformProperties.Host properties) {
		Duration maxWait = properties.getAsyncExecutorMaxWait();
		return new TaskExecutorAdapter(DeferredCallExecutor.of(executor, maxWait));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "uform.ram.enabled", matchIfMissing = true)
	@ConditionalOnBooleanProperty("uform.ram.async-executor")
	static class RamAsyncExecutorConfiguration {

		@Bean(name = RAM_ASYNC_EXECUTOR_BEAN_NAME, defaultCandidate = false)
		@Qualifier(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
		@ConditionalOnMissingBean(name = RAM_ASYNC_EXECUTOR_BEAN_NAME)
		AsyncTaskExecutor uformRamAsyncExecutor(@Qualifier(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME) Executor executor,
				UformProperties properties) {
			return view(executor, properties.getRam());
		}
	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(OnVramEnabledCondition.class)
	@ConditionalOnBooleanProperty("uform.vram.async-executor")
	static class VramAsyncExecutorConfiguration {

		@Bean(name = VRAM_ASYNC_EXECUTOR_BEAN_NAME, defaultCandidate = false)
		@Qualifier(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)
		@ConditionalOnMissingBean(name = VRAM_ASYNC_EXECUTOR_BEAN_NAME)
		AsyncTaskExecutor uformVramAsyncExecutor(
				@Qualifier(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME) Executor executor, UformProperties properties) {
			return view(executor, properties.getVram());
		}
	}
}
