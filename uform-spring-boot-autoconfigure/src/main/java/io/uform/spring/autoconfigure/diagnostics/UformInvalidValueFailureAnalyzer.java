package io.uform.spring.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

import io.uform.spring.autoconfigure.ConfiguredProperties;

/**
 * Reports a {@code uform.*} value that uform refused when its executor or mesh was made (a CPU class
 * this machine lacks, a memory domain it does not have): the description as Boot's own
 * {@code InvalidConfigurationPropertyValueFailureAnalyzer} words it (property, value, origin, uform's
 * reason), and an action of uform's own, which says what to change, in place of Boot's generic
 * "Review the value of the property with the provided reason". Other properties are left to Boot.
 *
 * <p>Ordered before Boot's analyzers, which are unordered, as {@link UformBindFailureAnalyzer} is.
 */
class UformInvalidValueFailureAnalyzer extends AbstractFailureAnalyzer<InvalidConfigurationPropertyValueException>
		implements Ordered {

	/** The value a report gives a required property that is not set (a model's file: ModelResources). */
	private static final String UNSET = "(unset)";

	private final @Nullable Environment environment;

	UformInvalidValueFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE + 100;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, InvalidConfigurationPropertyValueException cause) {
		String name = cause.getName();
		if (!name.startsWith("uform.")) {
			return null;
		}
		StringBuilder description = new StringBuilder("Invalid value '").append(cause.getValue())
			.append("' for configuration property '")
			.append(name)
			.append("'");
		ConfigurationProperty property = (this.environment != null) ? ConfiguredProperties.find(this.environment, name)
				: null;
		if (property != null && property.getOrigin() != null) {
			description.append(" (originating from '").append(property.getOrigin()).append("')");
		}
		description.append(". Validation failed for the following reason:")
			.append(System.lineSeparator())
			.append(System.lineSeparator())
			.append(cause.getReason());
		// A required property left unset (a model's file) has nothing uform could derive in its place.
		String action = UNSET.equals(cause.getValue()) ? "Set " + name + " in your configuration, as the reason above says."
				: "Update " + name + " in your configuration to a value the reason above names, or remove it "
						+ "so that uform derives it from this machine (uform-info, or /actuator/uform, shows what uform "
						+ "sees here).";
		return new FailureAnalysis(description.toString(), action, cause);
	}
}
