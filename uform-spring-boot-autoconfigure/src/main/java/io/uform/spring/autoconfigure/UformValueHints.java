package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.security.CodeSource;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.configurationmetadata.ValueHint;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

import io.uform.Uform;

/**
 * The values each of the starter's text properties takes, from the value hints of its own
 * configuration metadata (read with Boot's metadata library): {@code uform.ram.cpu-class},
 * {@code uform.vram.gpu-class}. A value that is none of them is a typo that fails startup only when
 * its executor is made, and then alone: warned of at once, so that every such typo of a file is
 * reported in one start, beside the failure of another.
 */
final class UformValueHints {

	/** By property shape ({@link UformUnknownProperties#shape}), the values it takes. */
	private final Map<String, List<String>> values;

	private UformValueHints(Map<String, List<String>> values) {
		this.values = values;
	}

	/**
	 * The hints of the starter's own metadata: the metadata file beside {@link UformProperties}, so that
	 * no other jar's metadata is read on this path, which runs at every start that sets a uform key.
	 * @param classLoader the application's class loader
	 * @param logger for a metadata file that cannot be read
	 * @return the hints, none where the metadata is not found
	 */
	static UformValueHints read(ClassLoader classLoader, Log logger) {
		Map<String, List<String>> values = new HashMap<>();
		URL own = ownMetadata(classLoader, logger);
		if (own == null) {
			return new UformValueHints(values);
		}
		try (InputStream in = own.openStream()) {
			for (ConfigurationMetadataProperty property : ConfigurationMetadataRepositoryJsonBuilder.create(in)
				.build()
				.getAllProperties()
				.values()) {
				List<ValueHint> hints = property.getHints().getValueHints();
				if (String.class.getName().equals(property.getType()) && !hints.isEmpty()
						&& property.getHints().getValueProviders().isEmpty()
						&& ConfigurationPropertyName.isValid(property.getId())) {
					values.put(UformUnknownProperties.shape(ConfigurationPropertyName.of(property.getId())),
							hints.stream().map((hint) -> String.valueOf(hint.getValue())).toList());
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.debug("Skipping unreadable configuration metadata " + own, ex);
		}
		return new UformValueHints(values);
	}

	private static @Nullable URL ownMetadata(ClassLoader classLoader, Log logger) {
		CodeSource source = UformProperties.class.getProtectionDomain().getCodeSource();
		if (source == null || source.getLocation() == null) {
			return null;
		}
		String root = source.getLocation().toString().replaceFirst("^file:", "");
		try {
			Enumeration<URL> resources = classLoader.getResources(UformUnknownProperties.METADATA);
			while (resources.hasMoreElements()) {
				URL url = resources.nextElement();
				if (url.toString().contains(root)) {
					return url;
				}
			}
		}
		catch (IOException | SecurityException ex) {
			logger.debug("Cannot list configuration metadata", ex);
		}
		return null;
	}

	/**
	 * What is wrong with a property's value, or {@code null} where it is one of the values its hints
	 * list, or the property has none.
	 * @param shape the property's shape
	 * @param value the value as resolved
	 * @return the reason and the nearest values, or {@code null}
	 */
	@Nullable String problem(String shape, String value) {
		List<String> takes = this.values.get(shape);
		if (takes == null || takes.contains(value)) {
			return null;
		}
		List<String> near = Uform.nearestNames(value, takes);
		return "none of the values it takes; " + (near.isEmpty() ? "it takes " + String.join(", ", takes)
				: "did you mean " + either(near) + "?");
	}

	/** Names joined as a person lists alternatives: {@code a}, {@code a or b}, {@code a, b or c}. */
	static String either(List<String> names) {
		int last = names.size() - 1;
		return (last == 0) ? names.get(0) : String.join(", ", names.subList(0, last)) + " or " + names.get(last);
	}
}
