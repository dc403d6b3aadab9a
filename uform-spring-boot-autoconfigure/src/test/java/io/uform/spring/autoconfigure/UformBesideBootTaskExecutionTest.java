package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import io.uform.Executor;
import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The uform executors sit beside Spring Boot's own {@code applicationTaskExecutor}
 * ({@link TaskExecutionAutoConfiguration}) without taking its place: uform's beans are not
 * {@link java.util.concurrent.Executor}s, so Boot's executor is still made, still the one injected as a
 * {@code java.util.concurrent.Executor} or {@link TaskExecutor}, still the one {@code @Async} runs on;
 * and an {@link io.uform.Executor} injected by type is the RAM executor.
 *
 * <p>At close, with {@code spring.task.execution.shutdown.await-termination=true}, Boot waits for its
 * {@code @Async} methods only when it destroys its executor, after every lifecycle has stopped, and so
 * does an application's own pool that shuts down gracefully: the uform executors must still fork for
 * them then, refusing only new deferred calls, and be freed after those executors.
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

	/**
	 * An {@code @Async} method held until Boot's {@code applicationTaskExecutor} is being destroyed, which
	 * with {@code await-termination} waits for it there, after every lifecycle has stopped; then it forks
	 * on the RAM executor and tries to defer. The fork must run, the deferred call be refused. Boot makes
	 * its executor first of all singletons (it is the context's bootstrap executor), so without an order
	 * of uform's own Spring would destroy it after the RAM executor, which would then be freed already.
	 */
	@Test
	void asyncWorkThatBootAwaitsWhenItDestroysItsExecutorStillForksOnTheUformExecutor() throws Exception {
		CountDownLatch destroying = new CountDownLatch(1);
		AtomicInteger forked = new AtomicInteger();
		String[] outcome = new String[1];
		Executor[] ram = new Executor[1];
		this.contextRunner
			.withPropertyValues("uform.ram.threads=2", "spring.task.execution.shutdown.await-termination=true",
					"spring.task.execution.shutdown.await-termination-period=20s")
			.withUserConfiguration(AsyncConfiguration.class)
			.withBean(LateAsyncWork.class)
			.withBean(ReleaseWhenDestroyed.class,
					() -> new ReleaseWhenDestroyed(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME,
							destroying))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ram[0] = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
				CompletableFuture<String> work = context.getBean(LateAsyncWork.class)
					.forkWhenReleased(destroying, forked);
				context.close();
				assertThat(work).as("the @Async method Boot waited for at close").isDone();
				outcome[0] = work.get();
			});
		assertThat(outcome[0]).isEqualTo("deferred call refused: FREED");
		assertThat(forked).as("threads that ran the fork while Boot's executor was destroyed").hasValue(2);
		assertThat(ram[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(UformThreads.awaitNoneOwnedBy(ram[0].name(), Duration.ofSeconds(5))).isEmpty();
	}

	/**
	 * The same for an application's own thread pool that waits for its tasks when destroyed: a user
	 * bean, made before the auto-configured RAM executor and so, without uform's order, destroyed after
	 * it.
	 */
	@Test
	void workThatAnApplicationsOwnPoolAwaitsWhenDestroyedStillForksOnTheUformExecutor() throws Exception {
		CountDownLatch destroying = new CountDownLatch(1);
		AtomicInteger forked = new AtomicInteger();
		CompletableFuture<String> work = new CompletableFuture<>();
		Executor[] ram = new Executor[1];
		this.contextRunner.withPropertyValues("uform.ram.threads=2")
			.withBean("applicationPool", AwaitingPool.class, () -> new AwaitingPool(destroying))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ram[0] = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
				context.getBean(AwaitingPool.class).execute(() -> {
					try {
						if (!destroying.await(20, TimeUnit.SECONDS)) {
							throw new IllegalStateException("the pool was never destroyed");
						}
						ram[0].forThreads((thread, colocation) -> forked.incrementAndGet());
						work.complete("forked");
					}
					catch (Throwable ex) {
						work.completeExceptionally(ex);
					}
				});
				context.close();
			});
		assertThat(work).as("the task the pool waited for when destroyed").isCompletedWithValue("forked");
		assertThat(forked).hasValue(2);
		assertThat(ram[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(UformThreads.awaitNoneOwnedBy(ram[0].name(), Duration.ofSeconds(5))).isEmpty();
	}

	/** Forks on the RAM executor from an {@code @Async} method; takes it lazily, so as to make nothing. */
	static class LateAsyncWork {

		private final ObjectProvider<Executor> uform;

		LateAsyncWork(ObjectProvider<Executor> uform) {
			this.uform = uform;
		}

		@Async
		public CompletableFuture<String> forkWhenReleased(CountDownLatch release, AtomicInteger forked)
				throws InterruptedException {
			if (!release.await(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Boot's executor was never destroyed");
			}
			Executor executor = this.uform.getObject();
			executor.forThreads((thread, colocation) -> forked.incrementAndGet());
			try {
				executor.defer(() -> "accepted");
				return CompletableFuture.completedFuture("deferred call accepted");
			}
			catch (UformException ex) {
				return CompletableFuture.completedFuture("deferred call refused: " + ex.status());
			}
		}
	}

	/**
	 * Lets the held work go on when the context begins to destroy the named bean, before that bean's own
	 * destroy method runs (and waits for the work).
	 */
	static final class ReleaseWhenDestroyed implements DestructionAwareBeanPostProcessor {

		private final String beanName;

		private final CountDownLatch release;

		ReleaseWhenDestroyed(String beanName, CountDownLatch release) {
			this.beanName = beanName;
			this.release = release;
		}

		@Override
		public void postProcessBeforeDestruction(Object bean, String beanName) {
			if (beanName.equals(this.beanName)) {
				this.release.countDown();
			}
		}
	}

	/**
	 * An application's own pool that, when destroyed, lets the held task go on and waits for it, as a
	 * pool shut down gracefully does.
	 */
	static final class AwaitingPool implements java.util.concurrent.Executor, DisposableBean {

		private final ExecutorService threads = Executors.newSingleThreadExecutor();

		private final CountDownLatch destroying;

		AwaitingPool(CountDownLatch destroying) {
			this.destroying = destroying;
		}

		@Override
		public void execute(Runnable task) {
			this.threads.execute(task);
		}

		@Override
		public void destroy() throws InterruptedException {
			this.threads.shutdown();
			this.destroying.countDown();
			if (!this.threads.awaitTermination(20, TimeUnit.SECONDS)) {
				this.threads.shutdownNow();
			}
		}
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
