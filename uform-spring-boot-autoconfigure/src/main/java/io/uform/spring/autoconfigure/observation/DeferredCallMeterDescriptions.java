package io.uform.spring.autoconfigure.observation;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Gives the meters Micrometer makes from the {@code uform.deferred} observation a description, which
 * Prometheus shows as the series' {@code # HELP} text: an observation carries none, so its timer
 * ({@code uform_deferred_seconds}) and long task timer ({@code uform_deferred_active_seconds}) would be
 * the only uform series without one. A description set elsewhere is kept.
 */
final class DeferredCallMeterDescriptions implements MeterFilter {

	static final String CALLS = "Deferred calls of a uform executor, from submission until their future completes, "
			+ "by executor bean name and outcome";

	static final String ACTIVE = "Deferred calls of a uform executor submitted and not yet complete";

	@Override
	public Meter.Id map(Meter.Id id) {
		if (id.getDescription() != null) {
			return id;
		}
		String name = id.getName();
		String description = DefaultDeferredCallObservationConvention.NAME.equals(name) ? CALLS
				: (DefaultDeferredCallObservationConvention.NAME + ".active").equals(name) ? ACTIVE : null;
		if (description == null) {
			return id;
		}
		return new Meter.Id(name, Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
	}
}
