package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.DependsOn;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A closing context leaves its uform executors forkable until it destroys their lifecycle beans, which
 * free them then ({@link UformExecutorLifecycle#destroy()}), also where Spring never destroys the
 * executor bean itself: a {@code FactoryBean}'s product, a singleton registered by hand, an executor
 * made before the post-processors. And the order the starter adds must not turn round one the
 * application declared.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformLateFreeEdgesTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2", "uform.vram.enabled=false");

	@Test
	void anExecutorAFactoryBeanMakesIsFreedAtItsPhaseSinceSpringNeverDestroysIt() throws Exception {
		Executor[] made = new Executor[1];
		this.contextRunner.withBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, RamExecutorFactory.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("uformRamExecutorLifecycle");
				made[0] = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
			});
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(UformThreads.awaitNoneOwnedBy(made[0].name(), Duration.ofSeconds(5))).isEmpty();
	}

	/** Boot's lazy initialization: the lifecycle bean is made only when Spring's lifecycle processor starts it. */
	@Test
	void underLazyInitializationAnExecutorAFactoryBeanMakesIsStillFreed() throws Exception {
		Executor[] made = new Executor[1];
		this.contextRunner
			.withInitializer(
					(context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
			.withBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, RamExecutorFactory.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				made[0] = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
			});
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(UformThreads.awaitNoneOwnedBy(made[0].name(), Duration.ofSeconds(5))).isEmpty();
	}

	@Test
	void anExecutorRegisteredByHandIsFreedAtItsPhase() throws Exception {
		Executor made = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		try {
			this.contextRunner
				.withInitializer((context) -> context.getBeanFactory()
					.registerSingleton(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, made))
				.run((context) -> assertThat(context).hasNotFailed().hasBean("uformRamExecutorLifecycle"));
			assertThat(made.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThat(UformThreads.awaitNoneOwnedBy(made.name(), Duration.ofSeconds(5))).isEmpty();
		}
		finally {
			made.free(Duration.ofSeconds(5));
		}
	}

	/**
	 * A post-processor of the application's that takes the executor makes it before the starter's
	 * post-processor: Spring then calls back for neither the order nor the bounded free, and only the
	 * bean's unbounded {@code free} destroy method is left, which waited for ever for a fork still in
	 * progress. Freed at its phase within the period, the close ends.
	 */
	@Test
	void anExecutorMadeBeforeThePostProcessorsIsFreedWithinThePeriodAtItsPhase() throws Exception {
		assertCloseEndsDespiteAForkInProgress(TakesTheExecutorEarly.class);
	}

	/** With a fork in progress that never ends by itself, the close ends, within the period, freeing it. */
	private void assertCloseEndsDespiteAForkInProgress(Class<?> configuration) throws Exception {
		CountDownLatch forking = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Executor[] made = new Executor[1];
		boolean[] closed = new boolean[1];
		try {
			this.contextRunner.withPropertyValues("uform.shutdown.await-termination-period=300ms")
				.withUserConfiguration(configuration)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					made[0] = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
					CompletableFuture.runAsync(() -> made[0].forThreads((thread, colocation) -> {
						if (thread == 1) {
							forking.countDown();
							await(release);
						}
					}));
					assertThat(forking.await(10, TimeUnit.SECONDS)).as("the fork began").isTrue();
					Thread closer = new Thread(context::close, "closer");
					closer.setDaemon(true);
					closer.start();
					closer.join(10_000);
					closed[0] = !closer.isAlive();
				});
			assertThat(closed[0]).as("the close ended within 10 s").isTrue();
			assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		}
		finally {
			release.countDown();
		}
	}

	/**
	 * An executor bean whose name {@code uformRamExecutor} is an alias: Spring destroys it under its own
	 * name, which is no name the starter frees, and its inferred {@code close()}, an unbounded free,
	 * would wait for a fork in progress for ever.
	 */
	@Test
	void anExecutorBeanAliasedUformRamExecutorIsFreedWithinThePeriodAtItsPhase() throws Exception {
		assertCloseEndsDespiteAForkInProgress(AliasedExecutor.class);
	}

	/** An executor in a scope that never calls back for its destruction (Spring's thread scope). */
	@Test
	void anExecutorInAScopeThatNeverDestroysItIsFreedAtItsPhase() throws Exception {
		Executor[] made = new Executor[1];
		this.contextRunner
			.withInitializer((context) -> context.getBeanFactory()
				.registerScope("thread", new org.springframework.context.support.SimpleThreadScope()))
			.withUserConfiguration(ThreadScopedExecutor.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				made[0] = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
				made[0].forThreads((thread, colocation) -> {
				});
			});
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(UformThreads.awaitNoneOwnedBy(made[0].name(), Duration.ofSeconds(5))).isEmpty();
	}

	/** Stopped, then closed: Spring does not stop the lifecycle again, and never destroys the product. */
	@Test
	void aContextStoppedThenClosedFreesAnExecutorSpringNeverDestroys() throws Exception {
		Executor[] made = new Executor[1];
		this.contextRunner.withBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, RamExecutorFactory.class)
			.run((context) -> {
				made[0] = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
				context.getSourceApplicationContext().stop();
				assertThat(made[0].statistics().state()).as("a stop only drains").isEqualTo(Executor.State.RUNNING);
			});
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(UformThreads.awaitNoneOwnedBy(made[0].name(), Duration.ofSeconds(5))).isEmpty();
	}

	@Test
	void aUformExecutorThatDependsOnAPoolIsStillDestroyedBeforeIt() {
		List<String> destroyed = new ArrayList<>();
		this.contextRunner.withBean(DestructionOrder.class, () -> new DestructionOrder(destroyed))
			.withUserConfiguration(ExecutorDependingOnAPool.class)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(destroyed).as("destroyed, in order")
			.containsSubsequence(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, "applicationPool");
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Makes the RAM executor as a factory's product, which Spring does not destroy. */
	static class RamExecutorFactory implements FactoryBean<Executor> {

		@Override
		public Executor getObject() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		}

		@Override
		public Class<?> getObjectType() {
			return Executor.class;
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class TakesTheExecutorEarly {

		@Bean
		static BeanPostProcessor takesTheUformExecutor(Executor uform) {
			return new BeanPostProcessor() {
			};
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class AliasedExecutor {

		@Bean(name = { "grid", UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME })
		Executor grid() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ThreadScopedExecutor {

		@Bean(name = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, destroyMethod = "free")
		@org.springframework.context.annotation.Scope("thread")
		Executor uformRamExecutor() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		}
	}

	/** A user's own RAM executor that declares it depends on a pool of the application's. */
	@Configuration(proxyBeanMethods = false)
	static class ExecutorDependingOnAPool {

		@Bean
		Pool applicationPool() {
			return new Pool();
		}

		@Bean(name = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, destroyMethod = "free")
		@DependsOn("applicationPool")
		Executor uformRamExecutor() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		}
	}

	static final class Pool implements java.util.concurrent.Executor {

		@Override
		public void execute(Runnable command) {
			command.run();
		}
	}

	/** Notes the names of the beans destroyed, in order. */
	static final class DestructionOrder implements DestructionAwareBeanPostProcessor {

		private final List<String> destroyed;

		DestructionOrder(List<String> destroyed) {
			this.destroyed = destroyed;
		}

		@Override
		public void postProcessBeforeDestruction(Object bean, String beanName) {
			this.destroyed.add(beanName);
		}

		@Override
		public boolean requiresDestruction(Object bean) {
			return bean instanceof Executor || bean instanceof Pool;
		}
	}
}
