package io.uform.spring.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.MDC;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.uform.Executor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first try, as a user's application makes it: embedded Tomcat, every auto-configuration on
 * the class path (Boot's task execution and tracing among them), {@code @EnableAsync} and
 * {@code uform.ram.async-executor=true}. A request whose handler awaits an
 * {@code @Async("uformRamExecutor")} method gets 200, not the 500 of "No matching Executor bean"; the
 * method ran on the RAM executor's deferred thread, in the request's trace (the trace id in its MDC is
 * the handler's); a plain {@code @Async} method of the same application still runs on Boot's
 * {@code applicationTaskExecutor}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformAsyncWebTest {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2", "uform.vram.enabled=false", "uform.ram.async-executor=true",
					"management.tracing.sampling.probability=1.0")
			.run();
	}

	@AfterAll
	static void close() {
		if (context != null) {
			context.close();
		}
	}

	@Test
	void asyncByTheRamExecutorsNameAnswersOnItsDeferredThreadInTheRequestsTrace() throws Exception {
		String[] answer = get("/embed").split(" ");
		Executor ram = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
		assertThat(answer[0]).as("the @Async method's thread").isEqualTo("uform-" + ram.name() + "-deferred");
		assertThat(answer[1]).as("the trace id on the request's thread").isNotEqualTo("null");
		assertThat(answer[2]).as("the trace id inside the @Async method").isEqualTo(answer[1]);
	}

	@Test
	void plainAsyncInTheSameApplicationStaysOnBootsExecutor() throws Exception {
		assertThat(get("/mail")).startsWith("task-");
	}

	private static String get(String path) throws Exception {
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		HttpResponse<String> response = http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return response.body();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableAsync
	static class App {

		@Bean
		Work work() {
			return new Work();
		}

		@Bean
		WorkController workController(Work work) {
			return new WorkController(work);
		}
	}

	static class Work {

		@Async(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
		public CompletableFuture<String> embed() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName() + " " + MDC.get("traceId"));
		}

		@Async
		public CompletableFuture<String> mail() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}
	}

	@RestController
	static class WorkController {

		private final Work work;

		WorkController(Work work) {
			this.work = work;
		}

		@GetMapping("/embed")
		String embed() throws Exception {
			String traceId = MDC.get("traceId");
			String[] inside = this.work.embed().get(20, TimeUnit.SECONDS).split(" ");
			return inside[0] + " " + traceId + " " + inside[1];
		}

		@GetMapping("/mail")
		String mail() throws Exception {
			return this.work.mail().get(20, TimeUnit.SECONDS);
		}
	}
}
