package io.uform.spring.autoconfigure.diagnostics;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.CodeSource;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.json.BasicJsonParser;
import org.springframework.util.ClassUtils;

import io.uform.spring.autoconfigure.UformProperties;

/**
 * The {@code uform.*} properties the configuration metadata ({@value #LOCATION}, which the
 * configuration processor writes into each jar) declares: names, types, descriptions and, for text,
 * the values hinted. The one reader of that metadata for the diagnostics, with Boot's own
 * {@link BasicJsonParser}, so that no metadata library is on the application's class path.
 * Only files that declare a {@code uform.} name are parsed.
 */
final class UformMetadata {

	/** Configuration metadata the configuration processor writes into each jar. */
	static final String LOCATION = "META-INF/spring-configuration-metadata.json";

	private final Map<String, Property> properties;

	private UformMetadata(Map<String, Property> properties) {
		this.properties = properties;
	}

	/**
	 * One declared property.
	 * @param name its name
	 * @param type its type as the metadata names it, or {@code null}
	 * @param description its description, or {@code null}
	 * @param values the values hinted for it, empty where none are
	 */
	record Property(String name, @Nullable String type, @Nullable String description, List<String> values) {
	}

	/** Every jar's metadata: what the unknown-key warnings and the bind failure report read. */
	static UformMetadata all(ClassLoader classLoader, Log logger) {
		return read(classLoader, (url) -> true, logger);
	}

	/**
	 * The starter's own metadata only, the file beside {@link UformProperties}: for the value hints,
	 * read at every start that sets a hinted property, where no other jar's metadata need be read.
	 */
	static UformMetadata own(ClassLoader classLoader, Log logger) {
		CodeSource source = UformProperties.class.getProtectionDomain().getCodeSource();
		if (source == null || source.getLocation() == null) {
			return new UformMetadata(Map.of());
		}
		String root = source.getLocation().toString().replaceFirst("^file:", "");
		return read(classLoader, (url) -> url.toString().contains(root), logger);
	}

	private static UformMetadata read(ClassLoader classLoader, Predicate<URL> which, Log logger) {
		Map<String, Property> properties = new LinkedHashMap<>();
		List<URL> urls;
		try {
			urls = Collections.list(classLoader.getResources(LOCATION));
		}
		catch (IOException | SecurityException ex) {
			logger.debug("Cannot list configuration metadata", ex);
			return new UformMetadata(properties);
		}
		for (URL url : urls) {
			if (!which.test(url)) {
				continue;
			}
			try (InputStream in = url.openStream()) {
				String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
				if (!json.contains("\"uform.")) {
					continue;
				}
				Map<String, Object> metadata = map(json);
				Map<String, List<String>> hints = new LinkedHashMap<>();
				for (Object each : list(metadata.get("hints"))) {
					Map<String, Object> hint = map(each);
					if (!hint.containsKey("providers")) {
						hints.put((String) hint.get("name"),
								list(hint.get("values")).stream().map((value) -> String.valueOf(map(value).get("value"))).toList());
					}
				}
				for (Object each : list(metadata.get("properties"))) {
					Map<String, Object> property = map(each);
					String name = (String) property.get("name");
					if (name != null && name.startsWith("uform.") && ConfigurationPropertyName.isValid(name)) {
						properties.putIfAbsent(name, new Property(name, (String) property.get("type"),
								(String) property.get("description"), hints.getOrDefault(name, List.of())));
					}
				}
			}
			catch (IOException | RuntimeException ex) {
				// Another jar's unreadable metadata must not hide ours, nor the report it serves.
				logger.debug("Skipping unreadable configuration metadata " + url, ex);
			}
		}
		return new UformMetadata(properties);
	}

	// BasicJsonParser leaves a nested object or array that follows a line break as its text: parsed here.

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object json) {
		return (json instanceof Map<?, ?> map) ? (Map<String, Object>) map : new BasicJsonParser().parseMap(json.toString().strip());
	}

	private static List<Object> list(@Nullable Object json) {
		if (json == null) {
			return List.of();
		}
		return (json instanceof List<?> list) ? List.copyOf(list) : new BasicJsonParser().parseList(json.toString().strip());
	}

	/** The property of that name, or {@code null}. */
	@Nullable Property property(String name) {
		return this.properties.get(name);
	}

	/** Every declared name. */
	Collection<String> names() {
		return this.properties.keySet();
	}

	/**
	 * The values a text property of that shape takes, from its hints.
	 * @return the values, or {@code null} where it is no text property with hints
	 */
	@Nullable List<String> textValues(String shape) {
		for (Property property : this.properties.values()) {
			if (String.class.getName().equals(property.type()) && !property.values().isEmpty()
					&& UformUnknownProperties.shape(ConfigurationPropertyName.of(property.name())).equals(shape)) {
				return property.values();
			}
		}
		return null;
	}

	/**
	 * The shapes of the declared properties of a kind of type: every one ({@code null}), maps
	 * ({@code Map.class}: any key below one is an entry) or lists and arrays ({@code Collection.class}).
	 */
	Set<String> shapes(@Nullable Class<?> kind, ClassLoader classLoader) {
		Set<String> shapes = new HashSet<>();
		for (Property property : this.properties.values()) {
			Class<?> type = erasure(property.type(), classLoader);
			if (kind == null || (type != null && (kind.isAssignableFrom(type)
					|| (kind == Collection.class && type.isArray())))) {
				shapes.add(UformUnknownProperties.shape(ConfigurationPropertyName.of(property.name())));
			}
		}
		return shapes;
	}

	/** The class a metadata type names, generics aside; {@code null} where it is not on the class path. */
	private static @Nullable Class<?> erasure(@Nullable String type, ClassLoader classLoader) {
		if (type == null) {
			return null;
		}
		int generic = type.indexOf('<');
		String name = (generic >= 0) ? type.substring(0, generic) : type;
		return ClassUtils.isPresent(name, classLoader) ? ClassUtils.resolveClassName(name, classLoader) : null;
	}
}
