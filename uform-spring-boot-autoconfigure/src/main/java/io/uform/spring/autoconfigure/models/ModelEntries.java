package io.uform.spring.autoconfigure.models;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

import io.uform.spring.autoconfigure.UformAutoConfiguration;

/**
 * The {@code uform.models} entries as bound from an environment, and the names derived from them: the
 * beans of each entry, the executor bean it runs on, and whether its beans are primary. Bound where
 * the beans are registered, before any bean exists, and again where they are made, from the same
 * environment.
 */
final class ModelEntries {

	/** Where the entries are. */
	static final String PREFIX = "uform.models";

	private ModelEntries() {
	}

	/**
	 * Binds the entries, in the order they were written.
	 * @param environment the application's environment
	 * @return the entries by name; empty where there is none
	 * @throws InvalidConfigurationPropertyValueException where more than one entry says {@code primary: true}
	 */
	static Map<String, UformModelProperties> bind(Environment environment) {
		Map<String, UformModelProperties> entries = Binder.get(environment)
			.bind(PREFIX, Bindable.mapOf(String.class, UformModelProperties.class))
			.map(LinkedHashMap::new)
			.orElseGet(LinkedHashMap::new);
		String primary = null;
		for (Map.Entry<String, UformModelProperties> entry : entries.entrySet()) {
			if (entry.getValue().isPrimary()) {
				if (primary != null) {
					throw new InvalidConfigurationPropertyValueException(property(entry.getKey(), "primary"), true,
							"model '" + primary + "' is primary already, and an unqualified injection can get only one: "
									+ "leave primary: true on one model, and inject the others by name ("
									+ "@Qualifier(\"" + modelBean(entry.getKey()) + "\"))");
				}
				primary = entry.getKey();
			}
		}
		return Collections.unmodifiableMap(entries);
	}

	/**
	 * Whether an entry's beans are primary: the only entry's are; among several, only one that says so.
	 */
	static boolean primary(String name, Map<String, UformModelProperties> entries) {
		return entries.size() == 1 || entries.get(name).isPrimary();
	}

	/** The executor bean an entry's {@code executor} names: {@code ram} and {@code vram} are the starter's. */
	static String executorBean(UformModelProperties entry) {
		return switch (entry.getExecutor()) {
			case "ram" -> UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME;
			case "vram" -> UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME;
			default -> entry.getExecutor();
		};
	}

	/** The uform {@code TextEmbeddingModel} bean of an entry. */
	static String modelBean(String name) {
		return name + "EmbeddingModel";
	}

	/** The Spring AI {@code EmbeddingModel} bean of an entry. */
	static String springAiBean(String name) {
		return name + "SpringAiEmbeddingModel";
	}

	/** The langchain4j {@code EmbeddingModel} bean of an entry. */
	static String langchain4jBean(String name) {
		return name + "Langchain4jEmbeddingModel";
	}

	/** The full name of one of an entry's properties, as a report names it. */
	static String property(String name, String field) {
		return PREFIX + "." + name + "." + field;
	}
}
