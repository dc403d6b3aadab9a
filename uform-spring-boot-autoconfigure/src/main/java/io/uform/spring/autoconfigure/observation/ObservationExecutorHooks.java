package io.uform.spring.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.uform.ExecutorHooks;
import io.uform.ForkDecorator;
import io.uform.spring.autoconfigure.UformExecutorHooks;

/**
 * The starter's {@link UformExecutorHooks}: every executor bean's deferred calls observed in the
 * registry (where there is one) and run in the submitting thread's context (where
 * context-propagation is on the class path); forks run in the forking thread's context only where
 * the executor's {@code fork-context-propagation} property asks for it.
 */
final class ObservationExecutorHooks implements UformExecutorHooks {

	private final @Nullable ObservationRegistry registry;

	private final @Nullable DeferredCallObservationConvention convention;

	private final @Nullable ForkDecorator contextPropagation;

	ObservationExecutorHooks(@Nullable ObservationRegistry registry, @Nullable DeferredCallObservationConvention convention,
			@Nullable ForkDecorator contextPropagation) {
		this.registry = registry;
		this.convention = convention;
		this.contextPropagation = contextPropagation;
	}

	@Override
	public ExecutorHooks hooksFor(String executorBeanName, boolean forkContextPropagation) {
		return new ExecutorHooks(
				new ObservedDeferredCalls(executorBeanName, this.registry, this.convention, this.contextPropagation),
				forkContextPropagation ? this.contextPropagation : null);
	}
}
