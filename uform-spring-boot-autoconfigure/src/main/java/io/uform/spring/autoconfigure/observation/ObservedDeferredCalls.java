package io.uform.spring.autoconfigure.observation;

import java.util.concurrent.CancellationException;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.uform.DeferredCallDecorator;
import io.uform.Executor;
import io.uform.ExecutorHooks;
import io.uform.ForkDecorator;

/**
 * Observes each deferred call of one executor bean as {@code uform.deferred}, started on the
 * submitting thread (a child of that thread's current observation, such as the HTTP request's) and
 * stopped when the call's future completes, and carries the submitting thread's context to the
 * deferred thread. There the context is restored first and the call's observation opened inside it,
 * so that spans and log lines the call makes belong to the call's observation in the request's trace.
 * Where the registry has no handler and there is no context to carry, a call is left undecorated.
 *
 * <p>Where threads meet: a call's decoration is made on the submitting thread, opened on the
 * deferred thread and completed on whichever thread completes the future (uform's completion thread,
 * or a thread that cancels it; for a task of the executor's {@code DeferredCallExecutor} view, which
 * has no future, the deferred thread right after the call). Its fields are final, and the queue the call passes through and the
 * future's completion order those threads; the one mutable mark, cancellation, is volatile
 * ({@link DeferredCallObservationContext}).
 */
final class ObservedDeferredCalls implements DeferredCallDecorator {

	private static final DeferredCallObservationConvention DEFAULT_CONVENTION = new DefaultDeferredCallObservationConvention();

	private final String executorBeanName;

	private final @Nullable ObservationRegistry registry;

	private final @Nullable DeferredCallObservationConvention convention;

	private final @Nullable ForkDecorator contextPropagation;

	/**
	 * @param executorBeanName the executor's bean name, the {@code name} key
	 * @param registry where observations go; {@code null} observes nothing
	 * @param convention a user's convention, or {@code null} for the default
	 * @param contextPropagation captures the submitting thread's context; {@code null} carries none
	 */
	ObservedDeferredCalls(String executorBeanName, @Nullable ObservationRegistry registry,
			@Nullable DeferredCallObservationConvention convention, @Nullable ForkDecorator contextPropagation) {
		this.executorBeanName = executorBeanName;
		this.registry = registry;
		this.convention = convention;
		this.contextPropagation = contextPropagation;
	}

	@Override
	public @Nullable Decoration decorate(Executor executor) {
		ForkDecorator.Context context = (this.contextPropagation != null) ? this.contextPropagation.capture() : null;
		Observation observation = (this.registry != null) ? Observation
			.createNotStarted(this.convention, DEFAULT_CONVENTION,
					() -> new DeferredCallObservationContext(this.executorBeanName), this.registry)
			.start() : Observation.NOOP;
		if (context == null && observation.isNoop()) {
			return null;
		}
		return new ObservedCall(context, observation);
	}

	private static final class ObservedCall implements Decoration {

		private final ForkDecorator.@Nullable Context context;

		private final Observation observation;

		ObservedCall(ForkDecorator.@Nullable Context context, Observation observation) {
			this.context = context;
			this.observation = observation;
		}

		@Override
		public ExecutorHooks.Scope open() {
			ExecutorHooks.Scope restored = (this.context != null) ? this.context.restore() : null;
			Observation.Scope scope;
			try {
				scope = this.observation.openScope();
			}
			catch (RuntimeException | Error ex) {
				if (restored != null) {
					restored.close();
				}
				throw ex;
			}
			return () -> {
				try {
					scope.close();
				}
				finally {
					if (restored != null) {
						restored.close();
					}
				}
			};
		}

		@Override
		public void completed(@Nullable Throwable failure) {
			if (failure instanceof CancellationException) {
				if (this.observation.getContext() instanceof DeferredCallObservationContext context) {
					context.markCancelled();
				}
			}
			else if (failure != null) {
				this.observation.error(failure);
			}
			this.observation.stop();
		}
	}
}
