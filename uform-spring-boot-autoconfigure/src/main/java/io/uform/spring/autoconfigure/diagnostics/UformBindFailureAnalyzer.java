package io.uform.spring.autoconfigure.diagnostics;

import java.beans.PropertyDescriptor;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

import io.uform.GpuDevice;
import io.uform.Uform;
import io.uform.spring.autoconfigure.ConfiguredProperties;
import io.uform.spring.autoconfigure.UformProperties;
import io.uform.spring.autoconfigure.models.UformModelProperties;

/**
 * Turns a {@code uform.*} value that Spring cannot convert ({@code threads: four},
 * {@code scratch-limit: 8gb}, {@code timeout: 5 m}, {@code enabled: yes}) into a report that names the
 * property, its value, where it was set and why it was refused in plain words, and whose action says
 * what the property takes: the kind of value, with an example, and the property's own description
 * from the configuration metadata. Boot's own {@code BindFailureAnalyzer} would print the converter's
 * {@code For input string: "four"} and only "Update your application's configuration".
 *
 * <p>Ordered before Boot's analyzers, which are unordered, so that it sees a bind failure first; it
 * returns {@code null} (leaving the failure to Boot) for properties outside {@code uform.*} and for
 * failures that are not about converting one value (Boot reports those {@link UformProperties} refuses
 * while validating).
 */
public class UformBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("uform");

	private static final Log logger = LogFactory.getLog(UformBindFailureAnalyzer.class);

	@Override
	public int getOrder() {
		// Before Boot's BindFailureAnalyzer (unordered, so last), after anything that asks to go first.
		return Ordered.HIGHEST_PRECEDENCE + 100;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
		ConfigurationProperty property = cause.getProperty();
		Throwable reason = cause.getCause();
		if (property == null || !PREFIX.isAncestorOf(property.getName()) || reason == null
				|| reason instanceof UnboundConfigurationPropertiesException
				|| reason instanceof BindValidationException) {
			// Not one uform value that was refused (a list with a gap, a validation failure): Boot's own
			// analyzers report those.
			return null;
		}
		String name = property.getName().toString();
		String description = "The uform properties could not be bound: " + name + " = "
				+ ConfiguredProperties.shown(String.valueOf(property.getValue())) + " is invalid"
				+ ConfiguredProperties.setIn(property) + ": " + why(reason) + ".";
		String listed = UformUnknownProperties.withoutIndices(property.getName());
		UformMetadata.Property metadata = UformMetadata.all(UformBindFailureAnalyzer.class.getClassLoader(), logger)
			.property(listed);
		String takes = (metadata != null) ? takes(metadata.type()) : modelEntryTakes(property.getName());
		if (listed.equals("uform.vram.devices")) {
			takes += "; devices here: " + devicesHere();
		}
		String about = (metadata != null && metadata.description() != null) ? metadata.description() : "";
		return new FailureAnalysis(description, "Update " + name + " in your configuration: "
				+ (takes.isEmpty() ? about : "it takes " + takes + ". " + about).strip(), cause);
	}

	/**
	 * The kind of value a property takes, with an example, as a person writes it; empty for text, whose
	 * description says what it holds.
	 * @param type the property's type, as the configuration metadata names it
	 * @return what to write
	 */
	public static String takes(@Nullable String type) {
		if (type == null) {
			return "";
		}
		return switch (type) {
			case "java.lang.String" -> "";
			case "java.lang.Integer" -> "a whole number, such as 8";
			case "java.util.List<java.lang.Integer>" -> "whole numbers, such as 0 or 0,1 (YAML: [0, 1])";
			case "java.lang.Boolean" -> "true or false";
			case "java.time.Duration" ->
				"a duration such as 30s, 500ms, 2m or PT2M (units ns, us, ms, s, m, h, d; no space before the unit)";
			case "java.util.Map<java.lang.String,io.uform.spring.autoconfigure.models.UformModelProperties>" ->
				"named models, each with a model and a tokenizer (docs/models.md)";
			case "org.springframework.core.io.Resource" ->
				"a resource location such as classpath:/model.onnx or file:/models/model.onnx";
			case "org.springframework.util.unit.DataSize" ->
				"a size such as 512MB or 8GB (units B, KB, MB, GB, TB, in capitals; no space inside)";
			default -> values(type);
		};
	}

	/**
	 * What a field of a {@code uform.models.<name>} entry takes: the metadata has the map alone, so the
	 * field's type is read from {@link UformModelProperties}; empty for any other property.
	 */
	private static String modelEntryTakes(ConfigurationPropertyName name) {
		if (name.getNumberOfElements() != 4 || !ConfigurationPropertyName.of("uform.models").isAncestorOf(name)) {
			return "";
		}
		String field = name.getLastElement(ConfigurationPropertyName.Form.DASHED);
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(UformModelProperties.class)) {
			if (property.getWriteMethod() != null && DataObjectPropertyName.toDashedForm(property.getName()).equals(field)) {
				return takes(ClassUtils.resolvePrimitiveIfNecessary(property.getPropertyType()).getName())
						+ "; see docs/models.md";
			}
		}
		return "";
	}

	/** An enum's values, lower case, as they are written ({@code auto, true or false}). */
	private static String values(String type) {
		try {
			Class<?> named = Class.forName(type, false, UformBindFailureAnalyzer.class.getClassLoader());
			List<String> values = Arrays.stream(named.getEnumConstants())
				.map((value) -> value.toString().toLowerCase(Locale.ROOT))
				.toList();
			return String.join(", ", values.subList(0, values.size() - 1)) + " or " + values.get(values.size() - 1);
		}
		catch (ClassNotFoundException | RuntimeException ex) {
			return "a value of type " + type;
		}
	}

	/** The devices GPU discovery found (it has run by now, or runs once here), as uform's messages list them. */
	private static String devicesHere() {
		try {
			List<GpuDevice> devices = Uform.gpuDevices();
			return devices.isEmpty() ? "none" : GpuDevice.listed(devices);
		}
		catch (RuntimeException | LinkageError ex) {
			// The report is for a bad value; a discovery that fails here must not hide it.
			return "unknown (listing them failed: " + ex + ")";
		}
	}

	/**
	 * Why the value was refused, in the words of the innermost failure ({@code Unknown data unit suffix
	 * 'gb'}) rather than the converter's types; a number Java could not parse in plain words.
	 */
	private static String why(Throwable reason) {
		Throwable innermost = NestedExceptionUtils.getMostSpecificCause(reason);
		String message = innermost.getMessage();
		if (message == null || message.isBlank()) {
			return innermost.getClass().getSimpleName();
		}
		if (innermost instanceof NumberFormatException) {
			// Java's "For input string: \"four\"" says neither what is wrong nor what a number looks like.
			return "not a whole number (digits only, such as 8: no words, units or decimal point)";
		}
		if (innermost instanceof IllegalArgumentException && message.startsWith("No enum constant ")) {
			// "No enum constant io.uform...VramEnabled.yes": the action lists the values.
			return "not one of the values it takes";
		}
		return ConfiguredProperties.shown(message);
	}
}
