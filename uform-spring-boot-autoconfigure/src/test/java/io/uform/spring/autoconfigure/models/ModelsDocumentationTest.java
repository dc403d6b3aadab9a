package io.uform.spring.autoconfigure.models;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;

import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/models.md}'s starter section, against the starter: its YAML starts an application whose
 * beans are the ones its bean table names, its property table lists exactly the fields an entry binds,
 * with their defaults, and its meter table names exactly the meters bound, as Prometheus writes them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ModelsDocumentationTest {

	private static String section;

	@BeforeAll
	static void readTheStartersSection() throws IOException {
		// Surefire runs in the module's directory; the docs sit beside it.
		String page = Files.readString(Path.of("..", "docs", "models.md"));
		int at = page.indexOf("## Models from `application.yml`");
		assertThat(at).as("docs/models.md has the starter's section").isNotNegative();
		section = page.substring(at);
	}

	@Test
	void theYamlStartsAnApplicationWithTheBeansTheTableNames() throws IOException {
		String yaml = block("yaml");
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("docs/models.md",
				new ByteArrayResource(yaml.getBytes()));
		List<String> properties = new ArrayList<>();
		sources.forEach((source) -> {
			for (String name : ((org.springframework.core.env.EnumerablePropertySource<?>) source).getPropertyNames()) {
				properties.add(name + "=" + source.getProperty(name));
			}
		});
		List<String> beans = new ArrayList<>();
		for (List<String> row : table("| bean | type | made when |")) {
			beans.add(row.get(0).replace("`", "").replace("<name>", "minilm"));
		}
		assertThat(beans).hasSize(3);
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformModelsAutoConfiguration.class))
			.withPropertyValues("uform.ram.threads=2")
			.withPropertyValues(properties.toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				beans.forEach((bean) -> assertThat(context).hasBean(bean));
				assertThat(context.getBean(TextEmbeddingModel.class).embed("uform")).hasSize(MiniLm.DIMENSIONS);
			});
	}

	@Test
	void thePropertyTableListsExactlyTheFieldsOfAnEntryWithTheirDefaults() {
		Map<String, String> documented = new LinkedHashMap<>();
		for (List<String> row : table("| property | default | what it does |")) {
			documented.put(row.get(0).replace("`", ""), row.get(1).replace("`", ""));
		}
		UformModelProperties defaults = new UformModelProperties();
		BeanWrapperImpl fields = new BeanWrapperImpl(defaults);
		Map<String, String> existing = new LinkedHashMap<>();
		for (PropertyDescriptor field : BeanUtils.getPropertyDescriptors(UformModelProperties.class)) {
			if (field.getWriteMethod() != null) {
				Object value = fields.getPropertyValue(field.getName());
				existing.put(DataObjectPropertyName.toDashedForm(field.getName()),
						(value != null) ? value.toString().toLowerCase(Locale.ROOT)
								: (field.getPropertyType() == Resource.class) ? "required" : "unset");
			}
		}
		assertThat(documented).containsExactlyInAnyOrderEntriesOf(existing);
	}

	@Test
	void theMeterTableNamesTheMetersBoundAsPrometheusWritesThem() {
		Map<String, String> documented = new LinkedHashMap<>();
		for (List<String> row : table("| meter | Prometheus | what it counts |")) {
			documented.put(row.get(0).replace("`", ""), row.get(1).replace("`", ""));
		}
		PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, UformAutoConfiguration.class,
					UformModelsAutoConfiguration.class))
			.withBean(PrometheusMeterRegistry.class, () -> prometheus)
			.withPropertyValues("uform.ram.threads=2")
			.withPropertyValues(MiniLm.entry("minilm"))
			.run((context) -> {
				context.getBean(TextEmbeddingModel.class).embed("uform");
				List<String> bound = prometheus.getMeters()
					.stream()
					.map((meter) -> meter.getId().getName())
					.filter((name) -> name.startsWith("uform.model."))
					.distinct()
					.toList();
				assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(bound);
				String scrape = prometheus.scrape();
				// A distribution's or timer's series are its name with _count, _sum and _max.
				documented.values()
					.forEach((name) -> assertThat(scrape).as(name)
						.containsPattern("\n" + name + "(_count)?\\{executor=\"uformRamExecutor\",model=\"minilm\"\\}"));
				for (Meter meter : prometheus.getMeters()) {
					if (meter.getId().getName().startsWith("uform.model.")) {
						assertThat(meter.getId().getTags()).extracting("key").containsExactly("executor", "model");
					}
				}
			});
	}

	/** The section's first fenced block in that language. */
	private static String block(String language) {
		Matcher block = Pattern.compile("(?s)```" + language + "\\n(.*?)```").matcher(section);
		assertThat(block.find()).as("a " + language + " block").isTrue();
		return block.group(1);
	}

	/** The rows of the section's table with that header, cells trimmed. */
	private static List<List<String>> table(String header) {
		int at = section.indexOf(header);
		assertThat(at).as("a table " + header).isNotNegative();
		List<List<String>> rows = new ArrayList<>();
		String[] lines = section.substring(at).split("\n");
		for (int i = 2; i < lines.length && lines[i].startsWith("|"); i++) {
			List<String> cells = new ArrayList<>();
			for (String cell : lines[i].substring(1, lines[i].length() - 1).split("\\|")) {
				cells.add(cell.strip());
			}
			rows.add(cells);
		}
		return rows;
	}
}
