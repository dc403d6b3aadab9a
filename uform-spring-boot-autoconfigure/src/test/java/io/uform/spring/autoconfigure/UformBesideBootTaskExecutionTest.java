package io.uform.spring.autoconfigure;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import io.uform.Executor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The uform executors sit beside Spring Boot's own {@code applicationTaskExecutor}
 * ({@link TaskExecutionAutoConfiguration}) without taking its place: uform's beans are not
 * {@link java.util.concurrent.Executor}s, so Boot's executor is still made, still the one injected as a
 * {@code java.util.concurrent.Executor} or {@link TaskExecutor}, still the one {@code @Async} runs on;
 * and an {@link io.uform.Executor} injected by type is the RAM executor.
 *
 * <p>Both auto-configurations are given together, uform's sorting first (its package comes first), as
 * an application gets them; the VRAM executor is made too (simulated devices).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformBesideBootTaskExecutionTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	@Test
	void bootsApplicationTaskExecutorIsStillMadeAndInjectedByTypeAndUformsByItsOwnType() {
		this.contextRunner.withBean(Consumer.class).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME)
				.hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.hasBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
			Object boots = context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME);
			Consumer consumer = context.getBean(Consumer.class);
			assertThat(consumer.javaExecutor).isSameAs(boots);
			assertThat(consumer.taskExecutor).isSameAs(boots);
			assertThat(consumer.asyncTaskExecutor).isSameAs(boots);
			assertThat(context.getBean(java.util.concurrent.Executor.class)).isSameAs(boots);
			assertThat(context.getBeansOfType(java.util.concurrent.Executor.class))
				.as("java.util.concurrent.Executor beans")
				.containsOnlyKeys(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME);
			assertThat(consumer.uform).isSameAs(context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME));
			assertThat(consumer.uform.kind()).isEqualTo(Executor.Kind.RAM);
		});
	}

	@Test
	void asyncMethodsRunOnBootsExecutorNotOnAUformThread() {
		this.contextRunner.withUserConfiguration(AsyncConfiguration.class).withBean(AsyncWork.class).run((context) -> {
			String thread = context.getBean(AsyncWork.class).threadName().get(10, TimeUnit.SECONDS);
			// "task-" is Boot's default spring.task.execution.thread-name-prefix.
			assertThat(thread).startsWith("task-").doesNotStartWith(UformThreads.PREFIX);
			assertThat(thread).isNotEqualTo(Thread.currentThread().getName());
		});
	}

	@Test
	void bothKindsOfExecutorWorkInTheSameContext() {
		this.contextRunner.withBean(Consumer.class).run((context) -> {
			Consumer consumer = context.getBean(Consumer.class);
			CompletableFuture<String> onBoot = CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(),
					consumer.javaExecutor);
			CompletableFuture<String> onUform = consumer.uform.defer(() -> Thread.currentThread().getName());
			assertThat(onBoot.get(10, TimeUnit.SECONDS)).startsWith("task-");
			assertThat(onUform.get(10, TimeUnit.SECONDS)).startsWith("uform-" + consumer.uform.name() + "-");
		});
	}

	/** Injects executors by type only, as application code does. */
	static class Consumer {

		@Autowired
		java.util.concurrent.Executor javaExecutor;

		@Autowired
		TaskExecutor taskExecutor;

		@Autowired
		AsyncTaskExecutor asyncTaskExecutor;

		@Autowired
		Executor uform;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

	}

	static class AsyncWork {

		@Async
		public CompletableFuture<String> threadName() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}
	}
}
