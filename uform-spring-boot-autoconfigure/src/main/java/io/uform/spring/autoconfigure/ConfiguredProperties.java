package io.uform.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

import io.uform.UformException;

/**
 * A property as the user set it, with its origin (file and line, or property source), in any of its
 * relaxed spellings, and its value as a report shows it: what the startup reports of the starter and
 * of its diagnostics ({@code io.uform.spring.autoconfigure.diagnostics}) say back to the user.
 */
public final class ConfiguredProperties {

	private ConfiguredProperties() {
	}

	/**
	 * The property from the highest-ranked source that sets it.
	 * @param environment the environment to search
	 * @param name the property's canonical name, like {@code uform.ram.threads}
	 * @return the property with its value and origin, or {@code null} where no source sets it
	 */
	public static @Nullable ConfigurationProperty find(Environment environment, String name) {
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
	public static String setIn(@Nullable ConfigurationProperty property) {
		return (property != null && property.getOrigin() != null) ? " (set in " + property.getOrigin() + ")" : "";
	}

	/**
	 * A value as the report prints it: empty or with spaces at either end in quotes, so that it shows
	 * ({@code cpu-class = ""}, not {@code cpu-class = }), and control and format characters escaped as
	 * {@code \\uXXXX}, so that a hostile value (a job name holding a terminal escape sequence, or a
	 * right-to-left override) cannot rewrite the report on the console it is printed to.
	 * @param value the value, or {@code null}
	 * @return the value as shown
	 */
	public static String shown(@Nullable String value) {
		if (value == null) {
			return "null";
		}
		String shown = UformException.printable(value);
		boolean quote = value.isEmpty() || !value.strip().equals(value);
		return quote ? "\"" + shown + "\"" : shown;
	}
}
