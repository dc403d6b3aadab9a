package io.uform.sample.tracing;

import io.opentelemetry.exporter.logging.LoggingSpanExporter;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Where the sample's spans go: to the log, one line per finished span, so that a request's trace
 * (the server span, the {@code uform.deferred} span of its search, their shared trace id) can be read
 * without a collector. Boot hands every {@code SpanExporter} bean to its OpenTelemetry SDK.
 */
@Configuration(proxyBeanMethods = false)
public class TracingConfiguration {

	@Bean
	@ConditionalOnBooleanProperty("sample.tracing.log-spans")
	LoggingSpanExporter loggingSpanExporter() {
		return LoggingSpanExporter.create();
	}
}
