package io.uform.spring.autoconfigure.observation;

import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformExecutorHooks;

/**
 * Auto-configuration of what uform's executor beans do around their work on other threads, as Boot
 * does for scheduled tasks ({@code ScheduledTasksObservationAutoConfiguration}) and Spring for task
 * executors ({@code ContextPropagatingTaskDecorator}):
 * <ul>
 * <li>with an {@link ObservationRegistry} bean, each deferred call is observed as
 * {@code uform.deferred} ({@link DefaultDeferredCallObservationConvention}; a
 * {@link DeferredCallObservationConvention} bean replaces it);</li>
 * <li>with {@code io.micrometer:context-propagation} on the class path, each deferred call runs in
 * the submitting thread's context, and each fork in the forking thread's where
 * {@code uform.ram.fork-context-propagation} (or {@code uform.vram.}) is {@code true}.</li>
 * </ul>
 * With neither, no hooks bean is made and executors are made as without this.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({ Executor.class, ObservationRegistry.class })
public final class UformObservationAutoConfiguration {

	private static final String CONTEXT_SNAPSHOT_FACTORY = "io.micrometer.context.ContextSnapshotFactory";

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnObservationOrContextPropagationCondition.class)
	UformExecutorHooks uformExecutorHooks(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<DeferredCallObservationConvention> convention, ApplicationContext context) {
		boolean propagation = ClassUtils.isPresent(CONTEXT_SNAPSHOT_FACTORY, context.getClassLoader());
		return new ObservationExecutorHooks(registry.getIfUnique(), convention.getIfUnique(), propagation);
	}

	/** The {@code # HELP} text of the meters Micrometer makes from {@code uform.deferred}, where it makes meters. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.core.instrument.config.MeterFilter")
	static final class DeferredCallMetersConfiguration {

		@Bean
		static MeterFilter uformDeferredCallMeterDescriptions() {
			return new DeferredCallMeterDescriptions();
		}
	}

	/** An observation registry to observe in, or a context to carry. */
	static final class OnObservationOrContextPropagationCondition extends AnyNestedCondition {

		OnObservationOrContextPropagationCondition() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnBean(ObservationRegistry.class)
		static final class ObservationRegistryBean {

		}

		@ConditionalOnClass(name = CONTEXT_SNAPSHOT_FACTORY)
		static final class ContextPropagationLibrary {

		}
	}
}
