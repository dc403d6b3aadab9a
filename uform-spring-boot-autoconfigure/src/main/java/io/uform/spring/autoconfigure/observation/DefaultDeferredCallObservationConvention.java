package io.uform.spring.autoconfigure.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The observation of a deferred call, from its submission to the completion of its future, so that
 * its wait for the deferred thread and its run show together: named {@code uform.deferred} (with
 * Boot's metrics, a timer {@code uform.deferred} and a long task timer {@code uform.deferred.active}),
 * contextual name {@code deferred <bean name>}, and low-cardinality keys
 * <ul>
 * <li>{@code name}: the executor's bean name, as uform's executor meters tag it;</li>
 * <li>{@code outcome}: {@code SUCCESS}, {@code ERROR} (it threw, or {@code defer} refused it), or
 * {@code CANCELLED} (its future was cancelled);</li>
 * <li>{@code exception}: the simple class name of what it threw, or {@code none}, as Spring's
 * scheduled-task observations say it.</li>
 * </ul>
 */
public class DefaultDeferredCallObservationConvention implements DeferredCallObservationConvention {

	/** Name of the observation, and of the timer Boot's metrics make from it. */
	public static final String NAME = "uform.deferred";

	private static final KeyValue EXCEPTION_NONE = KeyValue.of("exception", KeyValue.NONE_VALUE);

	private static final KeyValue OUTCOME_SUCCESS = KeyValue.of("outcome", "SUCCESS");

	private static final KeyValue OUTCOME_ERROR = KeyValue.of("outcome", "ERROR");

	private static final KeyValue OUTCOME_CANCELLED = KeyValue.of("outcome", "CANCELLED");

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(DeferredCallObservationContext context) {
		return "deferred " + context.getExecutorBeanName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(DeferredCallObservationContext context) {
		return KeyValues.of(executor(context), outcome(context), exception(context));
	}

	/**
	 * The executor's bean name.
	 * @param context the call's context
	 * @return the {@code name} key
	 */
	protected KeyValue executor(DeferredCallObservationContext context) {
		return KeyValue.of("name", context.getExecutorBeanName());
	}

	/**
	 * How the call ended.
	 * @param context the call's context
	 * @return the {@code outcome} key
	 */
	protected KeyValue outcome(DeferredCallObservationContext context) {
		if (context.isCancelled()) {
			return OUTCOME_CANCELLED;
		}
		return (context.getError() != null) ? OUTCOME_ERROR : OUTCOME_SUCCESS;
	}

	/**
	 * What the call threw.
	 * @param context the call's context
	 * @return the {@code exception} key
	 */
	protected KeyValue exception(DeferredCallObservationContext context) {
		Throwable error = context.getError();
		return (error != null) ? KeyValue.of("exception", error.getClass().getSimpleName()) : EXCEPTION_NONE;
	}
}
