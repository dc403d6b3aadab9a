package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.uform.ExecutorForRamConfig;
import io.uform.gpu.GpuClasses;
import io.uform.host.CpuClasses;
import io.uform.spring.autoconfigure.diagnostics.UformBindFailureAnalyzer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata IDEs read, checked against the code and the docs: every {@code uform.*}
 * property has a description; the value hints list exactly uform's CPU classes, GPU classes and the
 * {@code uform.vram.enabled} values, so hints cannot drift from what the executor accepts; and
 * {@code docs/configuration.md} documents exactly the properties that exist, the Actuator's
 * {@code management.*.uform.*} ones too. Read from the metadata
 * the configuration processor generates, which also proves the processor ran and merged the
 * hand-written hints.
 */
class ConfigurationMetadataTest {

	private static JsonNode metadata;

	@BeforeAll
	static void readGeneratedMetadata() throws IOException {
		try (InputStream in = ConfigurationMetadataTest.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated configuration metadata on the class path").isNotNull();
			metadata = JsonMapper.builder().build().readTree(in);
		}
	}

	@Test
	void everyPropertyHasADescriptionInBootsStyle() {
		Map<String, String> properties = properties();
		assertThat(properties).containsKeys("uform.ram.threads", "uform.ram.cpu-class", "uform.vram.enabled",
				"uform.vram.scratch-limit", "uform.mesh.host-domain-count", "uform.mesh.timeout",
				"uform.shutdown.await-termination-period");
		properties.forEach((name, description) -> assertThat(description).as(name)
			.isNotBlank()
			.doesNotStartWith("The ")
			.doesNotStartWith("A "));
	}

	@Test
	void everyPropertyThatCanFailToBindSaysWhatItTakesInTheBindFailureReport() {
		// Text binds whatever is written; uform.devices.* is read by a post-processor, not the binder.
		List<String> canFail = new ArrayList<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asString();
			String type = property.get("type").asString();
			if (name.startsWith("uform.") && !name.startsWith("uform.devices.") && !"java.lang.String".equals(type)) {
				canFail.add(name);
				assertThat(UformBindFailureAnalyzer.takes(type)).as(name).isNotEmpty().doesNotStartWith("a value of type");
			}
		}
		assertThat(canFail).contains("uform.ram.threads", "uform.vram.scratch-limit", "uform.mesh.timeout");
	}

	@Test
	void cpuClassHintsAreTheKnownCpuClassesInOrder() {
		assertThat(hints("uform.ram.cpu-class")).containsExactlyElementsOf(CpuClasses.known());
		assertThat(hints("uform.vram.cpu-class")).containsExactlyElementsOf(CpuClasses.known());
	}

	@Test
	void gpuClassHintsAreTheKnownGpuClassesInOrder() {
		assertThat(hints("uform.vram.gpu-class")).containsExactlyElementsOf(GpuClasses.known());
	}

	@Test
	void vramEnabledHintsAreItsValues() {
		List<String> values = Arrays.stream(UformProperties.VramEnabled.values())
			.map((value) -> value.name().toLowerCase(Locale.ROOT))
			.toList();
		assertThat(hints("uform.vram.enabled")).containsExactlyElementsOf(values);
	}

	@Test
	void docsListExactlyThePropertiesThatExist() throws IOException {
		// Surefire runs in the module's directory; the docs sit beside it.
		String docs = Files.readString(Path.of("..", "docs", "configuration.md"));
		Matcher row = Pattern.compile("(?m)^\\|\\s*`((?:uform|management)\\.[a-z0-9.\\-]+)`").matcher(docs);
		Set<String> documented = new TreeSet<>();
		while (row.find()) {
			documented.add(row.group(1));
		}
		// Every property of the starter's metadata: uform's own and the Actuator's management.* ones.
		Set<String> existing = new TreeSet<>();
		for (JsonNode property : metadata.get("properties")) {
			existing.add(property.get("name").asString());
		}
		assertThat(existing).contains("management.endpoint.uform.access", "management.health.uform.enabled");
		assertThat(documented).as("properties in docs/configuration.md's tables")
			.containsExactlyInAnyOrderElementsOf(existing);
	}

	@Test
	void theDeferredLimitsDefaultIsUformsOwn() {
		// The field is null when unset, so that uform decides; the processor cannot see its default.
		for (String name : List.of("uform.ram.deferred-limit", "uform.vram.deferred-limit")) {
			JsonNode property = property(name);
			assertThat(property.get("defaultValue")).as("defaultValue of %s", name).isNotNull();
			assertThat(property.get("defaultValue").asInt()).as(name)
				.isEqualTo(ExecutorForRamConfig.DEFAULT_DEFERRED_LIMIT);
			assertThat(property.get("description").asString()).as("description of %s", name)
				.contains("Unset takes " + ExecutorForRamConfig.DEFAULT_DEFERRED_LIMIT);
		}
	}

	private static JsonNode property(String name) {
		for (JsonNode property : metadata.get("properties")) {
			if (property.get("name").asString().equals(name)) {
				return property;
			}
		}
		throw new AssertionError("no property " + name + " in the metadata");
	}

	/** Every {@code uform.*} property, by name, with its description. */
	private static Map<String, String> properties() {
		Map<String, String> properties = new LinkedHashMap<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asString();
			if (name.startsWith("uform.")) {
				JsonNode description = property.get("description");
				properties.put(name, (description != null) ? description.asString() : "");
			}
		}
		return properties;
	}

	private static List<String> hints(String property) {
		List<String> values = new ArrayList<>();
		for (JsonNode hint : metadata.get("hints")) {
			if (hint.get("name").asString().equals(property)) {
				for (JsonNode value : hint.get("values")) {
					values.add(value.get("value").asString());
				}
			}
		}
		assertThat(values).as("hints for " + property).isNotEmpty();
		return values;
	}
}
