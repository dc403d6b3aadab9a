package io.uform.spring.autoconfigure;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.uform.host.CpuClasses;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE hints for {@code uform.ram.cpu-class} list exactly uform's CPU class vocabulary, in its
 * order, so the hints cannot drift from what the executor accepts. Read from the metadata the
 * configuration processor generates (what IDEs read), which also proves the processor ran and
 * merged the hand-written hints.
 */
class ConfigurationMetadataTest {

	@Test
	void cpuClassHintsAreTheKnownCpuClasses() throws Exception {
		String json;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated configuration metadata on the class path").isNotNull();
			json = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
		}
		Matcher values = Pattern.compile("\"value\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
		List<String> hinted = new ArrayList<>();
		while (values.find()) {
			hinted.add(values.group(1));
		}
		assertThat(json).contains("\"uform.ram.cpu-class\"").contains("\"uform.ram.deferred-limit\"");
		assertThat(hinted).containsExactlyElementsOf(CpuClasses.known());
	}
}
