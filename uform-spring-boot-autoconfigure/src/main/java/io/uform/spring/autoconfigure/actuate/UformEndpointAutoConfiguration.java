package io.uform.spring.autoconfigure.actuate;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for the {@link UformEndpoint}: made where Spring
 * Boot Actuator is on the class path and the {@code uform} endpoint is available (its access is not
 * {@code none} and it is exposed, e.g. {@code management.endpoints.web.exposure.include=uform}).
 */
@AutoConfiguration(after = UformAutoConfiguration.class)
@ConditionalOnClass({ Executor.class, Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(UformEndpoint.class)
public final class UformEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	UformEndpoint uformEndpoint(ConfigurableListableBeanFactory beanFactory) {
		return new UformEndpoint(beanFactory);
	}
}
