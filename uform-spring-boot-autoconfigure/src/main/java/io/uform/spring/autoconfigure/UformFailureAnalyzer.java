package io.uform.spring.autoconfigure;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.MeshOptions;
import io.uform.UformException;

/**
 * Turns a {@link UformException} that stopped the application from starting into a report that
 * names what the user wrote: the {@code uform.*} property, its value and where it was set (the
 * property source's origin, as Boot's own analyzers show it), or, when the value did not come from a
 * property, the user's config bean or customizer that produced it. {@code threads = 0} in
 * {@code ExecutorForRamConfig} is {@code uform.ram.threads} in {@code application.yml} to the person
 * reading it. The action is uform's fix, which lists what exists (devices, CPU classes, NUMA nodes).
 *
 * <p>Boot makes failure analyzers with the failed context's {@link BeanFactory} and
 * {@link Environment}; either is {@code null} when the failure came before there was a context, and
 * the report then names the property without an origin.
 */
class UformFailureAnalyzer extends AbstractFailureAnalyzer<UformException> {

	/**
	 * What feeds each bean the auto-configuration makes, and how it makes the config from the
	 * properties alone, before the customizers.
	 */
	private record Feed(String prefix, Class<?> config, String configBean, Class<?> customizer,
			Function<UformProperties, Object> fromProperties) {
	}

	private static final Feed RAM = new Feed("uform.ram", ExecutorForRamConfig.class, "uformRamExecutorConfig",
			ExecutorForRamConfigCustomizer.class, UformAutoConfiguration::ramConfig);

	private static final Feed VRAM = new Feed("uform.vram", ExecutorForVramConfig.class, "uformVramExecutorConfig",
			ExecutorForVramConfigCustomizer.class, UformAutoConfiguration::vramConfig);

	private static final Feed MESH = new Feed("uform.mesh", MeshOptions.class, "uformMeshOptions",
			MeshOptionsCustomizer.class, UformAutoConfiguration::meshOptions);

	/** By bean name: configs are partly validated when made, the rest when the executor or mesh is. */
	private static final Map<String, Feed> FEED_BY_BEAN = Map.of(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, RAM,
			"uformRamExecutorConfig", RAM, UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, VRAM,
			"uformVramExecutorConfig", VRAM, UformAutoConfiguration.MESH_BEAN_NAME, MESH, "uformMeshOptions", MESH);

	/** How many elements of a list the report gives the origin of. */
	private static final int LISTED_ELEMENTS = 16;

	private final @Nullable ConfigurableListableBeanFactory beanFactory;

	private final @Nullable Environment environment;

	UformFailureAnalyzer(@Nullable BeanFactory beanFactory, @Nullable Environment environment) {
		this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UformException cause) {
		String bean = failedBean(rootFailure);
		Feed feed = (bean != null && madeHere(bean)) ? FEED_BY_BEAN.get(bean) : null;
		String where = (bean != null) ? "The uform bean '" + bean + "'" : "A uform executor";
		if (bean != null && feed == null && FEED_BY_BEAN.containsKey(bean)) {
			where = "Your bean '" + bean + "' (it replaces the auto-configured one)";
		}
		if (cause.field() != null && feed != null) {
			return fieldFailure(where, cause, feed);
		}
		if (cause.field() != null && bean != null && FEED_BY_BEAN.containsKey(bean)) {
			return new FailureAnalysis(where + " could not be made: " + cause.field() + " = " + shown(cause.value())
					+ " is invalid, in the config that bean passes to uform.",
					"Update the config made in bean '" + bean + "': " + cause.fix() + ".", cause);
		}
		if (bean != null && !FEED_BY_BEAN.containsKey(bean)) {
			// Not a bean uform makes or one replacing it: the user's own code called uform while its bean
			// was made (a fork in a constructor, say), and uform refused the call.
			String what = (cause.field() != null) ? cause.field() + " = " + shown(cause.value()) + " is invalid"
					: cause.getMessage() + " [" + cause.status() + "]";
			String action = (cause.field() != null) ? "Fix that call in bean '" + bean + "': " + cause.fix() + "."
					: "Fix that call in bean '" + bean + "', or what it depends on. " + action(cause, null);
			return new FailureAnalysis("Bean '" + bean + "' could not be made: a uform call it made while it was "
					+ "created was refused: " + what + ".", action, cause);
		}
		return new FailureAnalysis(where + " could not be made: " + askedFor(cause, feed) + cause.getMessage() + " ["
				+ cause.status() + "]", action(cause, feed), cause);
	}

	/**
	 * For a VRAM executor that found no GPU, the property that asked for one whatever the machine
	 * ({@code uform.vram.enabled = true}), with where it was set, so that the report blames what the
	 * user wrote; otherwise nothing.
	 */
	private String askedFor(UformException cause, @Nullable Feed feed) {
		if (feed != VRAM || cause.status() != UformException.Status.NO_DEVICE || this.environment == null) {
			return "";
		}
		ConfigurationProperty enabled = ConfiguredProperties.find(this.environment, "uform.vram.enabled");
		if (enabled == null) {
			return "";
		}
		String origin = ConfiguredProperties.setIn(enabled);
		return "uform.vram.enabled = " + shown(String.valueOf(enabled.getValue())) + origin
				+ " asks for it on every machine, and uform found no device for it: ";
	}

	private FailureAnalysis fieldFailure(String where, UformException cause, Feed feed) {
		String property = feed.prefix() + "." + DataObjectPropertyName.toDashedForm(cause.field());
		String configBean = userConfigBean(feed);
		if (configBean != null) {
			return new FailureAnalysis(where + " could not be made: " + cause.field() + " = " + shown(cause.value())
					+ " is invalid. It came from your " + feed.config().getSimpleName() + " bean '" + configBean
					+ "', which replaces " + feed.prefix() + ".*.",
					"Update the " + feed.config().getSimpleName() + " bean '" + configBean + "': " + cause.fix() + ".",
					cause);
		}
		ConfigurationProperty set = find(property);
		List<String> customizers = beansOfType(feed.customizer());
		boolean fromProperty = set != null && (customizers.isEmpty() || propertiesAloneGive(feed, cause, set));
		if (!fromProperty && !customizers.isEmpty()) {
			String culprit = lastToChange(feed, cause);
			String names = "'" + ((culprit != null) ? culprit : String.join("', '", customizers)) + "'";
			return new FailureAnalysis(where + " could not be made: " + cause.field() + " = " + shown(cause.value())
					+ " is invalid. It came from the " + feed.customizer().getSimpleName()
					+ ((culprit != null) ? " bean " : " bean(s) ") + names
					+ ((set != null) ? ", which changed " + property + " = " + shown(String.valueOf(set.getValue()))
							: ", not from " + property)
					+ ".", "Update the customizer " + names + ": " + cause.fix() + ".", cause);
		}
		// Show the value as the user wrote it ('-5s', not uform's 'PT-5S') when it came from the property.
		String written = (fromProperty && set.getName().toString().equals(property)) ? String.valueOf(set.getValue())
				: cause.value();
		String value = (written == null || "null".equals(written)) ? " is not set" : " = " + shown(written) + " is invalid";
		String origin = (set != null && !set.getName().toString().equals(property)) ? elementsSetIn(property)
				: ConfiguredProperties.setIn(set);
		// The description says what is wrong, the action what to do: uform's message holds both, so it
		// is split rather than repeated, and the action is put in the properties' terms.
		return new FailureAnalysis(where + " could not be made: " + property + value + origin + ".",
				"Update " + property + " in your configuration: " + PropertyTerms.of(cause.fix(), feed.prefix(),
						feed.config()) + ".",
				cause);
	}

	/**
	 * Where a list set one element at a time was set, every element's origin (a YAML list, or
	 * {@code name[0]=}, {@code name[1]=} lines): uform's message names the bad element by value, and
	 * only the first element's origin would point at a good one.
	 */
	private String elementsSetIn(String property) {
		List<String> origins = new ArrayList<>();
		int index = 0;
		ConfigurationProperty element;
		while (this.environment != null && index < LISTED_ELEMENTS
				&& (element = ConfiguredProperties.find(this.environment, property + "[" + index + "]")) != null) {
			if (element.getOrigin() != null) {
				origins.add(element.getOrigin().toString());
			}
			index++;
		}
		return origins.isEmpty() ? "" : " (set in " + String.join(", ", origins) + ")";
	}

	private static String action(UformException cause, @Nullable Feed feed) {
		String properties = (feed != null) ? feed.prefix() + ".*" : "the uform.* properties";
		if (cause.status() == UformException.Status.NO_DEVICE && feed == MESH) {
			// The mesh needs the VRAM executor; the description says what kept it from being made.
			return "Make the VRAM executor as the description says, or, to start without a mesh, remove "
					+ "uform.mesh.host-domain-count.";
		}
		return switch (cause.status()) {
			case NO_DEVICE -> "Check that this machine's GPUs are visible to the process (drivers, container device "
					+ "mounts, CUDA_VISIBLE_DEVICES); to start without the VRAM executor where there is none, set "
					+ "uform.vram.enabled=auto; for development without a GPU, set uform.devices.simulated=1.";
			case UNSUPPORTED -> "Remove the configuration that asks for this feature from " + properties + ".";
			case OUT_OF_MEMORY -> "Where scratch ran out, raise uform.vram.scratch-limit (unset, scratch may grow "
					+ "until the device is full) or ask for less; where the device or the host ran out, free memory "
					+ "or use a larger device.";
			case TIMEOUT -> "Check that every process of the run started and sees the same " + properties
					+ " values, or raise the timeout; the message above names what was missing.";
			default -> "Check " + properties + " against the message above.";
		};
	}

	/**
	 * A value as the report prints it: empty or with spaces at either end in quotes, so that it shows
	 * ({@code cpu-class = ""}, not {@code cpu-class = }), and control and format characters escaped as
	 * {@code \\uXXXX}, so that a hostile value (a job name holding a terminal escape sequence, or a
	 * right-to-left override) cannot rewrite the report on the console it is printed to.
	 */
	static String shown(@Nullable String value) {
		if (value == null) {
			return "null";
		}
		String shown = UformException.printable(value);
		boolean quote = value.isEmpty() || !value.strip().equals(value);
		return quote ? "\"" + shown + "\"" : shown;
	}

	/** The property as set in the environment, with its origin; a list's first element stands for it. */
	private @Nullable ConfigurationProperty find(String property) {
		if (this.environment == null) {
			return null;
		}
		for (String candidate : List.of(property, property + "[0]")) {
			ConfigurationProperty found = ConfiguredProperties.find(this.environment, candidate);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/**
	 * Whether the config the properties alone make (rebuilt as the auto-configuration builds it, before
	 * the customizers) holds the reported value in the reported field: then the property is to blame,
	 * whatever else the customizers changed. Typed values are compared, since the text differs for a
	 * size ({@code 1GB}, uform's {@code 1073741824}), a duration ({@code -5s}, {@code PT-5S}) or a list
	 * set one element at a time. Where the config cannot be rebuilt, the property's text is compared.
	 */
	private boolean propertiesAloneGive(Feed feed, UformException cause, ConfigurationProperty set) {
		if (this.environment != null) {
			Object config;
			try {
				config = fromProperties(feed, this.environment);
			}
			catch (UformException ex) {
				// The properties alone already make an invalid config.
				return true;
			}
			catch (RuntimeException ex) {
				config = null;
			}
			RecordComponent component = componentNamed(config, cause.field());
			if (component != null) {
				try {
					return sameValue(component.getAccessor().invoke(config), cause.value());
				}
				catch (ReflectiveOperationException ex) {
					// Compared as the property was written, below.
				}
			}
		}
		return sameValue(set.getValue(), cause.value());
	}

	/**
	 * The customizer that set the reported field last, from what each one returned (recorded by the
	 * auto-configuration, since the beans are gone with the failed context): with several customizers,
	 * the one to fix rather than all of them. {@code null} where that cannot be told.
	 */
	private @Nullable String lastToChange(Feed feed, UformException cause) {
		if (this.beanFactory == null || !this.beanFactory.containsBeanDefinition(feed.configBean())
				|| !(this.beanFactory.getBeanDefinition(feed.configBean())
					.getAttribute(UformAutoConfiguration.CUSTOMIZER_STEPS_ATTRIBUTE) instanceof List<?> steps)
				|| steps.isEmpty()) {
			return null;
		}
		Object before = propertiesAlone(feed);
		String last = null;
		Object result = null;
		for (Object step : steps) {
			if (!(step instanceof UformAutoConfiguration.CustomizerStep customized)) {
				return null;
			}
			result = customized.result();
			if (before == null || !Objects.equals(component(before, cause.field()), component(result, cause.field()))) {
				last = customized.bean();
			}
			before = result;
		}
		return (last != null && sameValue(component(result, cause.field()), cause.value())) ? last : null;
	}

	/** The config the properties alone make, or {@code null} where it cannot be rebuilt. */
	private @Nullable Object propertiesAlone(Feed feed) {
		if (this.environment == null) {
			return null;
		}
		try {
			return fromProperties(feed, this.environment);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/** The config {@code uform.*} alone makes, before any customizer, as the auto-configuration makes it. */
	private static Object fromProperties(Feed feed, Environment environment) {
		return feed.fromProperties().apply(Binder.get(environment).bindOrCreate("uform", UformProperties.class));
	}

	/** A config record's component by name, like {@code threads}; {@code null} where it has none. */
	private static @Nullable Object component(@Nullable Object config, String name) {
		RecordComponent component = componentNamed(config, name);
		if (component == null) {
			return null;
		}
		try {
			return component.getAccessor().invoke(config);
		}
		catch (ReflectiveOperationException ex) {
			return null;
		}
	}

	/** The record component of a config by name; {@code null} where the config is no record or has none. */
	private static @Nullable RecordComponent componentNamed(@Nullable Object config, String name) {
		if (config == null || !config.getClass().isRecord()) {
			return null;
		}
		for (RecordComponent component : config.getClass().getRecordComponents()) {
			if (component.getName().equals(name)) {
				return component;
			}
		}
		return null;
	}

	/** Whether the text of a property's value is the value uform reported, ignoring quotes and brackets. */
	private static boolean sameValue(@Nullable Object set, @Nullable String reported) {
		return set != null && reported != null && bare(String.valueOf(set)).equals(bare(reported));
	}

	private static String bare(String text) {
		return text.replaceAll("['\"\\[\\]\\s]", "").toLowerCase(Locale.ROOT);
	}

	/** The config bean of this kind when the user defined it, so that the auto-configured one backed off. */
	private @Nullable String userConfigBean(Feed feed) {
		for (String name : beansOfType(feed.config())) {
			if (!madeHere(name)) {
				return name;
			}
		}
		return null;
	}

	private List<String> beansOfType(Class<?> type) {
		return (this.beanFactory != null) ? List.of(this.beanFactory.getBeanNamesForType(type, true, false)) : List.of();
	}

	/** Whether a bean comes from {@link UformAutoConfiguration} rather than from the user. */
	private boolean madeHere(String bean) {
		if (this.beanFactory == null || !this.beanFactory.containsBeanDefinition(bean)) {
			return true;
		}
		BeanDefinition definition = this.beanFactory.getBeanDefinition(bean);
		return UformAutoConfiguration.class.getName().equals(definition.getFactoryBeanName());
	}

	/** The innermost bean whose creation failed: the one the exception came from. */
	private static @Nullable String failedBean(Throwable failure) {
		List<String> beans = new ArrayList<>();
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof BeanCreationException creation && creation.getBeanName() != null) {
				beans.add(creation.getBeanName());
			}
		}
		return beans.isEmpty() ? null : beans.get(beans.size() - 1);
	}
}
