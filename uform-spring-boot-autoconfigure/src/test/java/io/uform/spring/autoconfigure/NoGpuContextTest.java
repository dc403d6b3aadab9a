package io.uform.spring.autoconfigure;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.Executor;
import io.uform.Uform;
import io.uform.spring.autoconfigure.actuate.UformEndpoint;
import io.uform.spring.autoconfigure.actuate.UformEndpoint.UformDescriptor;
import io.uform.spring.autoconfigure.actuate.UformEndpointAutoConfiguration;
import io.uform.spring.autoconfigure.actuate.UformHealthContributorAutoConfiguration;
import io.uform.spring.autoconfigure.actuate.UformHealthIndicator;
import io.uform.spring.autoconfigure.actuate.UformInfoContributorAutoConfiguration;
import io.uform.spring.autoconfigure.metrics.UformMetricsAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The starter on a machine without a GPU, as most of its users' laptops and CI machines are: a
 * RAM-only context with Actuator and Micrometer. Every other test JVM of this module sees two
 * simulated devices, and discovery reads that once per JVM, so this class runs in a surefire
 * execution of its own with {@code uform.devices.simulated=0} (see the pom); on a machine with a
 * real GPU it is skipped, saying so.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoGpuContextTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, MetricsAutoConfiguration.class,
				UformMetricsAutoConfiguration.class, UformEndpointAutoConfiguration.class,
				UformHealthContributorAutoConfiguration.class, UformInfoContributorAutoConfiguration.class,
				JacksonEndpointAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("uform.ram.threads=2", "management.endpoints.web.exposure.include=uform");

	@BeforeAll
	static void noGpu() {
		assumeTrue(Uform.gpuDevices().isEmpty(), () -> "this JVM sees GPUs " + Uform.gpuDevices()
				+ ": the no-GPU context is tested only where there is none (the no-gpu surefire execution)");
	}

	@Test
	void onlyTheRamExecutorIsMadeAndEverythingThatAppliesIsShown() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
			Executor ram = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
			ram.forN(2, (index) -> {
			});

			UformDescriptor uform = context.getBean(UformEndpoint.class).uform();
			assertThat(uform.devices()).isEmpty();
			assertThat(uform.executors()).containsOnlyKeys(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME);
			assertThat(uform.executors().get(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME).forks()).isEqualTo(1);
			assertThat(uform.mesh()).isNull();
			assertThat(uform.capabilities().available()).isNotEmpty().doesNotContain("cuda", "rocm");
			assertThat(context.getBean(UformEndpoint.class).part(UformEndpoint.MESH)).isNull();

			Health health = context.getBean(UformHealthIndicator.class).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("devices", 0);

			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("uform.executor.forks").tag("name", UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.functionCounter()
				.count()).isEqualTo(1);
			List<String> names = registry.getMeters().stream().map(Meter::getId).map(Meter.Id::getName).toList();
			assertThat(names).as("no device, so no device or scratch meter")
				.noneMatch((name) -> name.startsWith("uform.gpu.") || name.startsWith("uform.scratch."));
		});
	}
}
