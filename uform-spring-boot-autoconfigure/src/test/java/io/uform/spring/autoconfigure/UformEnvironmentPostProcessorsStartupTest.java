package io.uform.spring.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import io.uform.SimulatedGpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The two post-processors as a user meets them: registered in {@code META-INF/spring.factories}, made
 * by Boot with its deferred log, run by a real {@code SpringApplication} after the config files are
 * loaded, and an invalid value reported by Boot's failure analysis. The JVM's simulated-device system
 * properties are saved and restored around each case.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformEnvironmentPostProcessorsStartupTest {

	private String savedCount;

	private String savedMemory;

	@BeforeEach
	void saveTheJvmsSettings() {
		this.savedCount = System.getProperty(SimulatedGpus.COUNT_PROPERTY);
		this.savedMemory = System.getProperty(SimulatedGpus.MEMORY_PROPERTY);
	}

	@AfterEach
	void restoreTheJvmsSettings() {
		restore(SimulatedGpus.COUNT_PROPERTY, this.savedCount);
		restore(SimulatedGpus.MEMORY_PROPERTY, this.savedMemory);
	}

	@Test
	void unknownKeysFromConfigFilesAndTheCommandLineAreNamedAtStartup(CapturedOutput output) {
		start("--spring.config.location=classpath:io/uform/spring/autoconfigure/unknown-keys.yml",
				"--uform.ram.thred=2");
		assertThat(output).contains("Unknown property 'uform.ram.thread' (set in class path resource "
				+ "[io/uform/spring/autoconfigure/unknown-keys.yml] - 3:13) binds to nothing and is ignored; "
				+ "did you mean 'uform.ram.threads'?")
			.contains("Unknown property 'uform.ram.thred' (set in \"uform.ram.thred\" from property source "
					+ "\"commandLineArgs\") binds to nothing and is ignored; did you mean 'uform.ram.threads'?")
			.doesNotContain("Unknown property 'uform.ram.cpu-class'")
			.doesNotContain("Unknown property 'uform.devices");
	}

	@Test
	void simulatedMemoryFromApplicationYmlIsCheckedAgainstTheJvmsSetting(CapturedOutput output) {
		System.setProperty(SimulatedGpus.MEMORY_PROPERTY, "256MB");
		start("--spring.config.location=classpath:io/uform/spring/autoconfigure/simulated-memory.yml");
		assertThat(output).contains("uform.devices.simulated-memory = 512MB (set in class path resource "
				+ "[io/uform/spring/autoconfigure/simulated-memory.yml] - 3:23) is not used: the system property "
				+ "uform.devices.simulated.memory = 256MB is set, and GPU discovery reads that one.");
		assertThat(System.getProperty(SimulatedGpus.MEMORY_PROPERTY)).isEqualTo("256MB");
	}

	@Test
	void anInvalidSimulatedCountFailsStartupWithBootsReport(CapturedOutput output) {
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> start("--uform.devices.simulated=two"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value 'two' for configuration property 'uform.devices.simulated'.")
			.contains("Use a whole number of simulated devices from 0 (off) to 64 (set in "
					+ "\"uform.devices.simulated\" from property source \"commandLineArgs\").")
			.contains("Review the value of the property with the provided reason.");
		assertThat(System.getProperty(SimulatedGpus.COUNT_PROPERTY)).isEqualTo(this.savedCount);
	}

	private static void start(String... args) {
		new SpringApplicationBuilder(Empty.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off")
			.run(args)
			.close();
	}

	private static void restore(String name, String value) {
		if (value != null) {
			System.setProperty(name, value);
		}
		else {
			System.clearProperty(name);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Empty {

	}
}
