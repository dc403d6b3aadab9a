package io.uform.spring.autoconfigure.observation;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.uform.Executor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tracing proof with real parts: an application on embedded Tomcat with Boot's Micrometer
 * Tracing over OpenTelemetry (the OTel bridge, Boot's SDK auto-configuration, an
 * {@link InMemorySpanExporter} as the only exporter) and {@code uform.ram.fork-context-propagation}
 * on. A request to {@code /generate} submits a deferred call that makes a span of its own and forks;
 * the request also forks itself. The exported spans are one trace: the server span, the
 * {@code uform.deferred} span as its child, the call's own span as that one's child; and every log
 * line written inside the deferred call and inside each fork body, on uform's threads, carries the
 * trace id in its MDC, as Boot's log pattern prints it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformTracingWebTest {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static final String LOGGER = "io.uform.test.generate";

	private static final List<ILoggingEvent> lines = new CopyOnWriteArrayList<>();

	private static final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

		@Override
		protected void append(ILoggingEvent event) {
			event.prepareForDeferredProcessing();
			lines.add(event);
		}
	};

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2", "uform.vram.enabled=false", "uform.ram.fork-context-propagation=true",
					"management.tracing.sampling.probability=1.0", "logging.level." + LOGGER + "=INFO")
			.run();
		Logger logger = (Logger) LoggerFactory.getLogger(LOGGER);
		appender.setContext(logger.getLoggerContext());
		appender.start();
		logger.addAppender(appender);
	}

	@AfterAll
	static void close() {
		((Logger) LoggerFactory.getLogger(LOGGER)).detachAppender(appender);
		if (context != null) {
			context.close();
		}
	}

	@Test
	void aRequestItsDeferredCallAndItsForksAreOneTraceAndTheirLogLinesCarryItsId() throws Exception {
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		HttpResponse<String> response = http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/generate"))
					.timeout(Duration.ofSeconds(30))
					.build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);

		List<SpanData> spans = awaitSpans(3);
		SpanData server = single(spans, (span) -> span.getName().startsWith("http get"));
		SpanData deferred = single(spans, (span) -> span.getName().equals("deferred uformRamExecutor"));
		SpanData generate = single(spans, (span) -> span.getName().equals("model.generate"));
		String traceId = server.getTraceId();
		assertThat(deferred.getTraceId()).isEqualTo(traceId);
		assertThat(generate.getTraceId()).isEqualTo(traceId);
		assertThat(deferred.getParentSpanId()).isEqualTo(server.getSpanId());
		assertThat(generate.getParentSpanId()).isEqualTo(deferred.getSpanId());
		assertThat(deferred.getAttributes().asMap().entrySet().stream()
			.collect(Collectors.toMap((entry) -> entry.getKey().getKey(), (entry) -> String.valueOf(entry.getValue()))))
			.containsEntry("name", "uformRamExecutor")
			.containsEntry("outcome", "SUCCESS");

		Map<String, List<ILoggingEvent>> byMessage = lines.stream()
			.collect(Collectors.groupingBy(ILoggingEvent::getFormattedMessage));
		assertThat(byMessage).containsKeys("in the deferred call", "fork part in the deferred call",
				"fork part of the request");
		List<ILoggingEvent> onUformThreads = lines.stream()
			.filter((line) -> line.getThreadName().startsWith("uform-"))
			.toList();
		// The deferred thread and at least one worker (forThreads runs a part on each thread).
		assertThat(onUformThreads.stream().map(ILoggingEvent::getThreadName).distinct()).hasSizeGreaterThanOrEqualTo(2);
		assertThat(lines).hasSize(5).allSatisfy((line) -> assertThat(line.getMDCPropertyMap())
			.as("%s on %s", line.getFormattedMessage(), line.getThreadName())
			.containsEntry("traceId", traceId));
	}

	private static List<SpanData> awaitSpans(int expected) throws InterruptedException {
		InMemorySpanExporter exporter = context.getBean(InMemorySpanExporter.class);
		SdkTracerProvider tracerProvider = context.getBean(SdkTracerProvider.class);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		// The server span ends after the response is written; the batch processor exports on flush.
		while (exporter.getFinishedSpanItems().size() < expected && System.nanoTime() < deadline) {
			tracerProvider.forceFlush().join(5, TimeUnit.SECONDS);
			Thread.sleep(20);
		}
		return exporter.getFinishedSpanItems();
	}

	private static SpanData single(List<SpanData> spans, java.util.function.Predicate<SpanData> which) {
		List<SpanData> found = spans.stream().filter(which).toList();
		assertThat(found).as("spans %s", spans.stream().map(SpanData::getName).toList()).hasSize(1);
		return found.get(0);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		InMemorySpanExporter inMemorySpanExporter() {
			return InMemorySpanExporter.create();
		}

		@Bean
		GenerateController generateController(Executor executor, ObservationRegistry registry) {
			return new GenerateController(executor, registry);
		}
	}

	@RestController
	static class GenerateController {

		private static final org.slf4j.Logger logger = LoggerFactory.getLogger(LOGGER);

		private final Executor executor;

		private final ObservationRegistry registry;

		GenerateController(Executor executor, ObservationRegistry registry) {
			this.executor = executor;
			this.registry = registry;
		}

		@GetMapping("/generate")
		String generate() throws Exception {
			String generated = this.executor.defer(() -> Observation.createNotStarted("model.generate", this.registry)
				.observe(() -> {
					logger.info("in the deferred call");
					this.executor.forThreads((thread, colocation) -> logger.info("fork part in the deferred call"));
					return "tokens";
				})).get(20, TimeUnit.SECONDS);
			this.executor.forThreads((thread, colocation) -> logger.info("fork part of the request"));
			return generated;
		}
	}
}
