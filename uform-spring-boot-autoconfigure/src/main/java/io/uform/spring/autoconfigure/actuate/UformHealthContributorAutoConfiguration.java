package io.uform.spring.autoconfigure.actuate;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for the {@link UformHealthIndicator}: made where
 * {@code spring-boot-health} is on the class path, unless {@code management.health.uform.enabled=false}
 * (or {@code management.health.defaults.enabled=false} with no {@code uform} setting of its own).
 */
@AutoConfiguration(after = UformAutoConfiguration.class,
		beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass({ Executor.class, Health.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnEnabledHealthIndicator("uform")
public final class UformHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "uformHealthIndicator")
	UformHealthIndicator uformHealthIndicator(ApplicationContext context) {
		return new UformHealthIndicator(context);
	}
}
