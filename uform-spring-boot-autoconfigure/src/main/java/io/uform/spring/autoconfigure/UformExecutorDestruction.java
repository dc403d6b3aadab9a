package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import io.uform.Executor;

/**
 * Frees the starter's executor beans within {@code uform.shutdown.await-termination-period} when the
 * context destroys them, and orders that destruction after the context's
 * {@code java.util.concurrent.Executor} beans.
 *
 * <h2>Freed last</h2>
 * After a normal close the executors' lifecycle has refused new deferred calls and waited for the
 * submitted ones, and forks still run (see {@link UformExecutorLifecycle}): this frees them. Every
 * {@code java.util.concurrent.Executor} bean (Boot's {@code applicationTaskExecutor}, a task
 * scheduler, an application's own {@code ExecutorService}) is registered as depending on each uform
 * executor, so Spring destroys it first: one that awaits termination when destroyed, as Boot's do with
 * {@code spring.task.execution.shutdown.await-termination=true}, lets its {@code @Async} methods end
 * while they can still fork on the uform executors. uform's executors are not
 * {@code java.util.concurrent.Executor}s, so none depends on itself.
 *
 * <h2>A failed refresh</h2>
 * A refresh that fails after an executor was made but before the lifecycles started (a later bean's
 * constructor throws, the mesh cannot join) destroys its beans, and lifecycles that never started are
 * not stopped. Without this the beans' {@code free} destroy method would wait for a deferred call as
 * long as it runs, and a call that never returns would keep the failed application from ever
 * reporting why it failed.
 *
 * <p>It never throws: Spring skips a bean's destroy method when a post-processor throws.
 *
 * <p>The settings are read from the {@link Environment} when a bean is destroyed, not injected: a
 * post-processor is made before the configuration properties beans, and must not make them early.
 */
final class UformExecutorDestruction implements DestructionAwareBeanPostProcessor, BeanFactoryAware {

	private static final Set<String> EXECUTOR_BEANS = Set.of(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
			UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);

	private static final Log logger = LogFactory.getLog(UformExecutorDestruction.class);

	private final Environment environment;

	private ConfigurableListableBeanFactory beanFactory;

	UformExecutorDestruction(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
			this.beanFactory = listable;
		}
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof Executor && EXECUTOR_BEANS.contains(beanName) && this.beanFactory != null) {
			// By definition, not instance: no bean is made early for this, and ones made later count too.
			for (String executor : this.beanFactory.getBeanNamesForType(java.util.concurrent.Executor.class, true,
					false)) {
				this.beanFactory.registerDependentBean(beanName, executor);
			}
		}
		return bean;
	}

	@Override
	public void postProcessBeforeDestruction(Object bean, String beanName) {
		if (bean instanceof Executor executor && EXECUTOR_BEANS.contains(beanName)) {
			UformProperties.Shutdown shutdown;
			Duration phaseTimeout;
			try {
				shutdown = Binder.get(this.environment).bindOrCreate("uform.shutdown", UformProperties.Shutdown.class);
				phaseTimeout = UformAutoConfiguration.shutdownPhaseTimeout(this.environment);
			}
			catch (RuntimeException ex) {
				// A value that does not bind (often the very reason the startup failed, reported by Boot):
				// Spring skips the destroy method when this throws, and the executor's threads would live
				// on. Freed with the defaults instead.
				logger.debug("uform.shutdown or spring.lifecycle.timeout-per-shutdown-phase did not bind; freeing "
						+ "executor bean '" + beanName + "' with the defaults", ex);
				shutdown = new UformProperties.Shutdown();
				phaseTimeout = UformAutoConfiguration.DEFAULT_SHUTDOWN_PHASE_TIMEOUT;
			}
			UformExecutorLifecycle.freeWhenDestroyed(beanName, executor, shutdown, phaseTimeout);
		}
	}

	@Override
	public boolean requiresDestruction(Object bean) {
		return bean instanceof Executor;
	}
}
