package io.uform.spring.autoconfigure.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.observation.UformObservationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every uform series of a Prometheus scrape has {@code # HELP} text: the executor, GPU and mesh meters,
 * and the deferred-call timer Micrometer makes from the {@code uform.deferred} observation, as an
 * application with Actuator observes it (a meter observation handler on the registry). Scraped once,
 * after a deferred call has run and while one is in flight.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformMeterHelpTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, UformAutoConfiguration.class,
				UformMetricsAutoConfiguration.class, UformObservationAutoConfiguration.class))
		.withUserConfiguration(Observed.class)
		.withPropertyValues("uform.ram.threads=2", "uform.vram.scratch-limit=16MB", "uform.mesh.host-domain-count=1");

	@Test
	void everyUformSeriesOfTheScrapeHasHelpText() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			Executor ram = context.getBean(Executor.class);
			ram.defer(() -> "done").get(10, TimeUnit.SECONDS);
			// The call's observation stops, and its timer is recorded, on uform's completion thread, just
			// after the future completes.
			PrometheusMeterRegistry prometheus = context.getBean(PrometheusMeterRegistry.class);
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (prometheus.find("uform.deferred").timer() == null && System.nanoTime() < deadline) {
				Thread.sleep(5);
			}
			CountDownLatch release = new CountDownLatch(1);
			ram.defer(() -> {
				release.await();
				return null;
			});
			try {
				Map<String, String> help = help(prometheus.scrape());
				assertThat(help).containsKeys("uform_deferred_seconds", "uform_deferred_active_seconds");
				assertThat(help).as("# HELP text of the uform series").allSatisfy((name, text) -> assertThat(text)
					.as(name)
					.isNotBlank());
			}
			finally {
				release.countDown();
			}
		});
	}

	/** Each uform family's {@code # HELP} text, by name. */
	private static Map<String, String> help(String scrape) {
		Map<String, String> help = new TreeMap<>();
		for (String line : scrape.split("\n")) {
			if (line.startsWith("# HELP uform_")) {
				String rest = line.substring("# HELP ".length());
				int space = rest.indexOf(' ');
				help.put((space < 0) ? rest : rest.substring(0, space), (space < 0) ? "" : rest.substring(space + 1));
			}
		}
		assertThat(help).as("uform families in the scrape").isNotEmpty();
		return help;
	}

	@Configuration(proxyBeanMethods = false)
	static class Observed {

		@Bean
		PrometheusMeterRegistry prometheusMeterRegistry() {
			return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		}

		@Bean
		ObservationRegistry observationRegistry(MeterRegistry meters) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
			return registry;
		}
	}
}
