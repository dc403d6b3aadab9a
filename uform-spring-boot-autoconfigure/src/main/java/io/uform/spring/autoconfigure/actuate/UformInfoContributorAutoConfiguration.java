package io.uform.spring.autoconfigure.actuate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.models.ModelReports;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for the {@link UformInfoContributor}: made where
 * Spring Boot Actuator is on the class path, unless {@code management.info.uform.enabled=false} (or
 * {@code management.info.defaults.enabled=false} with no {@code uform} setting of its own).
 */
@AutoConfiguration(after = UformAutoConfiguration.class)
@ConditionalOnClass({ Executor.class, InfoContributor.class, ConditionalOnEnabledInfoContributor.class })
public final class UformInfoContributorAutoConfiguration {

	@Bean
	@ConditionalOnEnabledInfoContributor("uform")
	@ConditionalOnMissingBean(name = "uformInfoContributor")
	UformInfoContributor uformInfoContributor(ObjectProvider<ModelReports> models) {
		return new UformInfoContributor(() -> {
			ModelReports reports = models.getIfAvailable();
			return (reports != null) ? reports.reports().keySet() : java.util.List.of();
		});
	}
}
