package io.uform.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.MeshOptions;
import io.uform.UformException;

/**
 * Who set the config field uform refused when an executor or the mesh was made: the {@code uform.*}
 * property the auto-configuration made the config from ({@code threads} is {@code uform.ram.threads}),
 * a customizer bean that changed it, or the user's own config bean. A property becomes Boot's
 * {@link InvalidConfigurationPropertyValueException}, whose analyzer reports the property's value and
 * origin; a bean becomes a {@link UformBeanValueException} naming it.
 *
 * @param <C> the config type
 * @param prefix the properties the config is made from, like {@code uform.ram}
 * @param config the config type
 * @param customizer the customizer type
 * @param fields each config field, by uform's name for it: how to read it from a config, to tell
 *        which customizer changed it (a field no property sets, like {@code streams}, is always a bean's)
 */
record ConfigFieldBlame<C>(String prefix, Class<C> config, Class<?> customizer, Map<String, Function<C, ?>> fields) {

	static final ConfigFieldBlame<ExecutorForRamConfig> RAM = new ConfigFieldBlame<>("uform.ram",
			ExecutorForRamConfig.class, ExecutorForRamConfigCustomizer.class,
			Map.of("memoryDomains", ExecutorForRamConfig::memoryDomains, "cpuClass", ExecutorForRamConfig::cpuClass,
					"threads", ExecutorForRamConfig::threads, "deferredLimit", ExecutorForRamConfig::deferredLimit));

	static final ConfigFieldBlame<ExecutorForVramConfig> VRAM = new ConfigFieldBlame<>("uform.vram",
			ExecutorForVramConfig.class, ExecutorForVramConfigCustomizer.class,
			Map.of("devices", ExecutorForVramConfig::devices, "gpuClass", ExecutorForVramConfig::gpuClass,
					"memoryDomains", ExecutorForVramConfig::memoryDomains, "cpuClass", ExecutorForVramConfig::cpuClass,
					"streams", ExecutorForVramConfig::streams, "scratchLimit", ExecutorForVramConfig::scratchLimit,
					"deferredLimit", ExecutorForVramConfig::deferredLimit));

	static final ConfigFieldBlame<MeshOptions> MESH = new ConfigFieldBlame<>("uform.mesh", MeshOptions.class,
			MeshOptionsCustomizer.class,
			Map.of("hostDomainIndex", MeshOptions::hostDomainIndex, "hostDomainCount", MeshOptions::hostDomainCount,
					"gpusPerMultimemDomain", MeshOptions::gpusPerMultimemDomain, "directory", MeshOptions::directory,
					"job", MeshOptions::job, "timeout", MeshOptions::timeout, "livenessTimeout",
					MeshOptions::livenessTimeout));

	/** How many elements of a list set one at a time the report gives the origin of. */
	private static final int LISTED_ELEMENTS = 16;

	/**
	 * One customizer's turn, as the auto-configuration applies them.
	 * @param <C> the config type
	 * @param bean the customizer's bean name
	 * @param result the config it returned
	 */
	record Step<C>(String bean, C result) {
	}

	/**
	 * A config as the properties alone make it, and each customizer's turn on it.
	 * @param <C> the config type
	 * @param fromProperties the config the properties alone make
	 * @param steps the customizers' turns, in order
	 */
	record Customized<C>(C fromProperties, List<Step<C>> steps) {

		/**
		 * The config after the last customizer's turn.
		 * @return the config to make the executor or mesh with
		 */
		C result() {
			return this.steps.isEmpty() ? this.fromProperties : this.steps.get(this.steps.size() - 1).result();
		}
	}

	/**
	 * The failure to throw in place of uform's.
	 * @param madeBean the bean that was being made, like {@code uformRamExecutor}
	 * @param failure what uform refused
	 * @param used the config the bean was made with
	 * @param customized the config the properties alone make, and the customizers' turns on it
	 * @param environment where the properties were set
	 * @param beans the bean factory, for the name of the user's config bean
	 * @return the failure naming what set the field; uform's own where the failure is not about a field
	 *         the properties set
	 */
	RuntimeException blame(String madeBean, UformException failure, C used, Customized<C> customized,
			Environment environment, ListableBeanFactory beans) {
		Function<C, ?> field = (failure.field() != null) ? this.fields.get(failure.field()) : null;
		if (field == null) {
			return failure;
		}
		String property = this.prefix + "." + DataObjectPropertyName.toDashedForm(failure.field());
		String refused = "The uform bean '" + madeBean + "' could not be made: " + failure.field() + " = "
				+ UformFailureAnalyzer.shown(failure.value()) + " is invalid. It came from ";
		if (!customized.result().equals(used)) {
			String[] names = beans.getBeanNamesForType(this.config);
			String bean = (names.length > 0) ? names[0] : "?";
			String type = this.config.getSimpleName();
			return new UformBeanValueException(refused + "your " + type + " bean '" + bean + "', which replaces "
					+ this.prefix + ".*.", "Update the " + type + " bean '" + bean + "': " + failure.fix() + ".",
					failure);
		}
		String culprit = null;
		Object before = field.apply(customized.fromProperties());
		for (Step<C> step : customized.steps()) {
			Object after = field.apply(step.result());
			if (!Objects.equals(before, after)) {
				culprit = step.bean();
			}
			before = after;
		}
		ConfigurationProperty set = ConfiguredProperties.find(environment, property);
		if (culprit == null) {
			return invalidProperty(property, set, failure, environment);
		}
		return new UformBeanValueException(refused + "the " + this.customizer.getSimpleName() + " bean '" + culprit
				+ "', " + ((set != null) ? "which changed " + property + " = "
						+ UformFailureAnalyzer.shown(String.valueOf(set.getValue())) : "not from " + property)
				+ ".", "Update the customizer '" + culprit + "': " + failure.fix() + ".", failure);
	}

	/**
	 * Boot's failure for a property uform refused. Boot finds the origin of a property set as a whole, or
	 * of a list's only element ({@code memory-domains: [3]} in YAML); of a list of several set one
	 * element at a time, the reason gives each element's origin, the bad one's among them.
	 */
	private static InvalidConfigurationPropertyValueException invalidProperty(String property,
			@Nullable ConfigurationProperty set, UformException failure, Environment environment) {
		List<String> origins = new ArrayList<>();
		for (int index = 0; set == null && index < LISTED_ELEMENTS; index++) {
			ConfigurationProperty element = ConfiguredProperties.find(environment, property + "[" + index + "]");
			if (element == null) {
				break;
			}
			origins.add(String.valueOf(element.getOrigin()));
		}
		if (origins.size() == 1) {
			ConfigurationProperty only = ConfiguredProperties.find(environment, property + "[0]");
			return new InvalidConfigurationPropertyValueException(property + "[0]",
					UformException.printable(String.valueOf(only.getValue())), failure.fix());
		}
		String value = (set != null) ? String.valueOf(set.getValue()) : failure.value();
		String reason = failure.fix() + (origins.isEmpty() ? "" : " (set in " + String.join(", ", origins) + ")");
		return new InvalidConfigurationPropertyValueException(property, UformException.printable(value), reason);
	}
}
