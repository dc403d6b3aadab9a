package io.uform.sample.web;

import java.time.Duration;

import org.apache.catalina.Container;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.AbstractProtocol;
import org.jspecify.annotations.Nullable;

import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Every error the sample answers is an RFC 9457 problem, including those that happen before Spring MVC
 * sees the request: an undecodable query string ({@link QueryStringCheck}), what Tomcat refuses in its
 * connector ({@link ProblemErrorReportValve}) and an error status with no body ({@link EmptyErrorBodies});
 * and a request on a kept-alive connection during shutdown is answered, not dropped ({@link KeepAliveDrain}).
 */
@Configuration(proxyBeanMethods = false)
class WebErrorsConfiguration {

	@Bean
	FilterRegistrationBean<QueryStringCheck> queryStringCheck() {
		FilterRegistrationBean<QueryStringCheck> registration = new FilterRegistrationBean<>(new QueryStringCheck());
		// Before every filter that reads a parameter (Boot's observation filter tags by them).
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	@Bean
	FilterRegistrationBean<EmptyErrorBodies> emptyErrorBodies() {
		FilterRegistrationBean<EmptyErrorBodies> registration = new FilterRegistrationBean<>(new EmptyErrorBodies());
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
		return registration;
	}

	@Bean
	KeepAliveDrain keepAliveDrain(ApplicationContext context, @Value("${sample.shutdown.drain-period:1s}") Duration period) {
		return new KeepAliveDrain(() -> {
			AbstractProtocol<?> protocol = protocol(context);
			if (protocol != null) {
				protocol.closeServerSocketGraceful();
			}
		}, period);
	}

	@Bean
	FilterRegistrationBean<OncePerRequestFilter> keepAliveDrainFilter(KeepAliveDrain drain) {
		FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(drain.filter());
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	/** Tomcat's connector's protocol, where the application runs in Tomcat (not in a mock environment). */
	private static @Nullable AbstractProtocol<?> protocol(ApplicationContext context) {
		if (context instanceof WebServerApplicationContext web && web.getWebServer() instanceof TomcatWebServer tomcat
				&& tomcat.getTomcat().getConnector().getProtocolHandler() instanceof AbstractProtocol<?> protocol) {
			return protocol;
		}
		return null;
	}

	@Bean
	JsonMapperBuilderCustomizer textIsOnlyText() {
		// Jackson reads 123, 1.5 and true into a String field as "123", "1.5" and "true", so
		// {"query": 123} and {"texts": [1, 2]} would be searched and embedded; a client that sends them
		// has a bug to hear about (allow-coercion-of-scalars governs the other direction only).
		return (builder) -> builder.withCoercionConfig(LogicalType.Textual, (text) -> text
			.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
	}

	@Bean
	WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReports() {
		// Boot adds a plain ErrorReportValve to the host (TomcatWebServerFactoryCustomizer) and the host
		// would add another at start: ours replaces both, just before the host starts.
		return (factory) -> factory.addContextCustomizers((context) -> {
			Container host = context.getParent();
			host.addLifecycleListener((event) -> {
				if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())) {
					for (Valve valve : host.getPipeline().getValves()) {
						if (valve instanceof ErrorReportValve && !(valve instanceof ProblemErrorReportValve)) {
							host.getPipeline().removeValve(valve);
						}
					}
					if (host instanceof StandardHost standard) {
						standard.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
					}
					host.getPipeline().addValve(new ProblemErrorReportValve());
				}
			});
		});
	}
}
