package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import io.uform.Executor;

/**
 * Frees the starter's executor beans within {@code uform.shutdown.await-termination-period} when the
 * context destroys them without having stopped them: a refresh that fails after an executor was made
 * but before the lifecycles started (a later bean's constructor throws, the mesh cannot join)
 * destroys its beans, and lifecycles that never started are not stopped. Without this the beans'
 * {@code free} destroy method would wait for a deferred call as long as it runs, and a call that
 * never returns would keep the failed application from ever reporting why it failed. After a normal
 * close the lifecycle has freed them already, and this returns at once. It never throws: Spring
 * skips a bean's destroy method when a post-processor throws.
 *
 * <p>The settings are read from the {@link Environment} when a bean is destroyed, not injected: a
 * post-processor is made before the configuration properties beans, and must not make them early.
 */
final class UformExecutorDestruction implements DestructionAwareBeanPostProcessor {

	private static final Set<String> EXECUTOR_BEANS = Set.of(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
			UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);

	private static final Log logger = LogFactory.getLog(UformExecutorDestruction.class);

	private final Environment environment;

	UformExecutorDestruction(Environment environment) {
		this.environment = environment;
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
			UformExecutorLifecycle.free(beanName, executor, shutdown, phaseTimeout);
		}
	}

	@Override
	public boolean requiresDestruction(Object bean) {
		return bean instanceof Executor;
	}
}
