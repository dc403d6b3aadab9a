package io.uform.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

/**
 * Finds a property as the user set it, with its origin (file and line, or property source), in any
 * of its relaxed spellings: what the failure analysis and the simulated-devices post-processor report
 * back to the user.
 */
final class ConfiguredProperties {

	private ConfiguredProperties() {
	}

	/**
	 * The property from the highest-ranked source that sets it.
	 * @param environment the environment to search
	 * @param name the property's canonical name, like {@code uform.ram.threads}
	 * @return the property with its value and origin, or {@code null} where no source sets it
	 */
	static @Nullable ConfigurationProperty find(Environment environment, String name) {
		ConfigurationPropertyName key = ConfigurationPropertyName.of(name);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			ConfigurationProperty property = source.getConfigurationProperty(key);
			if (property != null) {
				return property;
			}
		}
		return null;
	}

	/**
	 * Where a property was set, as the reports say it: {@code " (set in <origin>)"}, or nothing where
	 * the property or its origin is unknown.
	 * @param property the property, or {@code null}
	 * @return the phrase, with its leading space, or {@code ""}
	 */
	static String setIn(@Nullable ConfigurationProperty property) {
		return (property != null && property.getOrigin() != null) ? " (set in " + property.getOrigin() + ")" : "";
	}
}
