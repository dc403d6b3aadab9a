package io.uform.spring.autoconfigure.diagnostics;

import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.support.SystemEnvironmentPropertySourceEnvironmentPostProcessor;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.Ordered;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.DefaultResourceLoader;

import io.uform.host.NearestNames;
import io.uform.spring.autoconfigure.UformProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code uform.*} key that binds to nothing is named in a WARN with where it was set and the
 * nearest valid key; a valid key in any form Spring binds (kebab, camel, underscores, list indices,
 * environment variables) is not. Each case builds the environment Boot would and calls the
 * post-processor on it.
 */
@ExtendWith(OutputCaptureExtension.class)
class UformUnknownPropertiesTest {

	private static final String YML = "class path resource [io/uform/spring/autoconfigure/unknown-keys.yml]";

	private final StandardEnvironment environment = new StandardEnvironment();

	@Test
	void misspelledKeysAreNamedWithWhereTheyWereSetAndTheNearestValidKey(CapturedOutput output) throws IOException {
		fromYml("io/uform/spring/autoconfigure/unknown-keys.yml");
		postProcess();
		assertThat(output).contains("WARN")
			.contains("Unknown property 'uform.ram.thread' (set in " + YML
					+ " - 3:13) binds to nothing and is ignored; did you mean 'uform.ram.threads'?")
			.contains("Unknown property 'uform.threads' (set in " + YML
					+ " - 5:12) binds to nothing and is ignored; did you mean 'uform.ram.threads'?")
			.contains("Unknown property 'uform.vram.scrach-limit' (set in " + YML
					+ " - 7:19) binds to nothing and is ignored; did you mean 'uform.vram.scratch-limit'?");
		assertThat(unknownLines(output)).as("only the three misspelled keys").isEqualTo(3);
	}

	@Test
	void validKeysInEveryFormSpringBindsAreQuiet(CapturedOutput output) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("uform.ram.threads", "4");
		properties.put("uform.ram.cpuClass", "serial");
		properties.put("uform.ram.deferred_limit", "8");
		properties.put("uform.ram.memory-domains[0]", "0");
		properties.put("uform.ram.memory-domains[1]", "1");
		properties.put("uform.vram.devices", "0,1");
		properties.put("uform.vram.scratch-limit", "1GB");
		properties.put("uform.vram.Enabled", "auto");
		properties.put("uform.mesh.host-domain-count", "1");
		properties.put("uform.mesh.gpusPerMultimemDomain", "2");
		properties.put("uform.shutdown.await-termination-period", "5s");
		properties.put("uform.devices.simulated", "2");
		properties.put("uform.devices.simulated-memory", "512MB");
		fromCommandLine(properties);
		// The same list written another way in a lower source, and environment variables.
		this.environment.getPropertySources().addLast(new MapPropertySource("application.properties",
				Map.of("uform.ram.memory-domains", "0,1", "uform.vram.memory-domains[0]", "0")));
		fromEnvironment(Map.of("UFORM_RAM_THREADS", "4", "UFORM_RAM_MEMORYDOMAINS_0_", "0", "UFORM_VRAM_DEVICES_1",
				"1", "UFORM_DEVICES_SIMULATED_MEMORY", "256MB", "PATH", "/usr/bin"));
		postProcess();
		assertThat(unknownLines(output)).isZero();
	}

	@Test
	void environmentVariablesWithDashesAsUnderscoresThatBootBindsAreQuiet(CapturedOutput output) {
		// Boot's legacy mapping binds UFORM_MESH_HOST_DOMAIN_INDEX to uform.mesh.host-domain-index, although
		// its uniform shape (uform.mesh.host.domain.index) is not that property's.
		fromEnvironment(Map.of("UFORM_MESH_HOST_DOMAIN_INDEX", "3", "UFORM_RAM_DEFERRED_LIMIT", "8",
				"UFORM_SHUTDOWN_AWAIT_TERMINATION_PERIOD", "5s"));
		UformProperties bound = org.springframework.boot.context.properties.bind.Binder.get(this.environment)
			.bindOrCreate("uform", UformProperties.class);
		assertThat(bound.getMesh().getHostDomainIndex()).as("Spring binds it").isEqualTo(3);
		assertThat(bound.getRam().getDeferredLimit()).as("Spring binds it").isEqualTo(8);
		postProcess();
		assertThat(unknownLines(output)).isZero();
	}

	@Test
	void aMisspelledKeyOfAModelEntryIsNamedWithTheEntrysNearestKeyAndItsValidKeysAreQuiet(CapturedOutput output) {
		// uform.models is a map in the metadata, but uform binds each entry field by field: a key the
		// binder did not take there binds to nothing, as elsewhere under uform.
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("uform.models.minilm.model", "classpath:/model.onnx");
		properties.put("uform.models.minilm.max-texts", "64");
		properties.put("uform.models.minilm.slotWait", "1s");
		properties.put("uform.models.minilm.truncte", "true");
		properties.put("uform.models.other.max-token", "128");
		fromCommandLine(properties);
		postProcess();
		assertThat(output).contains("Unknown property 'uform.models.minilm.truncte' (set in "
				+ "\"uform.models.minilm.truncte\" from property source \"commandLineArgs\") binds to nothing and is "
				+ "ignored; did you mean 'uform.models.minilm.truncate'?")
			.contains("Unknown property 'uform.models.other.max-token' (set in \"uform.models.other.max-token\" from "
					+ "property source \"commandLineArgs\") binds to nothing and is ignored; did you mean "
					+ "'uform.models.other.max-tokens'?");
		assertThat(unknownLines(output)).as("only the two misspelled keys").isEqualTo(2);
	}

	@Test
	void modelsWithoutUformOnnxruntimeOnTheClassPathAreNamedWithTheDependencyToAdd(CapturedOutput output) {
		fromCommandLine(Map.of("uform.models.minilm.model", "classpath:/model.onnx", "uform.models.e5.pooling", "cls"));
		postProcess(withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader("io.uform.onnxruntime")));
		assertThat(output).contains("uform.models configures e5, minilm, but io.uform:uform-onnxruntime, which makes "
				+ "models, is not on the class path, so no model bean is made: add that dependency beside the starter");
	}

	@Test
	void modelsWithUformOnnxruntimeOnTheClassPathAreQuiet(CapturedOutput output) {
		fromCommandLine(Map.of("uform.models.minilm.model", "classpath:/model.onnx"));
		postProcess();
		assertThat(output).doesNotContain("uform-onnxruntime");
	}

	@Test
	void aSingleValuePropertyWrittenAsAListIsNamedAsBindingToNothing(CapturedOutput output) {
		fromCommandLine(Map.of("uform.ram.threads[0]", "8"));
		UformProperties bound = org.springframework.boot.context.properties.bind.Binder.get(this.environment)
			.bindOrCreate("uform", UformProperties.class);
		assertThat(bound.getRam().getThreads()).as("what Spring binds").isNull();
		postProcess();
		assertThat(output).contains("Property 'uform.ram.threads[0]' (set in \"uform.ram.threads[0]\" from property "
				+ "source \"commandLineArgs\") is a list element, but 'uform.ram.threads' takes a single value, so it "
				+ "binds to nothing and is ignored; write it without the index, like uform.ram.threads=8");
	}

	@Test
	void aTextPropertyWrittenAsAListIsShownWrittenWithItsOwnValueNotANumber(CapturedOutput output) throws IOException {
		// YAML 'cpu-class: [intel-haswell, serial]': the example of writing it without the index is the
		// user's own first value, not a thread count.
		fromYml("io/uform/spring/autoconfigure/cpu-class-as-list.yml");
		postProcess();
		assertThat(output).contains("Property 'uform.ram.cpu-class[0]' (set in class path resource "
				+ "[io/uform/spring/autoconfigure/cpu-class-as-list.yml] - 3:17) is a list element, but "
				+ "'uform.ram.cpu-class' takes a single value, so it binds to nothing and is ignored; write it without "
				+ "the index, like uform.ram.cpu-class=intel-haswell (YAML: no [ ] around the value)")
			.doesNotContain("uform.ram.cpu-class=8");
	}

	@Test
	void listElementsBelowAWholeListAreQuietEvenWithoutMetadata(CapturedOutput output) {
		// The whole list wins, so the binder never reads the elements; they are valid all the same (the
		// property is a list), and must not be called a list element of a single-value property.
		fromCommandLine(Map.of("uform.vram.devices", "0,1", "uform.ram.memory-domains", "0"));
		this.environment.getPropertySources()
			.addLast(new MapPropertySource("application.properties", Map.of("uform.ram.memory-domains[0]", "0")));
		fromEnvironment(Map.of("UFORM_VRAM_DEVICES_1", "1"));
		postProcess(withClassLoader(new MetadataClassLoader(null)));
		assertThat(output).doesNotContain("takes a single value");
		assertThat(unknownLines(output)).isZero();
	}

	@Test
	void aTextValueThatIsNoneOfItsHintedValuesIsNamedWithWhereItWasSetAndTheNearestValue(CapturedOutput output)
			throws IOException {
		fromYml("io/uform/spring/autoconfigure/unknown-values.yml");
		postProcess();
		String yml = "class path resource [io/uform/spring/autoconfigure/unknown-values.yml]";
		assertThat(output).contains("WARN")
			.contains("Property 'uform.ram.cpu-class' = intel-haswel (set in " + yml + " - 4:16) is not a CPU class "
					+ "uform knows; did you mean intel-haswell? This ")
			.contains("CPU offers " + String.join(", ", io.uform.host.CpuClasses.system().available()))
			.contains("Property 'uform.vram.gpu-class' = nvidia-hoper (set in " + yml + " - 6:16) is none of the "
					+ "values it takes; did you mean nvidia-hopper?")
			.doesNotContain("'uform.vram.cpu-class' =")
			.doesNotContain("'uform.mesh.job' =");
		assertThat(unknownLines(output)).as("the keys are valid").isZero();
	}

	@Test
	void hintedValuesAndPlaceholdersAreQuiet(CapturedOutput output) {
		fromCommandLine(Map.of("uform.ram.cpu-class", "serial", "uform.vram.gpu-class", "${NO_SUCH_VARIABLE}",
				"uform.vram.cpuClass", "intel-haswell", "uform.mesh.job", "anything"));
		postProcess();
		assertThat(output).doesNotContain("none of the values");
	}

	@Test
	void aCircularPlaceholderIsLeftToTheBinding(CapturedOutput output) {
		fromCommandLine(Map.of("uform.ram.cpu-class", "${uform.ram.cpu-class}", "uform.ram.thread", "4"));
		postProcess();
		assertThat(output).doesNotContain("none of the values")
			.as("the rest is still checked")
			.contains("Unknown property 'uform.ram.thread'");
	}

	@Test
	void keysWithBadValuesAreValidKeys(CapturedOutput output) {
		fromCommandLine(Map.of("uform.ram.threads", "many", "uform.vram.enabled", "maybe", "uform.mesh.job",
				"${NO_SUCH_VARIABLE}", "uform.shutdown.await-termination-period", "soon"));
		postProcess();
		assertThat(unknownLines(output)).isZero();
	}

	@Test
	void aMisspelledEnvironmentVariableIsNamedAsWritten(CapturedOutput output) {
		fromEnvironment(Map.of("UFORM_RAM_THREAD", "4"));
		postProcess();
		assertThat(output).contains("Unknown property 'UFORM_RAM_THREAD' (set in System Environment Property "
				+ "\"UFORM_RAM_THREAD\") binds to nothing and is ignored; did you mean 'uform.ram.threads'?");
	}

	@Test
	void environmentVariablesOtherThanUformsAreNotRead(CapturedOutput output) {
		fromEnvironment(Map.of("uform.ram.thread", "4", "UFORMX_RAM_THREAD", "4"));
		postProcess();
		assertThat(unknownLines(output)).isZero();
	}

	@Test
	void uformsJvmNameForTheMemoryIsValidOnlyWhereUformReadsIt(CapturedOutput output) {
		this.environment.getPropertySources()
			.addFirst(new MapPropertySource(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
					Map.of("uform.devices.simulated.memory", "256MB")));
		fromCommandLine(Map.of("uform.devices.simulated.memory", "512MB"));
		postProcess();
		assertThat(output).contains("Unknown property 'uform.devices.simulated.memory' (set in "
				+ "\"uform.devices.simulated.memory\" from property source \"commandLineArgs\") binds to nothing and is "
				+ "ignored; did you mean 'uform.devices.simulated-memory'?");
		assertThat(unknownLines(output)).as("not the system property").isEqualTo(1);
	}

	@Test
	void aKeySetInTwoPlacesIsOneWarningNamingBoth(CapturedOutput output) {
		fromCommandLine(Map.of("uform.ram.thread", "4"));
		this.environment.getPropertySources()
			.addLast(new MapPropertySource("application.properties", Map.of("uform.ram.thread", "2")));
		postProcess();
		assertThat(output).contains("Unknown property 'uform.ram.thread' (set in \"uform.ram.thread\" from property "
				+ "source \"commandLineArgs\" and in \"uform.ram.thread\" from property source \"application.properties\")");
		assertThat(unknownLines(output)).isEqualTo(1);
	}

	@Test
	void aKeyLikeNoneHasNoSuggestion(CapturedOutput output) {
		fromCommandLine(Map.of("uform.zzz.qqq", "1", "uform.ram.memory-domains[0].x", "1"));
		postProcess();
		assertThat(output).contains("Unknown property 'uform.zzz.qqq' (set in \"uform.zzz.qqq\" from property source "
				+ "\"commandLineArgs\") binds to nothing and is ignored; no uform property has a similar name.")
			.contains("Unknown property 'uform.ram.memory-domains[0].x'");
	}

	@Test
	void keysOutsideUformAreNotChecked(CapturedOutput output) {
		fromCommandLine(Map.of("uformx.ram.thread", "1", "management.endpoint.uform.thread", "1", "uform", "x"));
		postProcess();
		assertThat(unknownLines(output)).isZero();
	}

	@Test
	void withoutMetadataTheBinderAloneKnowsEveryKeyInEveryForm(CapturedOutput output) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("uform.ram.threads", "many");
		properties.put("uform.ram.cpuClass", "serial");
		properties.put("uform.ram.memory-domains[0]", "0");
		properties.put("uform.vram.enabled", "maybe");
		properties.put("uform.mesh.host-domain-count", "1");
		properties.put("uform.mesh.job", "${NO_SUCH_VARIABLE}");
		properties.put("uform.shutdown.await-termination-period", "soon");
		properties.put("uform.devices.simulated-memory", "512MB");
		properties.put("uform.ram.thred", "2");
		properties.put("uform.vram.scrach-limit", "1GB");
		fromCommandLine(properties);
		fromEnvironment(Map.of("UFORM_RAM_MEMORYDOMAINS_1", "1", "UFORM_VRAM_DEVICES_0_", "0"));
		postProcess(withClassLoader(new MetadataClassLoader(null)));
		assertThat(output).contains("Unknown property 'uform.ram.thred' (set in \"uform.ram.thred\" from property "
				+ "source \"commandLineArgs\") binds to nothing and is ignored; did you mean 'uform.ram.threads'?")
			.as("suggestions come only from keys that are set when there is no metadata")
			.contains("Unknown property 'uform.vram.scrach-limit' (set in \"uform.vram.scrach-limit\" from property "
					+ "source \"commandLineArgs\") binds to nothing and is ignored; no uform property has a similar name.");
		assertThat(unknownLines(output)).isEqualTo(2);
	}

	@Test
	void propertiesDeclaredOnlyInMetadataAreValidAndSuggested(CapturedOutput output) {
		fromCommandLine(Map.of("uform.extra.name", "x", "uform.extraMap.any.key", "y", "uform.extra.nam", "z"));
		postProcess(withClassLoader(new MetadataClassLoader("io/uform/spring/autoconfigure/extra-metadata.json")));
		assertThat(output).contains("Unknown property 'uform.extra.nam' (set in \"uform.extra.nam\" from property "
				+ "source \"commandLineArgs\") binds to nothing and is ignored; did you mean 'uform.extra.name'?");
		assertThat(unknownLines(output)).isEqualTo(1);
	}

	@Test
	void runsAfterEveryOtherPostProcessor() {
		assertThat(new UformUnknownProperties(Supplier::get).getOrder())
			.isEqualTo(Ordered.LOWEST_PRECEDENCE);
	}

	@Test
	void shapesSetListIndicesAndSpellingAside() {
		assertThat(UformUnknownProperties
			.shape(ConfigurationPropertyName.of("uform.ram.memory-domains"))).isEqualTo("uform.ram.memorydomains");
		assertThat(UformUnknownProperties
			.shape(ConfigurationPropertyName.adapt("uform.ram.memoryDomains[3]", '.'))).isEqualTo("uform.ram.memorydomains");
		assertThat(UformUnknownProperties
			.shape(ConfigurationPropertyName.adapt("uform.things[2].name", '.'))).isEqualTo("uform.things[].name");
	}

	@Test
	void nearestIsTheClosestWithinATypo() {
		Set<String> candidates = Set.of("uform.ram.threads", "uform.vram.devices", "uform.ram.cpu-class");
		assertThat(UformUnknownProperties.nearest("uform.ram.cpuclas", candidates))
			.containsExactly("uform.ram.cpu-class");
		assertThat(UformUnknownProperties.nearest("uform.vram.device", candidates))
			.containsExactly("uform.vram.devices");
		assertThat(UformUnknownProperties.nearest("uform.zzz.qqq", candidates)).isEmpty();
		// uform's one rule: a third of the shorter name, never less than 2, as for CPU and GPU classes.
		assertThat(UformUnknownProperties.nearest("uform.ram.t", candidates)).isEmpty();
		assertThat(UformUnknownProperties.nearest("uform.ram.thr", candidates)).containsExactly("uform.ram.threads");
		assertThat(NearestNames.distance("kitten", "sitting")).isEqualTo(3);
		assertThat(NearestNames.distance("", "abc")).isEqualTo(3);
	}

	private void postProcess() {
		postProcess(new SpringApplication());
	}

	private void postProcess(SpringApplication application) {
		// As Boot does first: environment variables that know their names, for the origin.
		new SystemEnvironmentPropertySourceEnvironmentPostProcessor().postProcessEnvironment(this.environment,
				application);
		new UformUnknownProperties(Supplier::get).postProcessEnvironment(this.environment,
				application);
	}

	private static SpringApplication withClassLoader(ClassLoader classLoader) {
		SpringApplication application = new SpringApplication();
		application.setResourceLoader(new DefaultResourceLoader(classLoader));
		return application;
	}

	private void fromYml(String location) throws IOException {
		new YamlPropertySourceLoader().load(location, new ClassPathResource(location))
			.forEach(this.environment.getPropertySources()::addLast);
	}

	private void fromCommandLine(Map<String, Object> properties) {
		this.environment.getPropertySources().addFirst(new MapPropertySource("commandLineArgs", properties));
	}

	/** Stands in for the JVM's variables, under the name Boot gives them. */
	private void fromEnvironment(Map<String, Object> variables) {
		this.environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
	}

	/**
	 * This module's class loader with its configuration metadata replaced: none, or one test file
	 * that declares properties nothing binds.
	 */
	private static final class MetadataClassLoader extends ClassLoader {

		private final String metadata;

		MetadataClassLoader(String metadata) {
			super(UformUnknownPropertiesTest.class.getClassLoader());
			this.metadata = metadata;
		}

		@Override
		public Enumeration<URL> getResources(String name) throws IOException {
			if (!name.equals(UformMetadata.LOCATION)) {
				return super.getResources(name);
			}
			List<URL> urls = new ArrayList<>();
			if (this.metadata != null) {
				urls.add(new ClassPathResource(this.metadata).getURL());
			}
			return Collections.enumeration(urls);
		}
	}

	private static long unknownLines(CapturedOutput output) {
		return output.getAll().lines().filter((line) -> line.contains("Unknown property")).count();
	}
}
