package io.uform.spring.autoconfigure.models;

import java.net.http.HttpResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.uform.Executor;
import io.uform.onnxruntime.EmbeddingRefusedException;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model's refusals reaching a real web application's handler (embedded Tomcat, every
 * auto-configuration, one model on an executor with one deferred slot and no slot wait): a blank
 * text is a 400 problem detail naming it, a saturated executor a 503 with {@code Retry-After}, and
 * neither logs an ERROR; the application's own advice still answers instead where it has one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class ModelErrorResponsesWebTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	@Test
	void aRefusedTextIs400AndASaturatedExecutor503WithRetryAfterAndNeitherLogsAnError(CapturedOutput output)
			throws Exception {
		try (ConfigurableApplicationContext context = start(App.class)) {
			assertThat(send(context, "/embed?text=hello").statusCode()).isEqualTo(200);

			HttpResponse<String> blank = send(context, "/embed?text=%20");
			assertThat(blank.statusCode()).isEqualTo(400);
			assertThat(blank.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			JsonNode refused = json.readTree(blank.body());
			assertThat(refused.get("status").asInt()).isEqualTo(400);
			assertThat(refused.get("detail").asString()).contains("blank");

			CountDownLatch release = new CountDownLatch(1);
			Executor executor = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
			executor.defer(() -> release.await(30, TimeUnit.SECONDS));
			try {
				HttpResponse<String> saturated = send(context, "/embed?text=hello");
				assertThat(saturated.statusCode()).isEqualTo(503);
				assertThat(saturated.headers().firstValue("Retry-After")).hasValue("1");
				assertThat(json.readTree(saturated.body()).get("detail").asString()).contains("deferred-call slots");
			}
			finally {
				release.countDown();
			}
		}
		assertThat(output).doesNotContain(" ERROR ").doesNotContain("Servlet.service()");
	}

	@Test
	void theApplicationsOwnAdviceAnswersInsteadOfTheStarters() throws Exception {
		try (ConfigurableApplicationContext context = start(AppWithItsOwnAdvice.class)) {
			HttpResponse<String> blank = send(context, "/embed?text=%20");
			assertThat(blank.statusCode()).isEqualTo(422);
			assertThat(blank.body()).isEqualTo("the application's own answer");
		}
	}

	private static ConfigurableApplicationContext start(Class<?> app) {
		return new SpringApplicationBuilder(app, Embedder.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2", "uform.ram.deferred-limit=1", "uform.models.minilm.slot-wait=0")
			.properties(MiniLm.entry("minilm"))
			.run();
	}

	private static HttpResponse<String> send(ConfigurableApplicationContext context, String path) throws Exception {
		return LocalServer.get(context, path);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class AppWithItsOwnAdvice {

		@RestControllerAdvice
		static class OwnAdvice {

			@ExceptionHandler
			ResponseEntity<String> refused(EmbeddingRefusedException refusal) {
				return ResponseEntity.status(HttpStatus.UNPROCESSABLE_CONTENT).body("the application's own answer");
			}
		}
	}

	/** A controller as a user writes it: the model's refusals are left to propagate. */
	@RestController
	static class Embedder {

		private final EmbeddingModel model;

		Embedder(@Qualifier("minilmSpringAiEmbeddingModel") EmbeddingModel model) {
			this.model = model;
		}

		@GetMapping("/embed")
		int embed(@RequestParam String text) {
			return this.model.embed(text).length;
		}
	}
}
