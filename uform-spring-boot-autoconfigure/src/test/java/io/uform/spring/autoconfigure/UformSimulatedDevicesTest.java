package io.uform.spring.autoconfigure;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.boot.origin.OriginTrackedValue;
import org.springframework.boot.origin.TextResourceOrigin;
import org.springframework.boot.origin.TextResourceOrigin.Location;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;

import io.uform.SimulatedGpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code uform.devices.simulated} and {@code uform.devices.simulated-memory} as Spring properties,
 * against stand-ins for the JVM's system properties, environment and GPU discovery: this module's
 * tests run with {@code -Duform.devices.simulated=2}, and discovery reads once per JVM, so the real
 * ones are neither the subject nor touched here.
 */
@ExtendWith(OutputCaptureExtension.class)
class UformSimulatedDevicesTest {

	private final Properties systemProperties = new Properties();

	private final Map<String, String> environmentVariables = new HashMap<>();

	private SimulatedGpus discovered;

	private final StandardEnvironment environment = withoutTheJvmsOwnSources();

	@Test
	void springValuesBecomeTheSystemPropertiesWhenTheJvmHasNone(CapturedOutput output) {
		fromApplicationYml("uform.devices.simulated", 2, "uform.devices.simulated-memory", "512MB");
		postProcess();
		assertThat(this.systemProperties).containsEntry("uform.devices.simulated", "2")
			.containsEntry("uform.devices.simulated.memory", "512MB");
		assertThat(SimulatedGpus.read(this.systemProperties, Map.of()).memoryBytes()).isEqualTo(512L << 20);
		assertThat(output).contains("WARN")
			.contains("Simulated GPUs are on: 2 simulated devices of 512 MiB each (uform.devices.simulated=2, "
					+ "uform.devices.simulated.memory=512MB): host memory, not GPUs. Kernel launches fail on them;")
			.doesNotContain("is not used");
	}

	@Test
	void memoryIsWrittenAsUformReadsItInAnySpringSpelling() {
		fromCommandLine("uform.devices.simulated-memory", "2048mb");
		postProcess();
		assertThat(this.systemProperties).containsEntry("uform.devices.simulated.memory", "2GB");
	}

	@Test
	void theJvmSystemPropertyWinsWithAWarnWhenItDisagrees(CapturedOutput output) {
		// -Duform.devices.simulated.memory is another name than uform.devices.simulated-memory to Spring,
		// so application.yml's value is the one Spring sees.
		this.systemProperties.setProperty("uform.devices.simulated", "4");
		this.systemProperties.setProperty("uform.devices.simulated.memory", "256MB");
		fromApplicationYml("uform.devices.simulated-memory", "512MB");
		postProcess();
		assertThat(this.systemProperties).containsEntry("uform.devices.simulated.memory", "256MB");
		assertThat(output).contains("uform.devices.simulated-memory = 512MB (set in class path resource "
				+ "[application.yml] - 1:1) is not used: the system property uform.devices.simulated.memory = 256MB "
				+ "is set, and GPU discovery reads that one. Remove one of the two.")
			.contains("Simulated GPUs are on: 4 simulated devices of 256 MiB each");
	}

	@Test
	void theJvmEnvironmentVariableWinsWithAWarnWhenItDisagrees(CapturedOutput output) {
		// Command-line arguments are the Spring source that outranks the environment.
		this.environmentVariables.put("UFORM_DEVICES_SIMULATED", "4");
		fromEnvironment("UFORM_DEVICES_SIMULATED", "4");
		fromCommandLine("uform.devices.simulated", "2");
		postProcess();
		assertThat(this.systemProperties).doesNotContainKey("uform.devices.simulated");
		assertThat(output).contains("uform.devices.simulated = 2 (set in \"uform.devices.simulated\" from property "
				+ "source \"commandLineArgs\") is not used: the environment variable UFORM_DEVICES_SIMULATED = 4 is set, "
				+ "and GPU discovery reads that one.");
	}

	@Test
	void uformsEnvironmentVariablesAreAlsoTheSpringProperties(CapturedOutput output) {
		this.environmentVariables.put("UFORM_DEVICES_SIMULATED", "3");
		this.environmentVariables.put("UFORM_DEVICES_SIMULATED_MEMORY", "256MB");
		fromEnvironment("UFORM_DEVICES_SIMULATED", "3", "UFORM_DEVICES_SIMULATED_MEMORY", "256MB");
		fromApplicationYml("uform.devices.simulated", 1, "uform.devices.simulated-memory", "512MB");
		postProcess();
		assertThat(this.systemProperties).as("the JVM's own settings stay the only ones").isEmpty();
		assertThat(output).doesNotContain("is not used")
			.contains("Simulated GPUs are on: 3 simulated devices of 256 MiB each");
	}

	@Test
	void aJvmSettingThatMeansTheSameIsQuiet(CapturedOutput output) {
		this.systemProperties.setProperty("uform.devices.simulated", "02");
		this.systemProperties.setProperty("uform.devices.simulated.memory", "1gb");
		fromCommandLine("uform.devices.simulated", "2", "uform.devices.simulated-memory", "1024MB");
		postProcess();
		assertThat(output).doesNotContain("is not used").contains("Simulated GPUs are on");
	}

	@Test
	void afterDiscoveryADifferentValueCannotTakeEffectAndIsNotWritten(CapturedOutput output) {
		this.discovered = SimulatedGpus.read(new Properties(), Map.of());
		fromCommandLine("uform.devices.simulated", "2");
		postProcess();
		assertThat(this.systemProperties).doesNotContainKey("uform.devices.simulated");
		assertThat(output).contains("uform.devices.simulated = 2 (set in \"uform.devices.simulated\" from property "
				+ "source \"commandLineArgs\") cannot take effect any more: GPU discovery already ran in this JVM and "
				+ "found no simulated devices. Set the system property uform.devices.simulated=2 when the JVM starts")
			.doesNotContain("Simulated GPUs are on");
	}

	@Test
	void afterDiscoveryTheSameValueIsQuiet(CapturedOutput output) {
		this.discovered = SimulatedGpus.read(new Properties(), Map.of(SimulatedGpus.COUNT_VARIABLE, "2"));
		fromCommandLine("uform.devices.simulated", "2");
		postProcess();
		assertThat(output).doesNotContain("cannot take effect").contains("Simulated GPUs are on: 2 simulated devices");
	}

	@Test
	void simulatedDevicesAskedForOnlyByTheJvmAreAnnouncedToo(CapturedOutput output) {
		this.environmentVariables.put("UFORM_DEVICES_SIMULATED", "1");
		postProcess();
		assertThat(this.systemProperties).isEmpty();
		assertThat(output).contains("WARN").contains("Simulated GPUs are on: 1 simulated device of 1 GiB");
	}

	@Test
	void nothingAskedForChangesNothingAndSaysNothing(CapturedOutput output) {
		postProcess();
		assertThat(this.systemProperties).isEmpty();
		assertThat(output).doesNotContain("simulated");
	}

	@Test
	void zeroIsWrittenAndIsOff(CapturedOutput output) {
		fromCommandLine("uform.devices.simulated", "0");
		postProcess();
		assertThat(this.systemProperties).containsEntry("uform.devices.simulated", "0");
		assertThat(output).doesNotContain("Simulated GPUs are on");
	}

	@ParameterizedTest
	@ValueSource(strings = { "two", "-1", "65", "2.5" })
	void anInvalidCountFailsStartupNamingPropertyValueRangeAndOrigin(String value) {
		fromApplicationYml("uform.devices.simulated", value, "uform.devices.simulated-memory", "512MB");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class).isThrownBy(this::postProcess)
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("uform.devices.simulated");
				assertThat(ex.getValue()).isEqualTo(value);
				assertThat(ex.getReason()).isEqualTo("Use a whole number of simulated devices from 0 (off) to 64 "
						+ "(set in class path resource [application.yml] - 1:1).");
			});
		assertThat(this.systemProperties).as("nothing applied when one value is bad").isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "lots", "512KB", "0", "-1GB", "1.5GB" })
	void anInvalidMemoryFailsStartupNamingPropertyValueAndMinimum(String value) {
		fromCommandLine("uform.devices.simulated", "2", "uform.devices.simulated-memory", value);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class).isThrownBy(this::postProcess)
			.withMessageContaining("uform.devices.simulated-memory")
			.withMessageContaining("'" + value + "'")
			.withMessageContaining("Use a size of at least 1MB, like 512MB or 2GB")
			.withMessageContaining("from property source \"commandLineArgs\"");
		assertThat(this.systemProperties).isEmpty();
	}

	@Test
	void placeholdersAreResolvedAndBlankIsAbsent() {
		fromCommandLine("uform.devices.simulated", "${SIMULATED_GPUS:3}", "uform.devices.simulated-memory", " ");
		postProcess();
		assertThat(this.systemProperties).containsEntry("uform.devices.simulated", "3")
			.doesNotContainKey("uform.devices.simulated.memory");
	}

	@Test
	void runsOnceTheConfigFilesAreLoaded() {
		UformSimulatedDevices processor = processor();
		assertThat(processor.getOrder()).isGreaterThan(ConfigDataEnvironmentPostProcessor.ORDER);
	}

	@Test
	void sizesAreWrittenInTheLargestExactUnit() {
		assertThat(UformSimulatedDevices.uformSize(3L << 30)).isEqualTo("3GB");
		assertThat(UformSimulatedDevices.uformSize(1536L << 20)).isEqualTo("1536MB");
		assertThat(UformSimulatedDevices.uformSize((1L << 20) + 1024)).isEqualTo("1025KB");
		assertThat(UformSimulatedDevices.uformSize((1L << 20) + 1)).isEqualTo("1048577");
	}

	private void postProcess() {
		processor().postProcessEnvironment(this.environment, new SpringApplication());
	}

	private UformSimulatedDevices processor() {
		Supplier<SimulatedGpus> discovered = () -> this.discovered;
		return new UformSimulatedDevices(Supplier::get, this.systemProperties,
				this.environmentVariables, discovered);
	}

	/**
	 * An environment without the JVM's system properties and variables: they hold this module's
	 * {@code -Duform.devices.simulated=2}, and the stand-ins play their part.
	 */
	private static StandardEnvironment withoutTheJvmsOwnSources() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		return environment;
	}

	/** The environment variables as Spring sees them, below the command line. */
	private void fromEnvironment(String... namesAndValues) {
		Map<String, Object> map = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			map.put(namesAndValues[i], namesAndValues[i + 1]);
		}
		this.environment.getPropertySources()
			.addLast(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					map));
	}

	/** As Boot loads application.yml: values that know their file, line and column. */
	private void fromApplicationYml(Object... namesAndValues) {
		Map<String, Object> map = new LinkedHashMap<>();
		TextResourceOrigin origin = new TextResourceOrigin(new ClassPathResource("application.yml"),
				new Location(0, 0));
		for (int i = 0; i < namesAndValues.length; i += 2) {
			map.put((String) namesAndValues[i], OriginTrackedValue.of(namesAndValues[i + 1], origin));
		}
		this.environment.getPropertySources().addLast(new OriginTrackedMapPropertySource("application.yml", map));
	}

	private void fromCommandLine(String... namesAndValues) {
		Map<String, Object> map = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			map.put(namesAndValues[i], namesAndValues[i + 1]);
		}
		this.environment.getPropertySources().addFirst(new MapPropertySource("commandLineArgs", map));
	}
}
