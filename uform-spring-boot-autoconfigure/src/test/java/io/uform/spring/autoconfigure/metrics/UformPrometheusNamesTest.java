package io.uform.spring.autoconfigure.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.Executor;
import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.GpuVendor;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.models.UformModelsAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Prometheus names the metrics tables of {@code docs/actuator.md} give are the names Micrometer's real
 * {@link PrometheusMeterRegistry} writes for uform's meters, and every uform series it writes is
 * documented: a context with both executors (on this module's simulated devices, a scratch limit
 * set) and a mesh of one, and a model, scraped once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformPrometheusNamesTest {

	/** Readings a simulated device does not report, so no series exists for them here. */
	private static final Set<String> NOT_ON_SIMULATED_DEVICES = Set.of("uform_gpu_utilization_percent",
			"uform_gpu_power_watts", "uform_gpu_temperature_celsius");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, UformAutoConfiguration.class,
				UformMetricsAutoConfiguration.class, UformModelsAutoConfiguration.class))
		.withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
		.withPropertyValues("uform.ram.threads=2", "uform.vram.scratch-limit=16MB", "uform.mesh.host-domain-count=1",
				"uform.models.minilm.model=classpath:/all-minilm-l6-v2-q.onnx",
				"uform.models.minilm.tokenizer=classpath:/all-minilm-l6-v2-q-tokenizer.json");

	@Test
	void theDocumentedNamesAreTheScrapedOnes() throws IOException {
		Set<String> documented = documentedNames();
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(Executor.class).forN(4, (index) -> {
			});
			context.getBean(TextEmbeddingModel.class).embed("uform");
			Set<String> scraped = scrapedUformNames(context.getBean(PrometheusMeterRegistry.class).scrape());
			Set<String> expected = new TreeSet<>(documented);
			expected.removeAll(NOT_ON_SIMULATED_DEVICES);
			assertThat(scraped).as("series the registry writes for uform").containsExactlyInAnyOrderElementsOf(expected);
		});
	}

	/**
	 * The readings simulated devices do not report, from {@link UformGpuMetrics} over a device whose
	 * vendor reports them all (the readings are the test's): their documented names are the scraped
	 * ones too, so that a dashboard panel only a real GPU fills reads a name that exists.
	 */
	@Test
	void theNamesOfReadingsOnlyARealGpuReportsAreTheScrapedOnes() throws IOException {
		Set<String> documented = documentedNames();
		assertThat(documented).containsAll(NOT_ON_SIMULATED_DEVICES);
		GpuDevice hopper = new GpuDevice(GpuVendor.NVIDIA, 0, "nvidia-hopper", 132, 80L << 30, "NVIDIA H100 80GB HBM3",
				"GPU-5fa2c1d0-8f3e-4b1a-9c7d-2e6f1a0b3c4d", "0000:17:00.0");
		PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		new UformGpuMetrics(List.of(hopper), (ordinal) -> new GpuReadings(1L << 30, 80L << 30, 7, 123.5, 41.0),
				Duration.ZERO, System::nanoTime)
			.bindTo(registry);
		Set<String> scraped = scrapedUformNames(registry.scrape());
		assertThat(scraped).containsAll(NOT_ON_SIMULATED_DEVICES);
		assertThat(documented).containsAll(scraped);
	}

	/**
	 * The second column of the meter tables of docs/actuator.md (its "## Metrics" section, whose only tables they
	 * are), with "`x_count`, `_sum`" expanded.
	 */
	private static Set<String> documentedNames() throws IOException {
		String page = Files.readString(Path.of("..", "docs", "actuator.md"));
		assertThat(page).as("docs/actuator.md has a metrics section").contains("\n## Metrics\n");
		String docs = page.substring(page.indexOf("\n## Metrics\n"));
		Set<String> names = new TreeSet<>();
		Matcher row = Pattern.compile("(?m)^\\| `[a-z.]+`(?:, `[a-z.]+`)? \\| ([^|]+) \\|").matcher(docs);
		while (row.find()) {
			String previous = null;
			for (Matcher name = Pattern.compile("`([a-z_]+)`").matcher(row.group(1)); name.find();) {
				String found = name.group(1);
				if (found.startsWith("_") && previous != null) {
					found = previous.substring(0, previous.lastIndexOf('_')) + found;
				}
				names.add(found);
				previous = found;
			}
		}
		assertThat(names).as("Prometheus names in docs/actuator.md").isNotEmpty();
		return names;
	}

	/**
	 * Metric names of the scrape's samples that belong to uform: every {@code uform_*} series, and
	 * the {@code executor_*} series of uform's executor beans.
	 */
	private static Set<String> scrapedUformNames(String scrape) {
		Set<String> names = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			if (line.startsWith("#") || line.isBlank()) {
				continue;
			}
			String name = line.substring(0, line.indexOf((line.contains("{")) ? '{' : ' '));
			boolean uformExecutor = name.startsWith("executor_") && line.contains("name=\"uform");
			if (name.startsWith("uform_") || uformExecutor) {
				names.add(name);
			}
		}
		return names;
	}
}
