package io.uform.spring.autoconfigure.diagnostics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.ClassUtils;

import io.uform.SimulatedGpus;
import io.uform.Uform;
import io.uform.spring.autoconfigure.ConfiguredProperties;
import io.uform.spring.autoconfigure.UformProperties;
import io.uform.spring.autoconfigure.UformSimulatedDevices;

/**
 * Logs a WARN for each {@code uform.*} key that binds to nothing, such as {@code uform.ram.thread}
 * or {@code uform.threads}, naming where it was set and the nearest valid key, since Spring
 * otherwise ignores a misspelled key without a word.
 *
 * <p>A key is valid when one of these says so:
 * <ol>
 * <li>Binding {@link UformProperties} as Boot will, through {@link Binder} with a handler that
 * records every name it consumes. Relaxed names ({@code cpuClass}, {@code cpu_class}), environment
 * variables ({@code UFORM_RAM_THREADS}), list elements ({@code memory-domains[0]},
 * {@code UFORM_RAM_MEMORYDOMAINS_0}) and map entries are matched by the binder itself, and a property
 * added to {@code UformProperties} (such as {@code uform.mesh.*}) is known without a list kept here.
 * A value the binder cannot convert still marks its key as valid: the real binding reports it.</li>
 * <li>The Spring names read outside {@code UformProperties}, by
 * {@link UformSimulatedDevices}: {@code uform.devices.simulated} and
 * {@code uform.devices.simulated-memory}; and uform's own JVM-level
 * {@code uform.devices.simulated.memory} where uform reads it: in the system properties and the
 * environment.</li>
 * <li>Only when a key is unknown to both: the configuration metadata on the class path
 * ({@link UformMetadata}), so that a property another
 * component declares there is valid too. The metadata also gives the suggestions.</li>
 * </ol>
 * Keys of the same list or map are compared with their indices set aside, so that a list written as
 * {@code memory-domains=0,1} in one source and {@code memory-domains[0]=0} in another are both
 * valid; but a list element of a single-value property ({@code uform.ram.threads[0]}, YAML
 * {@code threads: [8]}) binds to nothing and is reported. A key the binder consumed as it is written
 * is valid whatever its shape: Boot binds {@code UFORM_MESH_HOST_DOMAIN_INDEX} to
 * {@code uform.mesh.host-domain-index} too (its legacy mapping of environment variables, dashes as
 * underscores). Only enumerable property sources are read; from the environment only
 * {@code UFORM_*} variables.
 *
 * <p>It also warns of a text value that is none of the values its property's metadata hints list
 * ({@code cpu-class: intel-haswel}), so that a second typo in a file is
 * reported in the same start as the first. Every suggestion, of a key or a value, comes from
 * {@link Uform#nearestNames}, the rule uform's own messages use.
 *
 * <p>Runs last among the post-processors, so keys any of them added are checked too; it only logs.
 */
public class UformUnknownProperties implements EnvironmentPostProcessor, Ordered {

	/** After every other post-processor. */
	static final int ORDER = Ordered.LOWEST_PRECEDENCE;

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("uform");

	private static final ConfigurationPropertyName MODELS = ConfigurationPropertyName.of("uform.models");

	/** Named, not referenced: the starter runs without {@code uform-onnxruntime}. */
	private static final String ONNXRUNTIME_MODEL = "io.uform.onnxruntime.TextEmbeddingModel";

	/** Spring names that do not bind to {@link UformProperties} but are read elsewhere. */
	private static final Set<String> OTHER_SPRING_NAMES = Set.of(
			UformSimulatedDevices.COUNT_PROPERTY,
			UformSimulatedDevices.MEMORY_PROPERTY);

	private final Log logger;

	/**
	 * Made by Spring Boot.
	 * @param logFactory Boot's log factory, whose logs are replayed once logging is set up
	 */
	UformUnknownProperties(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(UformUnknownProperties.class);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		List<Key> keys = uformKeys(environment);
		if (keys.isEmpty()) {
			return;
		}
		warnOfModelsWithoutOnnxRuntime(keys, application.getClassLoader());
		Bound bound;
		try {
			bound = boundNames(environment);
		}
		catch (RuntimeException ex) {
			// Without the bound names every key would look unknown: better no warning than false ones.
			this.logger.debug("Not checking uform.* keys: binding them failed", ex);
			return;
		}
		Set<String> known = new HashSet<>();
		// Lists by their type, whether or not a source sets them: an element of one is valid whichever
		// source's value the binder took (the whole list above it, say).
		Set<String> knownElements = new HashSet<>(bound.listShapes());
		// Loops rather than lambdas up to the warnings: this runs on the main thread of every start that
		// sets a uform.* key, where the JVM links each lambda's call site at its first use.
		for (ConfigurationPropertyName name : bound.names()) {
			(isElement(name) ? knownElements : known).add(shape(name));
		}
		for (String name : OTHER_SPRING_NAMES) {
			known.add(shape(ConfigurationPropertyName.of(name)));
		}
		String jvmMemory = shape(ConfigurationPropertyName.of(SimulatedGpus.MEMORY_PROPERTY));
		Map<String, List<Key>> unknown = new LinkedHashMap<>();
		for (Key key : keys) {
			String shape = shape(key.name);
			boolean element = isElement(key.name);
			// A list property bound whole ('0,1') makes its elements valid too; a single-value property
			// does not make a list element of it valid (checked against the metadata below).
			boolean valid = bound.written().contains(key.written) || knownElements.contains(shape)
					|| (!element && known.contains(shape)) || (key.system && shape.equals(jvmMemory));
			if (!valid) {
				String group = shape + (element ? "[]" : "");
				List<Key> found = unknown.get(group);
				if (found == null) {
					found = new ArrayList<>();
					unknown.put(group, found);
				}
				found.add(key);
			}
		}
		warnOfUnknownValues(keys, bound, environment, application.getClassLoader());
		if (unknown.isEmpty()) {
			return;
		}
		ClassLoader classLoader = application.getClassLoader();
		UformMetadata metadata = UformMetadata.all(classLoader, this.logger);
		Set<String> shapes = metadata.shapes(null, classLoader);
		Set<String> mapShapes = metadata.shapes(Map.class, classLoader);
		Set<String> listShapes = metadata.shapes(Collection.class, classLoader);
		Set<String> candidates = new TreeSet<>(metadata.names());
		candidates.addAll(OTHER_SPRING_NAMES);
		bound.names().forEach((name) -> candidates.add(withoutIndices(name)));
		candidates.addAll(bound.tried());
		// A map of free keys (a metadata "map") makes any key under it valid; one whose values uform binds
		// field by field (a model entry) does not: there the binder has said which keys it took.
		mapShapes.removeAll(bound.beanMapShapes());
		unknown.forEach((group, found) -> {
			boolean element = group.endsWith("[]");
			String shape = (element) ? group.substring(0, group.length() - 2) : group;
			if ((element ? listShapes : shapes).contains(shape) || mapShapes.stream()
				.anyMatch((map) -> shape.startsWith(map + ".") || shape.startsWith(map + "["))) {
				return;
			}
			if (element && !bound.listShapes().contains(shape) && (known.contains(shape) || shapes.contains(shape))) {
				this.logger.warn(singleValueMessage(found, withoutIndices(found.get(0).name)));
			}
			else {
				this.logger.warn(message(found, nearest(shape, candidates)));
			}
		});
	}

	/**
	 * Warns once where {@code uform.models} names models but {@code uform-onnxruntime}, which makes them,
	 * is not on the class path: the entries bind, and without this nothing would say why no model
	 * bean exists.
	 */
	private void warnOfModelsWithoutOnnxRuntime(List<Key> keys, ClassLoader classLoader) {
		Set<String> models = new TreeSet<>();
		for (Key key : keys) {
			if (MODELS.isAncestorOf(key.name) && key.name.getNumberOfElements() > MODELS.getNumberOfElements()) {
				models.add(key.name.getElement(MODELS.getNumberOfElements(), Form.ORIGINAL));
			}
		}
		// Looked up only where models are configured: the lookup loads the class, on the main thread.
		if (!models.isEmpty() && !ClassUtils.isPresent(ONNXRUNTIME_MODEL, classLoader)) {
			this.logger.warn("uform.models configures " + String.join(", ", models) + ", but io.uform:uform-onnxruntime, "
					+ "which makes models, is not on the class path, so no model bean is made: add that dependency "
					+ "beside the starter (docs/models.md)");
		}
	}

	/**
	 * Warns of each text value that is none of the values its property's hints list (a misspelt
	 * {@code cpu-class}), for the value the binder takes: the key of the highest-ranked source.
	 */
	private void warnOfUnknownValues(List<Key> keys, Bound bound, ConfigurableEnvironment environment,
			ClassLoader classLoader) {
		UformMetadata own = null;
		Set<String> checked = new HashSet<>();
		for (Key key : keys) {
			String shape = shape(key.name);
			if (isElement(key.name) || !bound.textShapes().contains(shape) || !checked.add(shape)
					|| !(key.value instanceof String written)) {
				continue;
			}
			String value;
			try {
				value = environment.resolvePlaceholders(written);
			}
			catch (IllegalArgumentException ex) {
				// A circular placeholder: the binding reports it; this only warns.
				continue;
			}
			if (value.contains("${")) {
				continue;
			}
			if (own == null) {
				own = UformMetadata.own(classLoader, this.logger);
			}
			List<String> takes = own.textValues(shape);
			if (takes != null && !takes.contains(value)) {
				List<String> near = Uform.nearestNames(value, takes);
				// A CPU class in the words, and with the classes, of the failure that follows when the executor
				// is made: the classes this CPU offers, not every class of the hints.
				String problem = shape.endsWith(".cpuclass") ? Uform.cpuClassProblem(value) : null;
				this.logger.warn("Property '" + key.written + "' = " + ConfiguredProperties.shown(value) + " (set in "
						+ ((key.origin != null) ? key.origin : "property source of unknown origin") + ") is "
						+ ((problem != null) ? problem : "none of the values it takes; " + (near.isEmpty()
								? "it takes " + String.join(", ", takes) : "did you mean " + either(near) + "?")));
			}
		}
	}

	/** Whether a name ends in a list index: {@code memory-domains[0]}, {@code UFORM_RAM_THREADS_0}. */
	private static boolean isElement(ConfigurationPropertyName name) {
		return name.getNumberOfElements() > 0 && name.isNumericIndex(name.getNumberOfElements() - 1);
	}

	/** Every {@code uform.*} key of the enumerable sources, from the environment only {@code UFORM_*}. */
	private static List<Key> uformKeys(ConfigurableEnvironment environment) {
		List<Key> keys = new ArrayList<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)) {
				continue;
			}
			String sourceName = (source.getUnderlyingSource() instanceof PropertySource<?> underlying)
					? underlying.getName() : "";
			boolean environmentVariables = isSystemEnvironment(sourceName);
			boolean system = environmentVariables
					|| StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(sourceName);
			// A loop, not a stream: this runs on the main thread of every start (see postProcessEnvironment).
			for (ConfigurationPropertyName name : iterable) {
				if (!PREFIX.isAncestorOf(name)) {
					continue;
				}
				ConfigurationProperty property = iterable.getConfigurationProperty(name);
				Origin origin = (property != null) ? property.getOrigin() : null;
				String written = written(name, origin);
				if (!environmentVariables || written.toUpperCase(Locale.ROOT).startsWith("UFORM_")) {
					keys.add(new Key(name, written, origin, system, (property != null) ? property.getValue() : null));
				}
			}
		}
		return keys;
	}

	/** A key as its source holds it ({@code UFORM_RAM_THREADS}), else its name. */
	private static String written(ConfigurationPropertyName name, @Nullable Origin origin) {
		return (origin instanceof PropertySourceOrigin fromSource) ? fromSource.getPropertyName() : name.toString();
	}

	private static boolean isSystemEnvironment(String sourceName) {
		String name = StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME;
		return sourceName.equals(name) || sourceName.endsWith("-" + name);
	}

	/**
	 * Every name binding {@link UformProperties} consumes from the environment, as Boot will bind it,
	 * values it cannot convert included: in the binder's canonical form ({@code uform.ram.cpu-class}),
	 * which property sources match in any relaxed form, and as the sources hold them
	 * ({@code UFORM_MESH_HOST_DOMAIN_INDEX}), since Boot's legacy mapping binds some environment
	 * variables whose shape differs from the canonical name's.
	 */
	private static Bound boundNames(ConfigurableEnvironment environment) {
		Set<ConfigurationPropertyName> names = new HashSet<>();
		Set<String> written = new HashSet<>();
		Set<String> listShapes = new HashSet<>();
		Set<String> textShapes = new HashSet<>();
		Set<String> beanMapShapes = new HashSet<>();
		Set<String> tried = new HashSet<>();
		Binder.get(environment).bind("uform", Bindable.of(UformProperties.class), new AbstractBindHandler() {

			@Override
			public <T> Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target, BindContext context) {
				// Every property the binder tries, set or not: the list-typed ones, by their type.
				ResolvableType type = target.getType();
				for (String map : beanMapShapes) {
					// A model entry's fields, set or not: the metadata has the map alone, so only the
					// binder can suggest 'truncate' for 'truncte' there.
					if (shape(name).startsWith(map + ".")) {
						tried.add(withoutIndices(name));
					}
				}
				if (Map.class.isAssignableFrom(type.toClass())
						&& !BeanUtils.isSimpleValueType(type.asMap().getGeneric(1).toClass())) {
					beanMapShapes.add(shape(name));
				}
				if (type.isArray() || Collection.class.isAssignableFrom(type.toClass())) {
					listShapes.add(shape(name));
				}
				else if (type.toClass() == String.class) {
					textShapes.add(shape(name));
				}
				return target;
			}

			@Override
			public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					@Nullable Object result) throws Exception {
				record(name, context);
			}

			@Override
			public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target,
					BindContext context, Exception error) {
				record(name, context);
				return null;
			}

			private void record(ConfigurationPropertyName name, BindContext context) {
				ConfigurationProperty property = context.getConfigurationProperty();
				if (property != null) {
					names.add(name);
					written.add(written(property.getName(), property.getOrigin()));
				}
			}
		});
		return new Bound(names, written, listShapes, textShapes, beanMapShapes, tried);
	}

	/**
	 * What binding consumed: canonical names, and the keys as their sources hold them; the shapes of
	 * the list-typed and of the text properties it tried, whether or not a source set them; the shapes
	 * of the maps whose values are objects it binds field by field ({@code uform.models}), under which
	 * a key it did not consume is unknown; and the names it tried under those, for the suggestions.
	 */
	private record Bound(Set<ConfigurationPropertyName> names, Set<String> written, Set<String> listShapes,
			Set<String> textShapes, Set<String> beanMapShapes, Set<String> tried) {
	}

	/**
	 * A name with list indices set aside, in Boot's uniform form: {@code uform.ram.memory-domains[0]},
	 * {@code uform.ram.memoryDomains} and {@code UFORM_RAM_MEMORYDOMAINS_1} all give
	 * {@code uform.ram.memorydomains}, and {@code uform.things[2].name} gives
	 * {@code uform.things[].name}.
	 */
	static String shape(ConfigurationPropertyName name) {
		int elements = name.getNumberOfElements();
		while (elements > 0 && name.isNumericIndex(elements - 1)) {
			elements--;
		}
		StringBuilder shape = new StringBuilder();
		for (int i = 0; i < elements; i++) {
			if (name.isNumericIndex(i)) {
				shape.append("[]");
			}
			else {
				shape.append((i > 0) ? "." : "").append(name.getElement(i, Form.UNIFORM));
			}
		}
		return shape.toString();
	}

	/**
	 * A name in its dashed form without trailing list indices: {@code uform.vram.devices[1]} is
	 * {@code uform.vram.devices}.
	 */
	static String withoutIndices(ConfigurationPropertyName name) {
		ConfigurationPropertyName shortened = name;
		while (shortened.isLastElementIndexed() && shortened.getNumberOfElements() > 1) {
			shortened = shortened.getParent();
		}
		return shortened.toString();
	}

	/**
	 * The candidates nearest a key's shape by uform's one did-you-mean rule ({@link Uform#nearestNames}),
	 * compared in Boot's uniform form, so that {@code cpuclas} is one edit from {@code cpu-class}.
	 * @return the nearest, empty when none is near enough to be a typo
	 */
	static List<String> nearest(String shape, Set<String> candidates) {
		Map<String, String> byShape = new LinkedHashMap<>();
		for (String candidate : candidates) {
			String candidateShape = shape(ConfigurationPropertyName.of(candidate));
			if (!candidateShape.equals(shape)) {
				byShape.putIfAbsent(candidateShape, candidate);
			}
		}
		List<String> nearest = new ArrayList<>();
		for (String found : Uform.nearestNames(shape, byShape.keySet())) {
			nearest.add(byShape.get(found));
		}
		return nearest;
	}

	private static String message(List<Key> found, List<String> suggestions) {
		List<String> places = new ArrayList<>();
		for (Key key : found) {
			// As Boot's reports say it: "class path resource [application.yml] - 3:5", or
			// "uform.ram.thread" from property source "commandLineArgs".
			String place = (key.origin != null) ? key.origin.toString() : "property source of unknown origin";
			if (!places.contains(place)) {
				places.add(place);
			}
		}
		return "Unknown property '" + found.get(0).written + "' (set in " + String.join(" and in ", places)
				+ ") binds to nothing and is ignored; "
				+ (suggestions.isEmpty() ? "no uform property has a similar name."
						: "did you mean " + either(quoted(suggestions)) + "?");
	}

	private static List<String> quoted(List<String> names) {
		List<String> quoted = new ArrayList<>();
		for (String name : names) {
			quoted.add("'" + name + "'");
		}
		return quoted;
	}

	private static String singleValueMessage(List<Key> found, String property) {
		String place = (found.get(0).origin != null) ? found.get(0).origin.toString() : "property source of unknown origin";
		return "Property '" + found.get(0).written + "' (set in " + place + ") is a list element, but '" + property
				+ "' takes a single value, so it binds to nothing and is ignored; write it without the index, like "
				+ property + "=" + example(found.get(0)) + " (YAML: no [ ] around the value)";
	}

	/**
	 * The value the user gave the element, as the example of writing it without the index: a number
	 * would be a wrong example for {@code uform.ram.cpu-class[0]}.
	 */
	private static String example(Key key) {
		String value = (key.value != null) ? ConfiguredProperties.shown(String.valueOf(key.value)) : "";
		return (value.isEmpty() || value.length() > 40) ? "..." : value;
	}

	/** One {@code uform.*} key as a property source holds it. */
	private record Key(ConfigurationPropertyName name, String written, @Nullable Origin origin, boolean system,
			@Nullable Object value) {
	}

	/** Names joined as a person lists alternatives: {@code a}, {@code a or b}, {@code a, b or c}. */
	private static String either(List<String> names) {
		int last = names.size() - 1;
		return (last == 0) ? names.get(0) : String.join(", ", names.subList(0, last)) + " or " + names.get(last);
	}
}
