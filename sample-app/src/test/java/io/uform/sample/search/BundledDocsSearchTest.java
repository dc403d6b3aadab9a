package io.uform.sample.search;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.sample.SampleApplication;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application as it starts by default: it indexes the project's docs pages bundled into its jar in
 * the background, and its readiness ({@code /actuator/health/readiness}, Boot's availability state)
 * says {@code REFUSING_TRAFFIC} until every passage is embedded, then {@code ACCEPTING_TRAFFIC}; known
 * questions then find the docs' passages that answer them.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BundledDocsSearchTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static ConfigurableApplicationContext context;

	/** What the first test saw, from the moment the application had started. */
	private static final List<String> observed = new ArrayList<>();

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0", "--uform.ram.threads=2",
				"--spring.main.banner-mode=off");
	}

	@AfterAll
	static void stop() {
		if (context != null) {
			context.close();
		}
	}

	@Test
	@Order(1)
	void readinessRefusesTrafficUntilEveryPassageIsEmbedded() throws Exception {
		PassageIndex index = context.getBean(PassageIndex.class);
		ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
		assertThat(index.passages()).as("passages of the bundled docs").hasSizeGreaterThan(200);
		int whileIndexing = 0;
		long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
		while (System.nanoTime() < deadline) {
			// Readiness first, the index after: readiness may say ACCEPTING only once the index was complete.
			ReadinessState state = availability.getReadinessState();
			int probe = get("/actuator/health/readiness").statusCode();
			boolean ready = index.ready();
			observed.add(state + " " + probe + " " + index.embedded() + "/" + index.passages().size());
			assertThat(state == ReadinessState.REFUSING_TRAFFIC || ready).as("readiness %s with the index at %d of %d",
					state, index.embedded(), index.passages().size()).isTrue();
			assertThat(probe == 503 || ready).as("readiness probe %d with the index at %d", probe, index.embedded()).isTrue();
			if (!ready) {
				whileIndexing++;
				if (whileIndexing == 1) {
					HttpResponse<String> early = get("/search?q=threads");
					assertThat(early.statusCode()).as(early.body()).isEqualTo(503);
					assertThat(early.headers().firstValue("Retry-After")).hasValue("1");
					assertThat(json.readTree(early.body()).get("detail").asString())
						.contains("the passage index is being built:").contains("passages embedded");
				}
			}
			else if (state == ReadinessState.ACCEPTING_TRAFFIC && probe == 200) {
				break;
			}
			Thread.sleep(25);
		}
		assertThat(whileIndexing).as("observations while indexing (the test would prove nothing without): %s", observed)
			.isPositive();
		assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
		assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);
	}

	@Test
	@Order(2)
	void aQuestionAboutThreadsFindsTheThreadsProperty() throws Exception {
		List<String> top = texts("How do I set the number of threads?", 3);
		// The property (configuration.md), or the config field it sets (executors.md), with its default.
		assertThat(top).as("top 3").anySatisfy((text) -> assertThat(text).containsAnyOf("uform.ram.threads",
				"executors.md | ExecutorForRamConfig | field — absent means — valid values. threads — 7/8 of the cores"));
	}

	@Test
	@Order(3)
	void aQuestionAboutScratchMemoryFindsItsMetric() throws Exception {
		List<String> top = texts("Which metric shows the device memory the scratch holds?", 3);
		assertThat(top).as("top 3").anySatisfy((text) -> assertThat(text).contains("uform.scratch.reserved"));
	}

	private static List<String> texts(String query, int k) throws Exception {
		// On its own too, should the readiness test have stopped early.
		PassageIndex index = context.getBean(PassageIndex.class);
		long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
		while (!index.ready() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		HttpResponse<String> response = get("/search?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&k=" + k);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		List<String> texts = new ArrayList<>();
		for (JsonNode hit : json.readTree(response.body()).get("hits")) {
			texts.add(hit.get("file").asString() + " | " + hit.get("heading").asString() + " | " + hit.get("text").asString());
		}
		System.out.println("[bundled docs] " + query + "\n  " + String.join("\n  ", texts));
		return texts;
	}

	private static HttpResponse<String> get(String path) throws Exception {
		String port = context.getEnvironment().getProperty("local.server.port");
		return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}
}
