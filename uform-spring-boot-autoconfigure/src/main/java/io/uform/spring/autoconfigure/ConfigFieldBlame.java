package io.uform.spring.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

import io.uform.UformException;

/**
 * A config as the {@code uform.*} properties make it and the customizer beans change it, remembered
 * so that a field uform refuses when the executor or mesh is made is blamed on whoever set it: the
 * property ({@code threads} is {@code uform.ram.threads}), a customizer bean that changed it, or the
 * user's own config bean. A property becomes Boot's {@link InvalidConfigurationPropertyValueException},
 * whose analyzer reports the property's value and origin; a bean becomes a
 * {@link UformBeanValueException} naming it.
 *
 * <p>The config's fields are its record components, by name: a field added to the record is blamed
 * without a list kept here ({@code ConfigFieldBlameTest} checks each has a property or is set only in
 * code). They are read reflectively, and only on the failure path.
 *
 * @param <C> the config type, a record
 * @param <K> the customizer type
 */
final class ConfigFieldBlame<C extends Record, K> {

	/** How many elements of a list set one at a time the report gives the origin of. */
	private static final int LISTED_ELEMENTS = 16;

	private final String prefix;

	private final Class<C> config;

	private final Class<K> customizer;

	private final BiFunction<K, C, C> apply;

	private final Environment environment;

	private final ListableBeanFactory beans;

	/** The customizers' turns on the config bean made last; {@code null} where the user's bean replaces it. */
	private volatile @Nullable Customized<C, K> customized;

	/**
	 * Makes the blame for one config bean.
	 * @param prefix the properties the config is made from, like {@code uform.ram}
	 * @param config the config type
	 * @param customizer the customizer type
	 * @param apply how a customizer changes a config
	 * @param environment where the properties were set
	 * @param beans the bean factory, for the names of customizer and config beans
	 */
	ConfigFieldBlame(String prefix, Class<C> config, Class<K> customizer, BiFunction<K, C, C> apply,
			Environment environment, ListableBeanFactory beans) {
		this.prefix = prefix;
		this.config = config;
		this.customizer = customizer;
		this.apply = apply;
		this.environment = environment;
		this.beans = beans;
	}

	/** The properties a config's fields are set by, like {@code uform.ram}. */
	String prefix() {
		return this.prefix;
	}

	/**
	 * Applies the customizer beans to a config in {@code @Order} order, each to the previous one's
	 * result, and remembers each one's turn for {@link #blame}. A customizer that returns {@code null}
	 * fails startup naming its bean, rather than an executor being made from nothing.
	 * @param fromProperties the config as the properties alone make it
	 * @param customizers the customizer beans
	 * @return the config after the last customizer's turn
	 */
	C customize(C fromProperties, ObjectProvider<K> customizers) {
		C customized = fromProperties;
		List<Step<C, K>> steps = new ArrayList<>();
		for (K each : customizers.orderedStream().toList()) {
			C next = this.apply.apply(each, customized);
			if (next == null) {
				throw new IllegalStateException(this.customizer.getSimpleName() + " bean '" + beanName(each) + "' ("
						+ each.getClass().getName() + ") returned null; a customizer returns the "
						+ this.config.getSimpleName() + " it is given, or a changed copy made with its with* methods");
			}
			steps.add(new Step<>(each, next));
			customized = next;
		}
		if (customized != fromProperties) {
			UformAutoConfiguration.logger.debug(this.config.getSimpleName() + " after customizers: " + customized);
		}
		this.customized = new Customized<>(fromProperties, steps);
		return customized;
	}

	/**
	 * The failure to throw in place of uform's.
	 * @param madeBean the bean that was being made, like {@code uformRamExecutor}
	 * @param failure what uform refused
	 * @param used the config the bean was made with
	 * @return the failure naming what set the field; uform's own where the failure is not about a field
	 */
	RuntimeException blame(String madeBean, UformException failure, C used) {
		RecordComponent field = component(this.config, failure.field());
		if (field == null) {
			return failure;
		}
		String property = this.prefix + "." + DataObjectPropertyName.toDashedForm(failure.field());
		String refused = "The uform bean '" + madeBean + "' could not be made: " + failure.field() + " = "
				+ ConfiguredProperties.shown(failure.value()) + " is invalid. It came from ";
		Customized<C, K> customized = this.customized;
		if (customized == null || !customized.result().equals(used)) {
			String[] names = this.beans.getBeanNamesForType(this.config);
			String bean = (names.length > 0) ? names[0] : "?";
			String type = this.config.getSimpleName();
			return new UformBeanValueException(refused + "your " + type + " bean '" + bean + "', which replaces "
					+ this.prefix + ".*.", "Update the " + type + " bean '" + bean + "': " + failure.fix() + ".",
					failure);
		}
		K culprit = null;
		Object before = read(field, customized.fromProperties());
		for (Step<C, K> step : customized.steps()) {
			Object after = read(field, step.result());
			if (!Objects.equals(before, after)) {
				culprit = step.customizer();
			}
			before = after;
		}
		ConfigurationProperty set = ConfiguredProperties.find(this.environment, property);
		if (culprit == null) {
			return invalidProperty(property, set, failure);
		}
		String name = beanName(culprit);
		return new UformBeanValueException(refused + "the " + this.customizer.getSimpleName() + " bean '" + name
				+ "', " + ((set != null) ? "which changed " + property + " = "
						+ ConfiguredProperties.shown(String.valueOf(set.getValue())) : "not from " + property)
				+ ".", "Update the customizer '" + name + "': " + failure.fix() + ".", failure);
	}

	/**
	 * The record component of that name: the config field uform names in a failure.
	 * @param config the config type
	 * @param name the field's name, or {@code null}
	 * @return the component, or {@code null} where the config has none of that name
	 */
	static @Nullable RecordComponent component(Class<? extends Record> config, @Nullable String name) {
		for (RecordComponent component : config.getRecordComponents()) {
			if (component.getName().equals(name)) {
				return component;
			}
		}
		return null;
	}

	/** A config's field, read through its accessor. */
	static @Nullable Object read(RecordComponent field, Record config) {
		try {
			return field.getAccessor().invoke(config);
		}
		catch (IllegalAccessException | InvocationTargetException ex) {
			throw new IllegalStateException("Cannot read " + field + " of " + config, ex);
		}
	}

	private String beanName(K customizer) {
		for (String name : this.beans.getBeanNamesForType(this.customizer)) {
			if (this.beans.getBean(name) == customizer) {
				return name;
			}
		}
		return "?";
	}

	/**
	 * Boot's failure for a property uform refused. Boot finds the origin of a property set as a whole, or
	 * of a list's only element ({@code memory-domains: [3]} in YAML); of a list of several set one
	 * element at a time, the reason gives each element's origin, the bad one's among them.
	 */
	private InvalidConfigurationPropertyValueException invalidProperty(String property,
			@Nullable ConfigurationProperty set, UformException failure) {
		List<String> origins = new ArrayList<>();
		for (int index = 0; set == null && index < LISTED_ELEMENTS; index++) {
			ConfigurationProperty element = ConfiguredProperties.find(this.environment, property + "[" + index + "]");
			if (element == null) {
				break;
			}
			origins.add(String.valueOf(element.getOrigin()));
		}
		if (origins.size() == 1) {
			ConfigurationProperty only = ConfiguredProperties.find(this.environment, property + "[0]");
			return new InvalidConfigurationPropertyValueException(property + "[0]",
					UformException.printable(String.valueOf(only.getValue())), failure.fix());
		}
		String value = (set != null) ? String.valueOf(set.getValue()) : failure.value();
		String reason = failure.fix() + (origins.isEmpty() ? "" : " (set in " + String.join(", ", origins) + ")");
		return new InvalidConfigurationPropertyValueException(property, UformException.printable(value), reason);
	}

	/** One customizer's turn: the bean, and the config it returned. */
	private record Step<C, K>(K customizer, C result) {
	}

	/** A config as the properties alone make it, and each customizer's turn on it, in order. */
	private record Customized<C, K>(C fromProperties, List<Step<C, K>> steps) {

		C result() {
			return this.steps.isEmpty() ? this.fromProperties : this.steps.get(this.steps.size() - 1).result();
		}
	}
}
