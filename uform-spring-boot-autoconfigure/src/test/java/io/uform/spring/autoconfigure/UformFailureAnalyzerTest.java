package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.uform.ExecutorForRamConfig;
import io.uform.GpuVendor;
import io.uform.Uform;
import io.uform.UformException;
import io.uform.host.CpuClasses;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a user reads when a bad value stops the application: each case starts a real
 * {@link org.springframework.boot.SpringApplication} and checks the report Boot prints. Every report
 * names the property, its value and where it was set, and says how to fix it and what exists: Boot's
 * own analyzers for a value refused while binding or by uform (an {@code
 * InvalidConfigurationPropertyValueException}), uform's where Boot has none (a value Spring cannot
 * convert, a value that came from a customizer or the user's own config bean, blamed on that bean). (Surefire writes test output to files, so these expected failures stay out
 * of the build log.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformFailureAnalyzerTest {

	@Test
	void zeroThreadsNamesThePropertyValueAndWhereItWasSet(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class),
				"--spring.config.location=classpath:failure-analysis/threads-zero.yml");
		assertThat(report).contains("APPLICATION FAILED TO START")
			.contains("The uform properties could not be bound: uform.ram.threads = 0 is invalid (set in class path "
					+ "resource [failure-analysis/threads-zero.yml] - 4:14): must be at least 1 (it counts the thread "
					+ "that calls a fork); remove it to take 7/8 of the cores.")
			.contains("Update uform.ram.threads in your configuration: it takes a whole number, such as 8. Threads "
					+ "taking part in a fork, its caller included, at least 1.");
	}

	@Test
	void aCommandLineValueNamesItsPropertySource(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.ram.deferred-limit=0");
		assertThat(report).contains("uform.ram.deferred-limit = 0 is invalid (set in \"uform.ram.deferred-limit\" "
				+ "from property source \"commandLineArgs\")");
	}

	@Test
	void anUnknownCpuClassSuggestsTheNearestOne(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.ram.cpu-class=intel-haswel");
		assertThat(report).contains("Invalid value 'intel-haswel' for configuration property 'uform.ram.cpu-class' "
				+ "(originating from '\"uform.ram.cpu-class\" from property source \"commandLineArgs\"'). Validation failed "
				+ "for the following reason:")
			.contains("not a CPU class uform knows; did you mean intel-haswell?")
			.contains("Review the value of the property with the provided reason.");
		// Then the classes of this machine's architecture only: no ARM class on x86-64, and the reverse (on
		// ARM the suggestion itself is an x86-64 class, said to be so, so only the list is looked at).
		boolean arm = System.getProperty("os.arch").matches("aarch64|arm64");
		Matcher list = Pattern.compile("(?i)this (x86-64|aarch64) CPU offers ([^(\\n]*)").matcher(report);
		assertThat(list.find()).as("the list of the classes this CPU offers in %s", report).isTrue();
		assertThat(list.group(1)).isEqualTo(arm ? "aarch64" : "x86-64");
		assertThat(list.group(2).strip()).isEqualTo(String.join(", ", CpuClasses.system().available()))
			.doesNotContain(arm ? "intel-" : "arm-");
	}

	@Test
	void aMemoryDomainThatDoesNotExistListsTheOnesThatDo(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.ram.memory-domains=42");
		assertThat(report).contains("Invalid value '42' for configuration property 'uform.ram.memory-domains' "
				+ "(originating from '\"uform.ram.memory-domains\" from property source \"commandLineArgs\"')")
			.contains("node 42 does not exist")
			.containsPattern("use nodes from \\[\\d+(, \\d+)*\\]");
	}

	@Test
	void aListOfOneElementIsReportedWhereThatElementWasSet(CapturedOutput output) {
		// memory-domains: [42] in YAML is one element, uform.ram.memory-domains[0], to Boot.
		String report = failedStart(output, List.of(App.class), "--uform.ram.memory-domains[0]=42");
		assertThat(report).contains("Invalid value '42' for configuration property 'uform.ram.memory-domains[0]' "
				+ "(originating from '\"uform.ram.memory-domains[0]\" from property source \"commandLineArgs\"')")
			.contains("node 42 does not exist");
	}

	@Test
	void aDeviceThatDoesNotExistListsTheDevices(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.vram.devices=7");
		assertThat(report).contains("Invalid value '7' for configuration property 'uform.vram.devices' (originating "
				+ "from '\"uform.vram.devices\" from property source \"commandLineArgs\"')")
			.contains("device 7 does not exist; devices here: [0 = Simulated GPU 0 (host memory), 1 = Simulated GPU 1 "
					+ "(host memory)]")
			.contains("Review the value of the property with the provided reason.");
	}

	@Test
	void aScratchLimitLargerThanTheDeviceSaysHowLargeTheDeviceIs(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.vram.scratch-limit=1GB");
		assertThat(report).contains("Invalid value '1GB' for configuration property 'uform.vram.scratch-limit' "
				+ "(originating from '\"uform.vram.scratch-limit\" from property source \"commandLineArgs\"')")
			.contains("device 0 (Simulated GPU 0 (host memory)) has 268435456 bytes (256 MiB); use at most that");
	}

	@Test
	void aMeshWithPeersAndNoDirectorySaysItIsNotSet(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=2",
				"--uform.mesh.job=run-1");
		// Refused while binding, before any mesh is made, in the properties' terms (not MeshOptions' fields).
		assertThat(report(report)).contains("Property: uform.mesh.directory")
			.contains("Reason: not set: a run with peers (uform.mesh.host-domain-count = 2) meets in a directory every "
					+ "host sees; set it, e.g. /shared/uform")
			.doesNotContain("hostDomainCount");
	}

	@Test
	void aMeshDirectoryThatCannotBeWrittenNamesThePropertyAndWhereItWasSet(CapturedOutput output) {
		// /proc exists and is a directory, but no job directory can be made in it, not even by root.
		String report = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=2",
				"--uform.mesh.job=run-1", "--uform.mesh.timeout=5s", "--uform.mesh.directory=/proc");
		assertThat(report).contains("Invalid value '/proc' for configuration property 'uform.mesh.directory' "
				+ "(originating from '\"uform.mesh.directory\" from property source \"commandLineArgs\"')")
			.contains("cannot use /proc/run-1")
			.contains("writable by this user on every host")
			.doesNotContain("timed out");
	}

	@Test
	void aJobNameThatCouldEscapeTheDirectoryIsRefused(CapturedOutput output, @TempDir Path directory) {
		String report = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=2",
				"--uform.mesh.directory=" + directory, "--uform.mesh.job=../elsewhere");
		assertThat(report).contains("Invalid value '../elsewhere' for configuration property 'uform.mesh.job' "
				+ "(originating from '\"uform.mesh.job\" from property source \"commandLineArgs\"')")
			.contains("letters, digits");
		assertThat(directory.getParent().resolve("elsewhere")).doesNotExist();
	}

	/**
	 * {@code job: ${JOB_NAME}} where the variable is unset: Spring's binder leaves the placeholder as it
	 * is written, and every run would share that name; uform refuses it, naming the placeholder.
	 */
	@Test
	void aJobNameWhoseVariableIsUnsetIsRefusedNamingThePlaceholder(CapturedOutput output, @TempDir Path directory) {
		String report = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=2",
				"--uform.mesh.directory=" + directory, "--uform.mesh.job=${UFORM_TEST_UNSET_JOB_NAME}");
		assertThat(report).contains("Invalid value '${UFORM_TEST_UNSET_JOB_NAME}' for configuration property "
				+ "'uform.mesh.job' (originating from '\"uform.mesh.job\" from property source \"commandLineArgs\"')")
			.contains("holds ${UFORM_TEST_UNSET_JOB_NAME}, a placeholder whose variable was not set");
		assertThat(directory).isEmptyDirectory();
	}

	@Test
	void aNegativeTimeoutIsRefusedAsWritten(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=1",
				"--uform.mesh.timeout=-5s");
		assertThat(report).contains("uform.mesh.timeout = -5s is invalid (set in \"uform.mesh.timeout\" from property "
				+ "source \"commandLineArgs\"): must be positive, e.g. 120s, or unset for the default (120s).")
			.contains("Update uform.mesh.timeout in your configuration: it takes a duration such as 30s")
			.doesNotContain("PT-5S")
			.doesNotContain("Duration.of")
			.doesNotContain("DEFAULT_TIMEOUT");
	}

	@Test
	void aMeshWithoutAVramExecutorSaysHowToGetOne(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=1",
				"--uform.vram.enabled=false");
		assertThat(report).contains("The uform bean 'uformMesh' could not be made")
			.contains("VRAM executor bean 'uformVramExecutor', and none was made: uform.vram.enabled = false (set in "
					+ "\"uform.vram.enabled\" from property source \"commandLineArgs\") turns it off")
			.contains("Make the VRAM executor as the description says, or, to start without a mesh, remove "
					+ "uform.mesh.host-domain-count")
			.doesNotContain("set uform.vram.enabled=auto");
	}

	@Test
	void aValueSpringCannotConvertSaysWhatThePropertyTakes(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class),
				"--spring.config.location=classpath:failure-analysis/threads-four.yml");
		assertThat(report).contains("The uform properties could not be bound: uform.ram.threads = four is invalid (set "
				+ "in class path resource [failure-analysis/threads-four.yml] - 4:14): not a whole number (digits only, "
				+ "such as 8: no words, units or decimal point).")
			.doesNotContain("For input string")
			.contains("Update uform.ram.threads in your configuration: it takes a whole number, such as 8. Threads "
					+ "taking part in a fork, its caller included, at least 1.")
			.doesNotContain("Update your application's configuration");
	}

	@Test
	void aSecondTypoInTheSameFileIsReportedInTheSameStart(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class),
				"--spring.config.location=classpath:failure-analysis/two-typos.yml");
		assertThat(report).contains("uform.ram.threads = four is invalid (set in class path resource "
				+ "[failure-analysis/two-typos.yml] - 4:14)");
		assertThat(report).contains("Property 'uform.ram.cpu-class' = intel-haswel (set in class path resource "
				+ "[failure-analysis/two-typos.yml] - 5:16) is none of the values it takes; did you mean intel-haswell?");
	}

	@Test
	void aSizeOrDurationWithABadUnitSaysHowToWriteOne(CapturedOutput output) {
		String size = failedStart(output, List.of(App.class), Map.of("UFORM_VRAM_SCRATCHLIMIT", "8gb"));
		assertThat(size).contains("uform.vram.scratch-limit = 8gb is invalid (set in System Environment Property "
				+ "\"UFORM_VRAM_SCRATCHLIMIT\"): Unknown data unit suffix 'gb'.")
			.contains("Update uform.vram.scratch-limit in your configuration: it takes a size such as 512MB or 8GB")
			.contains("in capitals");
		String duration = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=1",
				"--uform.mesh.timeout=5 m");
		assertThat(duration).contains("uform.mesh.timeout = 5 m is invalid (set in \"uform.mesh.timeout\" from "
				+ "property source \"commandLineArgs\")")
			.contains("Update uform.mesh.timeout in your configuration: it takes a duration such as 30s")
			.contains("positive. A number without a unit is seconds");
	}

	@Test
	void aValueUformPropertiesRefusesWhileBindingIsReportedAsWritten(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class), "--uform.shutdown.await-termination-period=-1s");
		assertThat(report).contains("uform.shutdown.await-termination-period = -1s is invalid (set in "
				+ "\"uform.shutdown.await-termination-period\" from property source \"commandLineArgs\"): must be zero "
				+ "(free at once) or positive.")
			.contains("Update uform.shutdown.await-termination-period in your configuration: it takes a duration")
			.doesNotContain("PT-1S");
	}

	@Test
	void anUnknownEnabledValueListsTheValuesAndABadDeviceTheDevices(CapturedOutput output) {
		String enabled = failedStart(output, List.of(App.class), "--uform.vram.enabled=yes");
		assertThat(enabled).contains("uform.vram.enabled = yes is invalid")
			.contains("Update uform.vram.enabled in your configuration: it takes auto, true or false.");
		String device = failedStart(output, List.of(App.class), "--uform.vram.devices[0]=0", "--uform.vram.devices[1]=x");
		assertThat(device).contains("uform.vram.devices[1] = x is invalid (set in \"uform.vram.devices[1]\"")
			.contains("devices here: [0 = Simulated GPU 0 (host memory), 1 = Simulated GPU 1 (host memory)]");
	}

	@Test
	void aBindFailureOutsideUformIsLeftToBootsOwnReport(CapturedOutput output) {
		String report = report(failedStart(output, List.of(App.class, OtherProperties.class), "--other.count=four"));
		assertThat(report).contains("Failed to bind properties under 'other.count' to java.lang.Integer")
			.contains("Value: \"four\"")
			.contains("Update your application's configuration")
			.doesNotContain("uform");
	}

	@Test
	void aBlankMeshDirectoryIsNotTheWorkingDirectory(CapturedOutput output) {
		// Path.of("") is the working directory: each host would wait there alone for the whole timeout.
		String report = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=2",
				"--uform.mesh.job=run-1", "--uform.mesh.timeout=1s", "--uform.mesh.directory=");
		assertThat(report).contains("Property: uform.mesh.directory\n    Value: \"\"\n    Origin: \"uform.mesh.directory\" "
				+ "from property source \"commandLineArgs\"\n    Reason: blank: a run with peers")
			.doesNotContain("timed out");
	}

	@Test
	void anEmptyValueIsShownQuotedAndControlCharactersEscaped(CapturedOutput output, @TempDir Path directory) {
		String empty = failedStart(output, List.of(App.class), "--uform.ram.cpu-class=");
		assertThat(empty).contains("Invalid value '' for configuration property 'uform.ram.cpu-class' (originating from");
		// A hostile job name: an escape sequence that would clear the terminal the report is printed to.
		String printed = failedStart(output, List.of(App.class), "--uform.mesh.host-domain-count=2",
				"--uform.mesh.directory=" + directory, "--uform.mesh.job=run\u001b[2J");
		String hostile = report(printed);
		assertThat(hostile).contains("uform.mesh.job = run\\u001B[2J is invalid").doesNotContain("\u001b");
		// Nor anywhere else on that console: Spring logs the exception's message (a WARN as the refresh is
		// cancelled) just before the report, and a sequence there (ESC[8m, hidden text) outlives its line.
		assertThat(printed).as("everything printed at the failed start").doesNotContain("\u001b");
	}

	@Test
	void formatCharactersPastTheBasicPlaneAreEscapedToo() {
		// U+E0041 and U+E007F, tag characters: format characters, invisible, each two chars in Java.
		String tagged = "run\uDB40\uDC41\uDB40\uDC7F";
		assertThat(ConfiguredProperties.shown(tagged)).isEqualTo("run\\uDB40\\uDC41\\uDB40\\uDC7F");
		// A character past the basic plane that is no format character is printed as it is.
		assertThat(ConfiguredProperties.shown("run-\uD83D\uDE80")).isEqualTo("run-\uD83D\uDE80");
	}

	@Test
	void aValueFromACustomizerBlamesTheCustomizerNotTheProperty(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class, ZeroThreadsCustomizer.class), "--uform.ram.threads=4");
		assertThat(report).contains("threads = 0 is invalid. It came from the ExecutorForRamConfigCustomizer "
				+ "bean 'zeroThreads', which changed uform.ram.threads = 4.")
			.contains("Update the customizer 'zeroThreads': ");
	}

	@Test
	void ofSeveralCustomizersOnlyTheOneThatSetTheValueIsBlamed(CapturedOutput output) {
		// Ordered harmless, culprit, harmless: the report names the one to fix, not all three.
		String report = failedStart(output, List.of(App.class, SeveralCustomizers.class));
		assertThat(report).contains("threads = 0 is invalid. It came from the ExecutorForRamConfigCustomizer bean "
				+ "'setsZeroThreads', which changed uform.ram.threads = 1.")
			.contains("Update the customizer 'setsZeroThreads': ")
			.doesNotContain("'tuneFirst'")
			.doesNotContain("'tuneLast'");
	}

	@Test
	void aBadPropertyIsBlamedEvenWhereACustomizerChangesAnotherField(CapturedOutput output) {
		// The property's text (1GB, -5s, one list element) differs from the value uform reports
		// (1073741824, PT-5S, [0, 42]); the customizers here change only the deferred limit.
		String scratch = failedStart(output, List.of(App.class, DeferredLimitCustomizers.class),
				"--uform.vram.devices=0", "--uform.vram.scratch-limit=1GB");
		assertThat(scratch).contains("Invalid value '1GB' for configuration property 'uform.vram.scratch-limit' "
				+ "(originating from").doesNotContain("tuneVramDeferred");
		String domains = failedStart(output, List.of(App.class, DeferredLimitCustomizers.class),
				"--uform.ram.memory-domains[0]=0", "--uform.ram.memory-domains[1]=42");
		assertThat(domains).contains("Invalid value '[0, 42]' for configuration property 'uform.ram.memory-domains'")
			.doesNotContain("tuneRamDeferred");
		// Set one element at a time: every element's origin, the bad one's among them.
		assertThat(domains).contains("(set in \"uform.ram.memory-domains[0]\" from property source \"commandLineArgs\", "
				+ "\"uform.ram.memory-domains[1]\" from property source \"commandLineArgs\")");
		String timeout = failedStart(output, List.of(App.class, DeferredLimitCustomizers.class),
				"--uform.mesh.host-domain-count=1", "--uform.mesh.timeout=-5s");
		assertThat(timeout).contains("uform.mesh.timeout = -5s is invalid (set in").doesNotContain("tuneMesh");
	}

	@Test
	void aValueFromTheUsersConfigBeanBlamesThatBean(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class, OwnRamConfig.class));
		assertThat(report).contains("threads = 0 is invalid. It came from your ExecutorForRamConfig bean "
				+ "'myRamConfig', which replaces uform.ram.*.")
			.contains("Update the ExecutorForRamConfig bean 'myRamConfig': ")
			.doesNotContain("Update uform.ram.threads");
	}

	@Test
	void aCustomizerReturningNullFailsStartupNamingIt(CapturedOutput output) {
		assertThatThrownBy(() -> start(List.of(App.class, NullCustomizer.class)))
			.rootCause()
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("ExecutorForRamConfigCustomizer bean 'forgetful'")
			.hasMessageContaining("returned null");
	}

	@Test
	void aBadCallFromTheUsersOwnBeanBlamesThatCallNotAUformBean(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class, ForksAtStartup.class));
		assertThat(report).contains("Bean 'forksAtStartup' could not be made: a uform call it made while it was "
				+ "created was refused: n = -1 is invalid")
			.contains("Fix that call in bean 'forksAtStartup': ")
			.doesNotContain("The uform bean")
			.doesNotContain("in the config that bean passes to uform");
	}

	@Test
	void scratchRunningOutInTheUsersBeanPointsAtTheScratchLimit(CapturedOutput output) {
		String report = failedStart(output, List.of(App.class, ReservesAtStartup.class), "--uform.vram.devices=0",
				"--uform.vram.scratch-limit=1MB");
		assertThat(report).contains("Bean 'reservesAtStartup' could not be made: a uform call it made while it was "
				+ "created was refused: ")
			.contains("[OUT_OF_MEMORY]")
			.contains("raise uform.vram.scratch-limit");
	}

	@Test
	void aFailureNotAboutOneFieldKeepsUformsMessage() {
		UformException unsupported = new UformException(UformException.Status.UNSUPPORTED, "Executor.onPool is not designed");
		FailureAnalysis analysis = new UformFailureAnalyzer(null).analyze(unsupported);
		assertThat(analysis.getDescription()).contains("Executor.onPool is not designed").contains("UNSUPPORTED");
		assertThat(analysis.getAction()).isNotBlank();
	}

	@Test
	void vramEnabledTrueWithoutAGpuSaysWhatDiscoveryFound() throws Exception {
		// Discovery runs once per JVM and this one sees two simulated devices: ask a JVM that sees none.
		assumeTrue(Uform.gpuDevices().stream().allMatch((device) -> device.vendor() == GpuVendor.SIMULATED),
				"this machine has a real GPU, so no JVM here sees none");
		String report = NoGpuApplication.runInChildJvm("--uform.vram.enabled=true");
		assertThat(report).contains("APPLICATION FAILED TO START")
			.contains("The uform bean 'uformVramExecutor' could not be made: uform.vram.enabled = true (set in "
					+ "\"uform.vram.enabled\" from property source \"commandLineArgs\") asks for it on every machine, "
					+ "and uform found no device for it: No GPU found")
			.contains("NO_DEVICE")
			.contains("set uform.vram.enabled=auto")
			.contains("uform.devices.simulated=1");
	}

	/** Starts the application, expects it to fail, and returns what it printed. */
	private static String failedStart(CapturedOutput output, List<Class<?>> sources, String... args) {
		int from = output.getAll().length();
		assertThatThrownBy(() -> start(sources, args)).isNotNull();
		return output.getAll().substring(from);
	}

	/**
	 * Starts the application with these environment variables in place of the process's own, as Boot
	 * reads them (its post-processor makes them report their origin), expects it to fail, and returns
	 * what it printed.
	 */
	private static String failedStart(CapturedOutput output, List<Class<?>> sources, Map<String, Object> variables,
			String... args) {
		int from = output.getAll().length();
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
		assertThatThrownBy(() -> start(sources, environment, args)).isNotNull();
		return output.getAll().substring(from);
	}

	/** The failure report alone, without the log lines before it (which quote exception messages as they are). */
	private static String report(String printed) {
		int at = printed.indexOf("APPLICATION FAILED TO START");
		assertThat(at).as("a failure report was printed").isNotNegative();
		return printed.substring(at);
	}

	private static void start(List<Class<?>> sources, String... args) {
		start(sources, null, args);
	}

	private static void start(List<Class<?>> sources, @Nullable ConfigurableEnvironment environment, String... args) {
		SpringApplicationBuilder builder = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
			.web(WebApplicationType.NONE);
		if (environment != null) {
			builder.environment(environment);
		}
		builder.properties("spring.main.banner-mode=off", "uform.ram.threads=1").run(args).close();
	}

	// As an auto-configuration (processed after the user's configuration), so that its beans back off.
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(UformAutoConfiguration.class)
	static class App {

	}

	/**
	 * A property that is not uform's, bound while a bean is made (with the binder itself: a
	 * {@code @ConfigurationProperties} class here would have the configuration processor write test
	 * metadata over the starter's, which {@code ConfigurationMetadataTest} reads).
	 */
	@Configuration(proxyBeanMethods = false)
	static class OtherProperties {

		@Bean
		Integer otherCount(ConfigurableEnvironment environment) {
			return Binder.get(environment).bind("other.count", Integer.class).orElse(0);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroThreadsCustomizer {

		@Bean
		ExecutorForRamConfigCustomizer zeroThreads() {
			return (config) -> config.withThreads(0);
		}
	}

	/** Three customizers in order, of which the middle one sets a bad thread count. */
	@Configuration(proxyBeanMethods = false)
	static class SeveralCustomizers {

		@Bean
		@Order(1)
		ExecutorForRamConfigCustomizer tuneFirst() {
			return (config) -> config.withDeferredLimit(16);
		}

		@Bean
		@Order(2)
		ExecutorForRamConfigCustomizer setsZeroThreads() {
			return (config) -> config.withThreads(0);
		}

		@Bean
		@Order(3)
		ExecutorForRamConfigCustomizer tuneLast() {
			return (config) -> config.withDeferredLimit(32);
		}
	}

	/** Customizers that change a field other than the one a test sets wrong. */
	@Configuration(proxyBeanMethods = false)
	static class DeferredLimitCustomizers {

		@Bean
		ExecutorForRamConfigCustomizer tuneRamDeferred() {
			return (config) -> config.withDeferredLimit(32);
		}

		@Bean
		ExecutorForVramConfigCustomizer tuneVramDeferred() {
			return (config) -> config.withDeferredLimit(32);
		}

		@Bean
		MeshOptionsCustomizer tuneMesh() {
			return (options) -> options;
		}
	}

	/** A user's bean that forks with a bad count while it is made. */
	@Configuration(proxyBeanMethods = false)
	static class ForksAtStartup {

		@Bean
		Object forksAtStartup(io.uform.Executor ram) {
			ram.forN(-1, (index) -> {
			});
			return new Object();
		}
	}

	/** A user's bean that reserves more scratch than the limit while it is made. */
	@Configuration(proxyBeanMethods = false)
	static class ReservesAtStartup {

		@Bean
		Object reservesAtStartup(@org.springframework.beans.factory.annotation.Qualifier("uformVramExecutor")
				io.uform.Executor vram) {
			vram.lanes().get(0).reserve(2L << 20);
			return new Object();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class NullCustomizer {

		@Bean
		ExecutorForRamConfigCustomizer forgetful() {
			return (config) -> null;
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRamConfig {

		@Bean
		ExecutorForRamConfig myRamConfig() {
			return ExecutorForRamConfig.defaults().withThreads(0);
		}
	}

	/**
	 * An application started in a child JVM that sees no GPU, for the failures that depend on what
	 * discovery found (it runs once per JVM).
	 */
	static final class NoGpuApplication {

		public static void main(String[] args) {
			try {
				start(List.of(App.class), args);
			}
			catch (RuntimeException expected) {
				// Boot has printed the report; the exit status tells the parent it failed.
				System.exit(3);
			}
		}

		static String runInChildJvm(String... args) throws IOException, InterruptedException {
			return ChildJvm.run(NoGpuApplication.class, List.of("-Duform.devices.simulated=0", "-Xshare:auto"), 3, 45, args);
		}
	}
}
