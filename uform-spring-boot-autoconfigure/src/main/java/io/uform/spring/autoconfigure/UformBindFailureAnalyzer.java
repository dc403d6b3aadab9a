package io.uform.spring.autoconfigure;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.Ordered;

import io.uform.GpuDevice;
import io.uform.Uform;

/**
 * Turns a {@code uform.*} value that Spring cannot bind ({@code threads: four}, {@code scratch-limit: 8gb},
 * {@code timeout: 5 m}, {@code enabled: yes}) or that {@link UformProperties} refuses while binding (a
 * negative {@code await-termination-period}) into a report that names the property, its value, where it
 * was set and why it was refused, and whose action says what the property takes, with an example.
 * Boot's own {@code BindFailureAnalyzer} would print the same origin but only "Update your
 * application's configuration".
 *
 * <p>Ordered before Boot's analyzers, which are unordered, so that it sees a bind failure first; it
 * returns {@code null} (leaving the failure to Boot) for properties outside {@code uform.*} and for
 * failures that are not about one value.
 */
class UformBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("uform");

	private static final String WHOLE_NUMBER = "a whole number";

	private static final String DURATION = "a duration such as 30s, 500ms, 2m or PT2M (units ns, us, ms, s, m, h, d; "
			+ "no space before the unit)";

	private static final String SIZE = "a size such as 512MB or 8GB (units B, KB, MB, GB, TB, in capitals; no space "
			+ "inside)";

	private static final String NODES = "NUMA node ids, as listed in /sys/devices/system/node, such as 0 or 0,1 "
			+ "(YAML: [0, 1])";

	/**
	 * What each property takes, by its name without list indices. A property missing here gets the type
	 * the binder reported; {@code ConfigurationMetadataTest} fails when a {@link UformProperties}
	 * property that is not text is missing, so that one added later gets its line too.
	 */
	static final Map<String, String> TAKES = Map.ofEntries(
			Map.entry("uform.ram.enabled", "true or false"),
			Map.entry("uform.ram.threads", WHOLE_NUMBER + " of threads, at least 1, such as 8 (remove it to take 7/8 "
					+ "of the cores)"),
			Map.entry("uform.ram.memory-domains", NODES),
			Map.entry("uform.ram.deferred-limit", WHOLE_NUMBER + " of calls, at least 1, such as 64"),
			Map.entry("uform.vram.enabled", "auto, true or false"),
			Map.entry("uform.vram.devices", "device ordinals, positions in Uform.gpuDevices() as uform-info lists "
					+ "them, such as 0 or 0,1 (YAML: [0, 1])"),
			Map.entry("uform.vram.memory-domains", NODES),
			Map.entry("uform.vram.scratch-limit", SIZE + ", at most the device's memory"),
			Map.entry("uform.vram.deferred-limit", WHOLE_NUMBER + " of calls, at least 1, such as 64"),
			Map.entry("uform.mesh.launcher", "auto, slurm, kubernetes, env or none"),
			Map.entry("uform.mesh.host-domain-index", WHOLE_NUMBER + " from 0 to host-domain-count - 1, such as "
					+ "${JOB_COMPLETION_INDEX:0}"),
			Map.entry("uform.mesh.host-domain-count", WHOLE_NUMBER + " of processes, at least 1, such as 4"),
			Map.entry("uform.mesh.gpus-per-multimem-domain", WHOLE_NUMBER + " of GPUs, at least 1, such as 8"),
			Map.entry("uform.mesh.timeout", "a positive duration such as 120s or 5m (a number without a unit is "
					+ "seconds; no space before the unit)"),
			Map.entry("uform.shutdown.await-termination", "true or false"),
			Map.entry("uform.shutdown.await-termination-period", DURATION + ", zero (free at once) or more"));

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
		String origin = ConfiguredProperties.setIn(property);
		String description = "The uform properties could not be bound: " + name + " = "
				+ UformFailureAnalyzer.shown(String.valueOf(property.getValue())) + " is invalid" + origin + ": "
				+ why(reason) + ".";
		String takes = takes(withoutIndices(property.getName()), cause);
		return new FailureAnalysis(description, "Update " + name + " in your configuration: it takes " + takes + ".",
				cause);
	}

	/** What the property takes; for devices, also the ones this process sees. */
	private static String takes(String property, BindException cause) {
		String takes = TAKES.get(property);
		if (takes == null) {
			return "a value of type " + cause.getTarget().getType();
		}
		if (property.equals("uform.vram.devices")) {
			takes += "; devices here: " + devicesHere();
		}
		return takes;
	}

	/** The devices GPU discovery found (it has run by now, or runs once here), as uform's messages list them. */
	private static String devicesHere() {
		try {
			List<GpuDevice> devices = Uform.gpuDevices();
			if (devices.isEmpty()) {
				return "none";
			}
			return GpuDevice.listed(devices);
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
		return UformFailureAnalyzer.shown(message);
	}

	/** A property's name with list indices dropped: {@code uform.vram.devices[1]} is {@code uform.vram.devices}. */
	private static String withoutIndices(ConfigurationPropertyName name) {
		ConfigurationPropertyName shortened = name;
		while (shortened.isLastElementIndexed() && shortened.getNumberOfElements() > 1) {
			shortened = shortened.getParent();
		}
		return shortened.toString();
	}
}
