package io.uform.spring.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.uform.ExecutorHooks;
import io.uform.ForkDecorator;
import io.uform.spring.autoconfigure.UformExecutorHooks;

/**
 * The starter's {@link UformExecutorHooks}: every executor bean's deferred calls observed in the
 * registry (where there is one) and run in the submitting thread's context (where
 * context-propagation is on), forks run in the forking thread's context only where the executor's
 * {@code fork-context-propagation} property asks for it. Outside Boot, make one and pass
 * {@code hooksFor("name", false)} to {@code Executor.forRam(config, hooks)}.
 */
public final class ObservationExecutorHooks implements UformExecutorHooks {

	private final @Nullable ObservationRegistry registry;

	private final @Nullable DeferredCallObservationConvention convention;

	private final @Nullable ForkDecorator contextPropagation;

	/**
	 * Makes the hooks.
	 * @param registry where deferred calls are observed; {@code null} observes none
	 * @param convention replaces {@link DefaultDeferredCallObservationConvention}; {@code null} keeps it
	 * @param contextPropagation whether to carry context with Micrometer's context-propagation library,
	 *        which must then be on the class path
	 */
	public ObservationExecutorHooks(@Nullable ObservationRegistry registry,
			@Nullable DeferredCallObservationConvention convention, boolean contextPropagation) {
		this.registry = registry;
		this.convention = convention;
		this.contextPropagation = contextPropagation ? new ContextPropagation() : null;
	}

	@Override
	public ExecutorHooks hooksFor(String executorBeanName, boolean forkContextPropagation) {
		return new ExecutorHooks(
				new ObservedDeferredCalls(executorBeanName, this.registry, this.convention, this.contextPropagation),
				forkContextPropagation ? this.contextPropagation : null);
	}
}
