package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
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
 * {@code java.util.concurrent.Executor}s, so none depends on itself. A bean the uform executor itself
 * depends on (a {@code @DependsOn}, a customizer that takes a pool) is left out, so that no declared
 * order is turned round. Those beans, and the beans that depend on them, are so destroyed before the
 * first uform executor, which may be earlier than without the starter: a bean that uses one of them at
 * its own destruction should declare that dependency, as Spring asks anyway.
 *
 * <h2>Only where the context will call back</h2>
 * Spring destroys only the beans it registered for destruction: not a {@code FactoryBean}'s product,
 * a singleton registered by hand, or a bean made before this post-processor was (one a user's
 * post-processor takes); a scoped bean only when its scope calls back, which it may never do; and a
 * bean to which the starter's name is an alias under its own name, which this does not free.
 * {@link #freesWhenDestroyed} tells the lifecycle which executors this will free, and it frees the
 * others at its phase, as it did before the late free.
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

	/**
	 * The executors Spring will call {@link #postProcessBeforeDestruction} for: it asks
	 * {@link #requiresDestruction} as it registers a bean for destruction, and only then. By identity,
	 * read by the lifecycles' stop threads.
	 */
	private final Set<Executor> registered = Collections
		.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

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
			Set<String> dependencies = dependenciesOf(beanName);
			// By definition, not instance: no bean is made early for this, and ones made later count too.
			for (String executor : this.beanFactory.getBeanNamesForType(java.util.concurrent.Executor.class, true,
					false)) {
				if (!dependencies.contains(executor)) {
					this.beanFactory.registerDependentBean(beanName, executor);
				}
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
		if (bean instanceof Executor executor) {
			this.registered.remove(executor);
		}
	}

	@Override
	public boolean requiresDestruction(Object bean) {
		if (bean instanceof Executor executor) {
			this.registered.add(executor);
			return true;
		}
		return false;
	}

	/**
	 * Whether the context will free this executor when it destroys its bean: Spring registered the bean
	 * for destruction with this post-processor (see the class comment), as the singleton of that name.
	 * Where not, its lifecycle frees it: a bean destroyed under another name (the one it is an alias
	 * of) or by a scope, which may never call back, is no bean this frees.
	 * @param beanName the executor's bean name, one of the starter's
	 * @param executor the executor
	 * @return {@code true} when {@link #postProcessBeforeDestruction} will be called for it under that name
	 */
	boolean freesWhenDestroyed(String beanName, Executor executor) {
		return this.registered.contains(executor) && this.beanFactory != null
				&& this.beanFactory.containsSingleton(beanName) && this.beanFactory.getSingleton(beanName) == executor;
	}

	/** The beans {@code bean} depends on, directly or through beans it depends on. */
	private Set<String> dependenciesOf(String bean) {
		Set<String> found = new HashSet<>();
		Deque<String> next = new ArrayDeque<>(List.of(this.beanFactory.getDependenciesForBean(bean)));
		while (!next.isEmpty()) {
			String name = next.poll();
			if (found.add(name)) {
				next.addAll(List.of(this.beanFactory.getDependenciesForBean(name)));
			}
		}
		return found;
	}
}
