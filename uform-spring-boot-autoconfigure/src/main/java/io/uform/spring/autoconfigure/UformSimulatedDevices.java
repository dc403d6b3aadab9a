package io.uform.spring.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.unit.DataSize;

import io.uform.SimulatedGpus;

/**
 * Lets {@value #COUNT_PROPERTY} and {@value #MEMORY_PROPERTY} be set like any Spring property
 * (application.yml, command line, environment), although uform reads simulated devices only from the
 * JVM's system properties {@value SimulatedGpus#COUNT_PROPERTY} and
 * {@value SimulatedGpus#MEMORY_PROPERTY} (or the environment variables
 * {@value SimulatedGpus#COUNT_VARIABLE} and {@value SimulatedGpus#MEMORY_VARIABLE}), once per
 * JVM, when something first lists GPUs ({@link SimulatedGpus}).
 *
 * <p>Runs right after Boot's {@link ConfigDataEnvironmentPostProcessor} has loaded the config files
 * and before any bean exists, so before anything of this application lists GPUs. For each of the two
 * settings the Spring value is checked (an invalid one fails startup naming the property, its value,
 * where it was set and the valid range), then:
 * <ul>
 * <li>no JVM-level setting: the system property is set to the Spring value, so discovery sees it;</li>
 * <li>a JVM-level setting that means something else: it wins, since it is what discovery reads, and a
 * WARN says the Spring value is not used;</li>
 * <li>discovery already ran in this JVM (an earlier application context, or code that listed GPUs
 * before {@code SpringApplication.run}) with something else: a WARN says the value can no longer
 * take effect.</li>
 * </ul>
 * Whenever simulated devices are on, whoever asked for them, a WARN says so: they are host memory,
 * and no kernel runs on them.
 *
 * <p>The memory's Spring name is {@value #MEMORY_PROPERTY} rather than the system property's
 * {@code uform.devices.simulated.memory}: as a Spring property that would make
 * {@value #COUNT_PROPERTY} both a value and a parent, which YAML cannot write
 * ({@code simulated: 2} and {@code simulated: {memory: 512MB}} are the same key). In the environment
 * both spell {@value SimulatedGpus#MEMORY_VARIABLE}, which Spring's relaxed binding reads as
 * {@value #MEMORY_PROPERTY}.
 */
public class UformSimulatedDevices implements EnvironmentPostProcessor, Ordered {

	/** Spring property holding the device count; the same name as uform's system property. */
	public static final String COUNT_PROPERTY = SimulatedGpus.COUNT_PROPERTY;

	/** Spring property holding the memory per device, copied to uform's system property. */
	public static final String MEMORY_PROPERTY = "uform.devices.simulated-memory";

	/** Right after the config files are loaded. */
	static final int ORDER = ConfigDataEnvironmentPostProcessor.ORDER + 1;

	private final Log logger;

	private final Properties systemProperties;

	private final Map<String, String> environmentVariables;

	private final Supplier<@Nullable SimulatedGpus> discovered;

	/**
	 * Made by Spring Boot, with the JVM's own system properties and environment. Public as the one
	 * constructor Spring's factories loader takes when a class has several.
	 * @param logFactory Boot's log factory, whose logs are replayed once logging is set up
	 */
	public UformSimulatedDevices(DeferredLogFactory logFactory) {
		this(logFactory, System.getProperties(), System.getenv(), SimulatedGpus::discovered);
	}

	/**
	 * Made by tests, with stand-ins for the JVM's settings and for what discovery read.
	 * @param logFactory the log factory
	 * @param systemProperties stand-in for {@link System#getProperties()}; written to
	 * @param environmentVariables stand-in for {@link System#getenv()}
	 * @param discovered what discovery read, {@code null} while it has not run
	 */
	UformSimulatedDevices(DeferredLogFactory logFactory, Properties systemProperties,
			Map<String, String> environmentVariables, Supplier<@Nullable SimulatedGpus> discovered) {
		this.logger = logFactory.getLog(UformSimulatedDevices.class);
		this.systemProperties = systemProperties;
		this.environmentVariables = environmentVariables;
		this.discovered = discovered;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Setting count = Setting.find(environment, COUNT_PROPERTY);
		Setting memory = Setting.find(environment, MEMORY_PROPERTY);
		// Both are checked before either is applied, so that a bad one changes nothing.
		String countValue = (count != null) ? Integer.toString(count(count)) : null;
		String memoryValue = (memory != null) ? uformSize(memoryBytes(memory)) : null;
		if (count != null && countValue != null) {
			apply(count, countValue, SimulatedGpus.COUNT_PROPERTY, SimulatedGpus.COUNT_VARIABLE);
		}
		if (memory != null && memoryValue != null) {
			apply(memory, memoryValue, SimulatedGpus.MEMORY_PROPERTY, SimulatedGpus.MEMORY_VARIABLE);
		}
		SimulatedGpus effective = this.discovered.get();
		if (effective == null) {
			effective = SimulatedGpus.read(this.systemProperties, this.environmentVariables);
		}
		for (String problem : effective.problems()) {
			this.logger.warn(problem);
		}
		if (effective.count() > 0) {
			this.logger.warn("Simulated GPUs are on: " + effective.note()
					+ ". Kernel launches fail on them; use them for tests and development, not in production.");
		}
	}

	/**
	 * Copies one checked Spring value to uform's system property, unless a JVM-level setting is there
	 * already or discovery has run.
	 * @param setting the Spring property as found
	 * @param value the checked value as uform reads it, as it will be written
	 * @param systemProperty uform's system property
	 * @param variable uform's environment variable
	 */
	private void apply(Setting setting, String value, String systemProperty, String variable) {
		String jvmName = systemProperty;
		String jvmValue = nonBlank(this.systemProperties.getProperty(systemProperty));
		if (jvmValue == null) {
			jvmName = variable;
			jvmValue = nonBlank(this.environmentVariables.get(variable));
		}
		if (jvmValue != null) {
			if (!sameMeaning(systemProperty, jvmValue, value)) {
				this.logger.warn(setting + " is not used: " + ((jvmName.equals(variable)) ? "the environment variable "
						: "the system property ") + jvmName + " = " + jvmValue
						+ " is set, and GPU discovery reads that one. Remove one of the two.");
			}
			return;
		}
		if (tooLate(setting, systemProperty, value)) {
			return;
		}
		this.systemProperties.setProperty(systemProperty, value);
		if (this.logger.isDebugEnabled()) {
			this.logger.debug("Set system property " + systemProperty + "=" + value + " from " + setting
					+ ", before GPU discovery");
		}
		// Discovery on another thread may have won the race between the check and the write.
		tooLate(setting, systemProperty, value);
	}

	/**
	 * Whether discovery has already run, so that writing the property is pointless; a WARN says so when
	 * what it read differs from {@code value}.
	 */
	private boolean tooLate(Setting setting, String systemProperty, String value) {
		SimulatedGpus read = this.discovered.get();
		if (read == null) {
			return false;
		}
		if (!same(systemProperty, read(systemProperty, value), read)) {
			String found = (read.count() > 0) ? read.note() : "no simulated devices";
			this.logger.warn(setting + " cannot take effect any more: GPU discovery already ran in this JVM and found "
					+ found + ". Set the system property " + systemProperty + "=" + value
					+ " when the JVM starts (-D" + systemProperty + "=" + value + ") instead.");
		}
		return true;
	}

	/** Whether two values of one uform setting mean the same, read as uform reads them. */
	private static boolean sameMeaning(String systemProperty, String jvmValue, String springValue) {
		SimulatedGpus jvm = read(systemProperty, jvmValue);
		return jvm.problems().isEmpty() && same(systemProperty, jvm, read(systemProperty, springValue));
	}

	/** Whether two readings agree on the setting of that system property: the count, or the memory. */
	private static boolean same(String systemProperty, SimulatedGpus one, SimulatedGpus other) {
		return systemProperty.equals(SimulatedGpus.COUNT_PROPERTY) ? one.count() == other.count()
				: one.memoryBytes() == other.memoryBytes();
	}

	/** One setting read as uform reads it, alone. */
	private static SimulatedGpus read(String systemProperty, String value) {
		Properties properties = new Properties();
		properties.setProperty(systemProperty, value);
		return SimulatedGpus.read(properties, Map.of());
	}

	private static int count(Setting setting) {
		int count;
		try {
			count = Integer.parseInt(setting.value);
		}
		catch (NumberFormatException ex) {
			count = -1;
		}
		if (count < 0 || count > SimulatedGpus.MAX_COUNT) {
			throw setting.invalid("Use a whole number of simulated devices from 0 (off) to "
					+ SimulatedGpus.MAX_COUNT);
		}
		return count;
	}

	private static long memoryBytes(Setting setting) {
		DataSize size = dataSize(setting.value);
		if (size == null || size.toBytes() < SimulatedGpus.MIN_MEMORY_BYTES) {
			throw setting.invalid("Use a size of at least 1MB, like 512MB or 2GB");
		}
		return size.toBytes();
	}

	/** A size as Spring reads one ({@code 512MB}, {@code 1GB}, bytes), any case as uform accepts. */
	private static @Nullable DataSize dataSize(String text) {
		try {
			return DataSize.parse(text);
		}
		catch (IllegalArgumentException ex) {
			try {
				return DataSize.parse(text.toUpperCase(Locale.ROOT));
			}
			catch (IllegalArgumentException again) {
				return null;
			}
		}
	}

	/**
	 * A size as uform's system property takes it: the largest of {@code GB}, {@code MB} and
	 * {@code KB} that divides it exactly (uform's are 1024-based, as Spring's), else bytes.
	 */
	static String uformSize(long bytes) {
		if (bytes % (1L << 30) == 0) {
			return (bytes >> 30) + "GB";
		}
		if (bytes % (1L << 20) == 0) {
			return (bytes >> 20) + "MB";
		}
		if (bytes % (1L << 10) == 0) {
			return (bytes >> 10) + "KB";
		}
		return Long.toString(bytes);
	}

	private static @Nullable String nonBlank(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.trim();
	}

	/**
	 * One Spring property as found: its name, trimmed value (placeholders resolved) and where it was
	 * set.
	 */
	private record Setting(String name, String value, @Nullable Origin origin) {

		/** The property from the highest-ranked source that has it, or {@code null} if none or blank. */
		static @Nullable Setting find(ConfigurableEnvironment environment, String name) {
			ConfigurationProperty property = ConfiguredProperties.find(environment, name);
			if (property == null) {
				return null;
			}
			Object resolved = new PropertySourcesPlaceholdersResolver(environment).resolvePlaceholders(property.getValue());
			String value = nonBlank(Objects.toString(resolved, null));
			return (value != null) ? new Setting(name, value, property.getOrigin()) : null;
		}

		InvalidConfigurationPropertyValueException invalid(String valid) {
			return new InvalidConfigurationPropertyValueException(this.name, this.value,
					valid + " (set in " + where() + ").");
		}

		/**
		 * Where the property was set, as Boot's reports say it: {@code class path resource
		 * [application.yml] - 2:14}, or {@code "uform.devices.simulated" from property source
		 * "commandLineArgs"}.
		 */
		String where() {
			return (this.origin != null) ? this.origin.toString() : "an unknown property source";
		}

		@Override
		public String toString() {
			return this.name + " = " + this.value + " (set in " + where() + ")";
		}
	}
}
