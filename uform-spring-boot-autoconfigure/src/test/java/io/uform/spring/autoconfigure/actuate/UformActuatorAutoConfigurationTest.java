package io.uform.spring.autoconfigure.actuate;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator auto-configurations and their conditions: the endpoint only where it is available
 * (exposed, access not {@code none}), the health indicator unless switched off, the info contributor
 * unless switched off, every one backing off for the user's own bean, and an application without
 * Actuator or {@code spring-boot-health} on its class path still starting, just without them.
 * Contexts make executors on this module's two simulated devices, hence the time limit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformActuatorAutoConfigurationTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformEndpointAutoConfiguration.class,
				UformHealthContributorAutoConfiguration.class, UformInfoContributorAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	@Test
	void everyPieceIsMadeWhereActuatorIsPresentAndTheEndpointExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=uform")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(UformEndpoint.class)
				.hasSingleBean(UformHealthIndicator.class)
				.hasBean("uformHealthIndicator")
				.hasSingleBean(UformInfoContributor.class)
				.hasBean("uformInfoContributor"));
	}

	@Test
	void theEndpointIsNotMadeUnlessExposed() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(UformEndpoint.class)
			.hasSingleBean(UformHealthIndicator.class)
			.hasSingleBean(UformInfoContributor.class));
	}

	@Test
	void theEndpointIsNotMadeWhenItsAccessIsNone() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=uform", "management.endpoint.uform.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(UformEndpoint.class));
	}

	@Test
	void theHealthIndicatorIsSwitchedOffByItsProperty() {
		this.contextRunner.withPropertyValues("management.health.uform.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(UformHealthIndicator.class)
				.hasSingleBean(UformInfoContributor.class));
	}

	@Test
	void theHealthIndicatorFollowsTheHealthDefaultsWhenItHasNoSettingOfItsOwn() {
		this.contextRunner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(UformHealthIndicator.class));
		this.contextRunner
			.withPropertyValues("management.health.defaults.enabled=false", "management.health.uform.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(UformHealthIndicator.class));
	}

	@Test
	void theInfoContributorIsSwitchedOffByItsProperty() {
		this.contextRunner.withPropertyValues("management.info.uform.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(UformInfoContributor.class)
				.hasSingleBean(UformHealthIndicator.class));
	}

	@Test
	void theUsersOwnBeansWin() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=uform")
			.withUserConfiguration(UsersOwn.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(UformEndpoint.class);
				assertThat(context.getBean(UformEndpoint.class)).isSameAs(context.getBean("myUformEndpoint"));
				assertThat(context.getBean("uformHealthIndicator")).isNotInstanceOf(UformHealthIndicator.class);
				assertThat(context.getBean("uformInfoContributor")).isNotInstanceOf(UformInfoContributor.class);
			});
	}

	@Test
	void anApplicationWithoutActuatorOrHealthStartsWithoutThem() {
		// As at startup: @ImportAutoConfiguration filters on the generated metadata's ConditionalOnClass,
		// so the auto-configurations are dropped before any of their classes is loaded.
		new ApplicationContextRunner().withUserConfiguration(Imported.class)
			.withPropertyValues("uform.ram.threads=1", "management.endpoints.web.exposure.include=uform")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
					"org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(UformEndpointAutoConfiguration.class)
				.doesNotHaveBean(UformHealthContributorAutoConfiguration.class)
				.doesNotHaveBean(UformInfoContributorAutoConfiguration.class)
				.doesNotHaveBean(UformEndpoint.class)
				.doesNotHaveBean(UformHealthIndicator.class)
				.doesNotHaveBean(UformInfoContributor.class));
	}

	@Test
	void anApplicationWithActuatorButWithoutHealthHasTheEndpointAndInfo() {
		new ApplicationContextRunner().withUserConfiguration(Imported.class)
			.withPropertyValues("uform.ram.threads=1", "management.endpoints.web.exposure.include=uform")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(UformEndpoint.class)
				.hasSingleBean(UformInfoContributor.class)
				.doesNotHaveBean(UformHealthIndicator.class));
	}

	/**
	 * jackson-annotations is an optional dependency (the endpoint's {@code @JsonValue}): no condition or
	 * bean definition of the Actuator configurations asks the context's class loader for it, so they are
	 * made and the endpoint answers without it there. (As with every FilteredClassLoader test, classes
	 * the test's own loader already loaded still see it: a hard use of it inside UformEndpoint's code is
	 * not caught here.)
	 */
	@Test
	void withoutJacksonAnnotationsTheEndpointIsMadeAndAnswers() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=uform")
			.withClassLoader(new FilteredClassLoader("com.fasterxml.jackson.annotation"))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(UformEndpoint.class);
				assertThat(context.getBean(UformEndpoint.class).uform().executors()).isNotEmpty();
			});
	}

	@Test
	void eachPieceBacksOffWithoutItsOwnMarkerClass() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=uform")
			.withClassLoader(new FilteredClassLoader(Endpoint.class, Health.class, InfoContributor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(UformEndpoint.class)
				.doesNotHaveBean(UformHealthIndicator.class)
				.doesNotHaveBean(UformInfoContributor.class));
	}

	@Test
	void theIndicatorAndEndpointAreMadeWithoutAnyExecutorToo() {
		this.contextRunner
			.withPropertyValues("uform.ram.enabled=false", "uform.vram.enabled=false",
					"management.endpoints.web.exposure.include=uform")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(Executor.class);
				assertThat(context.getBean(UformEndpoint.class).uform().executors()).isEmpty();
				assertThat(context.getBean(UformHealthIndicator.class).health().getStatus().getCode()).isEqualTo("UP");
			});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ UformAutoConfiguration.class, UformEndpointAutoConfiguration.class,
			UformHealthContributorAutoConfiguration.class, UformInfoContributorAutoConfiguration.class })
	static class Imported {

	}

	@Configuration(proxyBeanMethods = false)
	static class UsersOwn {

		@Bean
		UformEndpoint myUformEndpoint(ListableBeanFactory beans) {
			return new UformEndpoint(beans);
		}

		@Bean
		HealthIndicator uformHealthIndicator() {
			return () -> Health.up().build();
		}

		@Bean
		InfoContributor uformInfoContributor() {
			return (builder) -> builder.withDetail("uform", "mine");
		}
	}
}
