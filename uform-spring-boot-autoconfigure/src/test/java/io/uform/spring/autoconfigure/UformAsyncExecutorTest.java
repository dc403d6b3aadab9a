package io.uform.spring.autoconfigure;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import io.uform.Executor;
import io.uform.spring.autoconfigure.observation.UformObservationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code uform.ram.async-executor} (and {@code uform.vram.async-executor}): an {@link AsyncTaskExecutor}
 * view of the executor that {@code @Async("uformRamExecutor")} and {@code CompletableFuture} run on, as
 * deferred calls, beside Spring Boot's {@code applicationTaskExecutor}, which plain {@code @Async} keeps
 * running on. In a context with {@code @EnableAsync}, Boot's task execution and uform's observation, as
 * an application has them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformAsyncExecutorTest {

	private static final String RAM = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME;

	private static final String RAM_VIEW = UformAsyncExecutorConfigurations.RAM_ASYNC_EXECUTOR_BEAN_NAME;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				UformObservationAutoConfiguration.class))
		.withBean(ObservationRegistry.class, UformAsyncExecutorTest::observing)
		.withUserConfiguration(AsyncConfiguration.class)
		.withBean(AsyncWork.class)
		.withPropertyValues("uform.ram.threads=2", "uform.vram.enabled=false");

	@Test
	void asyncByTheExecutorsNameRunsOnItsDeferredThreadAndPlainAsyncStaysOnBoots() {
		this.contextRunner.withPropertyValues("uform.ram.async-executor=true").run((context) -> {
			assertThat(context).hasNotFailed()
				.hasBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME)
				.hasBean(RAM_VIEW);
			Executor ram = context.getBean(RAM, Executor.class);
			AsyncWork work = context.getBean(AsyncWork.class);
			assertThat(work.onUform().get(10, TimeUnit.SECONDS)).isEqualTo("uform-" + ram.name() + "-deferred");
			assertThat(work.onBoot().get(10, TimeUnit.SECONDS)).startsWith("task-");
			assertThat(context.getBean(java.util.concurrent.Executor.class))
				.isSameAs(context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME));
		});
	}

	@Test
	void withoutThePropertyThereIsNoViewAndBootsExecutorIsTheOnlyJavaExecutor() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RAM_VIEW);
			assertThat(context.getBeansOfType(java.util.concurrent.Executor.class))
				.containsOnlyKeys(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME);
			assertThat(context.getBean(AsyncWork.class).onBoot().get(10, TimeUnit.SECONDS)).startsWith("task-");
		});
	}

	@Test
	void asyncByNameCarriesTheCallersObservation() {
		this.contextRunner.withPropertyValues("uform.ram.async-executor=true").run((context) -> {
			ObservationRegistry registry = context.getBean(ObservationRegistry.class);
			Observation request = Observation.start("http.server.requests", registry);
			CompletableFuture<Observation> inside;
			try (Observation.Scope scope = request.openScope()) {
				inside = context.getBean(AsyncWork.class).currentObservation(registry);
			}
			Observation seen = inside.get(10, TimeUnit.SECONDS);
			request.stop();
			assertThat(seen).as("the observation current inside the @Async method").isNotNull();
			assertThat(seen.getContext().getName()).isEqualTo("uform.deferred");
			assertThat(seen.getContext().getParentObservation()).isSameAs(request);
		});
	}

	@Test
	void supplyAsyncOnTheViewForksOnEveryThreadOfTheExecutor() {
		this.contextRunner.withPropertyValues("uform.ram.async-executor=true").run((context) -> {
			Executor ram = context.getBean(RAM, Executor.class);
			AsyncTaskExecutor view = context.getBean(RAM_VIEW, AsyncTaskExecutor.class);
			CompletableFuture<Long> sum = CompletableFuture.supplyAsync(() -> {
				long[] parts = new long[ram.threads()];
				ram.forN(1000, (index, thread, colocation) -> parts[thread] += index);
				return Arrays.stream(parts).sum();
			}, view);
			assertThat(sum.get(10, TimeUnit.SECONDS)).isEqualTo(999L * 1000 / 2);
		});
	}

	@Test
	void aViewTaskThatSubmitsAnotherAndWaitsForItCompletes() {
		this.contextRunner.withPropertyValues("uform.ram.async-executor=true", "uform.ram.deferred-limit=1").run((context) -> {
			AsyncTaskExecutor view = context.getBean(RAM_VIEW, AsyncTaskExecutor.class);
			Future<String> outer = view.submit(() -> view.submit(() -> "inner").get(10, TimeUnit.SECONDS) + " done");
			assertThat(outer.get(10, TimeUnit.SECONDS)).isEqualTo("inner done");
		});
	}

	@Test
	void aSaturatedViewRejectsNamingTheLimitWhenTheWaitIsZero() {
		this.contextRunner
			.withPropertyValues("uform.ram.async-executor=true", "uform.ram.deferred-limit=1",
					"uform.ram.async-executor-max-wait=0")
			.run((context) -> {
				AsyncTaskExecutor view = context.getBean(RAM_VIEW, AsyncTaskExecutor.class);
				CountDownLatch release = new CountDownLatch(1);
				Future<?> holding = view.submit(() -> {
					release.await();
					return null;
				});
				try {
					assertThatThrownBy(() -> view.submit(() -> "second")).isInstanceOf(TaskRejectedException.class)
						.rootCause()
						.hasMessageContaining("all 1 deferred-call slots");
				}
				finally {
					release.countDown();
				}
				holding.get(10, TimeUnit.SECONDS);
			});
	}

	@Test
	void aSaturatedViewWithAWaitHoldsTheSubmitterUntilASlotFrees() {
		this.contextRunner
			.withPropertyValues("uform.ram.async-executor=true", "uform.ram.deferred-limit=1",
					"uform.ram.async-executor-max-wait=30s")
			.run((context) -> {
				AsyncTaskExecutor view = context.getBean(RAM_VIEW, AsyncTaskExecutor.class);
				CountDownLatch release = new CountDownLatch(1);
				Future<?> holding = view.submit(() -> {
					release.await();
					return null;
				});
				CompletableFuture<Future<String>> second = new CompletableFuture<>();
				Thread submitter = new Thread(() -> {
					try {
						second.complete(view.submit(() -> "second"));
					}
					catch (Throwable ex) {
						second.completeExceptionally(ex);
					}
				}, "submitter");
				try {
					submitter.start();
					// It waits for the slot (parked), and has neither been rejected nor returned.
					long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
					while (submitter.getState() != Thread.State.TIMED_WAITING && !second.isDone()
							&& System.nanoTime() < deadline) {
						Thread.sleep(5);
					}
					assertThat(second).as("the second submit while the only slot is taken").isNotDone();
					assertThat(submitter.getState()).isEqualTo(Thread.State.TIMED_WAITING);
				}
				finally {
					release.countDown();
				}
				holding.get(10, TimeUnit.SECONDS);
				assertThat(second.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)).isEqualTo("second");
				submitter.join(TimeUnit.SECONDS.toMillis(10));
			});
	}

	@Test
	void theVramExecutorHasItsViewToo() {
		this.contextRunner
			.withPropertyValues("uform.vram.enabled=true", "uform.devices.simulated=1", "uform.vram.async-executor=true")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasBean(UformAsyncExecutorConfigurations.VRAM_ASYNC_EXECUTOR_BEAN_NAME)
					.doesNotHaveBean(RAM_VIEW);
				Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
				assertThat(context.getBean(AsyncWork.class).onVram().get(10, TimeUnit.SECONDS))
					.isEqualTo("uform-" + vram.name() + "-deferred");
			});
	}

	/** A registry with a handler for every context, so that observations are made (none are without one). */
	private static ObservationRegistry observing() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler((observed) -> true);
		return registry;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

	}

	static class AsyncWork {

		@Async(RAM)
		CompletableFuture<String> onUform() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

		@Async(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)
		CompletableFuture<String> onVram() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

		@Async
		CompletableFuture<String> onBoot() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

		@Async(RAM)
		CompletableFuture<Observation> currentObservation(ObservationRegistry registry) {
			return CompletableFuture.completedFuture(registry.getCurrentObservation());
		}
	}
}
