package io.uform.spring.autoconfigure.models;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.onnxruntime.EmbeddingRefusedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The models through Actuator in a real application (embedded Tomcat on a random port, every
 * auto-configuration on the class path, one model): the {@code uform} endpoint lists it and shows it
 * alone, health and info include it, and Prometheus scrapes its meters, with their descriptions, beside
 * Spring AI's own embedding observation.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UformModelsActuatorWebTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2", "management.endpoint.health.show-details=always",
					"management.endpoints.web.exposure.include=uform,health,info,prometheus")
			.properties(MiniLm.entry("minilm"))
			.run();
		EmbeddingModel model = context.getBean(EmbeddingModel.class);
		model.embed(List.of("uform", "executors own threads"));
		model.embed("one more");
		assertThatThrownBy(() -> model.embed(" ")).isInstanceOf(EmbeddingRefusedException.class);
		// The listener hears a batch on the executor just after its callers have their vectors.
		ModelReports reports = context.getBean(ModelReports.class);
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (reports.reports().get("minilm").texts() < 3 && System.nanoTime() < deadline) {
			java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
		}
	}

	@AfterAll
	static void close() {
		if (context != null) {
			context.close();
		}
	}

	@Test
	void theEndpointListsTheModelWithWhatItDid() throws Exception {
		JsonNode minilm = get("/actuator/uform").get("models").get("minilm");
		assertThat(minilm.get("name").asString()).isEqualTo("minilm");
		assertThat(minilm.get("file").asString()).isEqualTo("class path resource [all-minilm-l6-v2-q.onnx]");
		assertThat(minilm.get("dimensions").asInt()).isEqualTo(MiniLm.DIMENSIONS);
		assertThat(minilm.get("pooling").asString()).isEqualTo("mean");
		assertThat(minilm.get("executor").asString()).isEqualTo("uformRamExecutor");
		assertThat(minilm.get("loadedAt").asString()).isNotBlank();
		assertThat(minilm.get("calls").asLong()).isEqualTo(2);
		assertThat(minilm.get("texts").asLong()).isEqualTo(3);
		assertThat(minilm.get("tokens").asLong()).isGreaterThanOrEqualTo(3 * 3);
		assertThat(minilm.get("refused").asLong()).isEqualTo(1);
	}

	@Test
	void oneModelIsShownByNameAndAnUnknownOneIsNotFound() throws Exception {
		assertThat(get("/actuator/uform/models/minilm").get("texts").asLong()).isEqualTo(3);
		assertThat(get("/actuator/uform/models").get("minilm").get("dimensions").asInt()).isEqualTo(MiniLm.DIMENSIONS);
		assertThat(send("/actuator/uform/models/nope").statusCode()).isEqualTo(404);
		assertThat(get("/actuator/uform/executors/uformRamExecutor").get("kind").asString()).isEqualTo("RAM");
	}

	@Test
	void healthIncludesTheModelAndInfoNamesIt() throws Exception {
		JsonNode models = get("/actuator/health").get("components").get("uformModels");
		assertThat(models.get("status").asString()).isEqualTo("UP");
		assertThat(models.get("details").get("minilm").get("executorState").asString()).isEqualTo("RUNNING");
		assertThat(get("/actuator/info").get("uform").get("models").get(0).asString()).isEqualTo("minilm");
	}

	@Test
	void prometheusScrapesTheModelsMetersWithTheirDescriptionsBesideSpringAisObservation() throws Exception {
		String scrape = send("/actuator/prometheus").body();
		String tags = "executor=\"uformRamExecutor\",model=\"minilm\"";
		assertThat(scrape).contains("# HELP uform_model_texts_total Texts the model embedded")
			.contains("uform_model_texts_total{" + tags + "} 3.0")
			.contains("uform_model_refused_requests_total{" + tags + "} 1.0")
			.contains("# HELP uform_model_tokens_total ")
			.contains("uform_model_batch_size_texts_count{" + tags + "}")
			.contains("uform_model_call_seconds_count{" + tags + "}")
			.containsPattern("gen_ai_client_operation_seconds_count\\{[^}]*gen_ai_operation_name=\"embedding\"[^}]*"
					+ "gen_ai_request_model=\"minilm\"");
	}

	private static JsonNode get(String path) throws Exception {
		HttpResponse<String> response = send(path);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private static HttpResponse<String> send(String path) throws Exception {
		return LocalServer.get(context, path);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}
}
