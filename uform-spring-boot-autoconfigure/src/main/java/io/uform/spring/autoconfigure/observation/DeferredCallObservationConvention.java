package io.uform.spring.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and keys of the observation of a deferred call. Define a bean of this type to replace
 * {@link DefaultDeferredCallObservationConvention} (extend it to add or change a key), as Spring's
 * own conventions are replaced.
 */
public interface DeferredCallObservationConvention extends ObservationConvention<DeferredCallObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DeferredCallObservationContext;
	}
}
