package io.uform.spring.autoconfigure.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator pieces over HTTP in a real application (embedded Tomcat on a random port, every
 * auto-configuration on the class path, both executors on this module's two simulated devices),
 * called with the JDK's {@link HttpClient}: the endpoint and its selectors answer GET with JSON, 404
 * for what does not exist, 405 for any other method (it is read-only); health and info carry the
 * {@code uform} entries.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformActuatorWebTest {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static final JsonMapper json = JsonMapper.builder().build();

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = start("management.endpoints.web.exposure.include=uform,health,info");
	}

	@AfterAll
	static void close() {
		if (context != null) {
			context.close();
		}
	}

	@Test
	void theRootAnswersWithEverySection() throws Exception {
		HttpResponse<String> response = send(context, "GET", "/actuator/uform");
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/vnd.spring-boot.actuator.v3+json"));
		JsonNode body = json.readTree(response.body());
		assertThat(body.propertyNames()).containsExactly("version", "capabilities", "devices", "executors");
		assertThat(body.get("devices").size()).isEqualTo(2);
		assertThat(body.get("executors").propertyNames()).containsExactly(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
				UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
	}

	@Test
	void oneExecutorByName() throws Exception {
		HttpResponse<String> ram = send(context, "GET", "/actuator/uform/executors/uformRamExecutor");
		assertThat(ram.statusCode()).as(ram.body()).isEqualTo(200);
		JsonNode body = json.readTree(ram.body());
		assertThat(body.get("kind").asString()).isEqualTo("RAM");
		assertThat(body.get("state").asString()).isEqualTo("RUNNING");
		assertThat(body.get("config").get("threads").asInt()).isEqualTo(2);
		HttpResponse<String> vram = send(context, "GET", "/actuator/uform/executors/uformVramExecutor");
		assertThat(vram.statusCode()).as(vram.body()).isEqualTo(200);
		assertThat(json.readTree(vram.body()).get("kind").asString()).isEqualTo("VRAM");
	}

	@Test
	void eachSelectorAnswers() throws Exception {
		HttpResponse<String> devices = send(context, "GET", "/actuator/uform/devices");
		assertThat(devices.statusCode()).isEqualTo(200);
		assertThat(json.readTree(devices.body()).isArray()).isTrue();
		HttpResponse<String> capabilities = send(context, "GET", "/actuator/uform/capabilities");
		assertThat(capabilities.statusCode()).isEqualTo(200);
		assertThat(json.readTree(capabilities.body()).propertyNames()).containsExactly("compiled", "available");
		HttpResponse<String> executors = send(context, "GET", "/actuator/uform/executors");
		assertThat(executors.statusCode()).isEqualTo(200);
		assertThat(json.readTree(executors.body()).propertyNames()).hasSize(2);
	}

	@Test
	void whatDoesNotExistIs404() throws Exception {
		assertThat(send(context, "GET", "/actuator/uform/executors/nope").statusCode()).isEqualTo(404);
		assertThat(send(context, "GET", "/actuator/uform/nope").statusCode()).isEqualTo(404);
		assertThat(send(context, "GET", "/actuator/uform/devices/uformRamExecutor").statusCode()).isEqualTo(404);
		assertThat(send(context, "GET", "/actuator/uform/mesh").statusCode()).as("no mesh in this application")
			.isEqualTo(404);
	}

	@Test
	void theEndpointIsReadOnly() throws Exception {
		assertThat(send(context, "POST", "/actuator/uform").statusCode()).isEqualTo(405);
		assertThat(send(context, "PUT", "/actuator/uform").statusCode()).isEqualTo(405);
		assertThat(send(context, "DELETE", "/actuator/uform").statusCode()).isEqualTo(405);
		assertThat(send(context, "POST", "/actuator/uform/executors/uformRamExecutor").statusCode()).isEqualTo(405);
		assertThat(send(context, "DELETE", "/actuator/uform/executors").statusCode()).isEqualTo(405);
		assertThat(context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class).statistics().state())
			.isEqualTo(Executor.State.RUNNING);
	}

	@Test
	void healthAndInfoCarryTheUformEntries() throws Exception {
		HttpResponse<String> health = send(context, "GET", "/actuator/health");
		assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
		JsonNode uform = json.readTree(health.body()).get("components").get("uform");
		assertThat(uform.get("status").asString()).isEqualTo("UP");
		assertThat(uform.get("details").get("executors").get(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME).asString())
			.isEqualTo("RUNNING");
		assertThat(uform.get("details").get("devices").asInt()).isEqualTo(2);
		HttpResponse<String> info = send(context, "GET", "/actuator/info");
		assertThat(info.statusCode()).as(info.body()).isEqualTo(200);
		JsonNode uformInfo = json.readTree(info.body()).get("uform");
		assertThat(uformInfo.propertyNames()).containsExactly("version", "bestCpuClass", "capabilities");
		assertThat(uformInfo.get("capabilities").get("available").isArray()).isTrue();
	}

	@Test
	void healthIsDownAnd503OnceAnExecutorIsFreedUnderTheRunningApplication() throws Exception {
		try (ConfigurableApplicationContext own = start("management.endpoints.web.exposure.include=health")) {
			assertThat(send(own, "GET", "/actuator/health").statusCode()).isEqualTo(200);
			own.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class).free();
			HttpResponse<String> health = send(own, "GET", "/actuator/health");
			assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
			JsonNode uform = json.readTree(health.body()).get("components").get("uform");
			assertThat(uform.get("status").asString()).isEqualTo("DOWN");
			assertThat(uform.get("details").get("reason").asString()).contains("uformRamExecutor");
			assertThat(send(own, "GET", "/actuator/uform").statusCode()).as("not exposed here").isEqualTo(404);
		}
	}

	@Test
	void theHealthIndicatorIsSwitchedOffByItsProperty() throws Exception {
		try (ConfigurableApplicationContext own = start("management.endpoints.web.exposure.include=health",
				"management.health.uform.enabled=false")) {
			HttpResponse<String> health = send(own, "GET", "/actuator/health");
			assertThat(health.statusCode()).isEqualTo(200);
			assertThat(json.readTree(health.body()).get("components").has("uform")).isFalse();
		}
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2", "management.endpoint.health.show-details=always")
			.properties(properties)
			.run();
	}

	private static HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path)
			throws Exception {
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}
}
