package io.uform.sample.search;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import io.uform.onnxruntime.TextEmbeddingModel;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code sample.embedding.enabled=false} the application serves the synthetic vectors without
 * the model, as on a GPU machine's check, whose copy of the jar leaves the model's jars out: no model
 * is loaded, it is ready at once, and a search with a query says what it needs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedding.enabled=false", "sample.vectors.enabled=true", "sample.vectors.rows=500",
				"sample.vectors.dimensions=16", "uform.ram.threads=2" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VectorsWithoutTheModelTest {

	@Value("${local.server.port}")
	int port;

	@Autowired
	ApplicationContext context;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void noModelIsLoadedAndTheVectorsAreServed() throws Exception {
		assertThat(this.context.getBeanNamesForType(TextEmbeddingModel.class)).isEmpty();
		assertThat(this.context.getBeanNamesForType(TextSearch.class)).isEmpty();
		assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);
		HttpResponse<String> random = get("/search/random?engine=ram&k=3");
		assertThat(random.statusCode()).isEqualTo(200);
		assertThat(random.body()).contains("\"path\":\"ram-executor\"");
	}

	@Test
	void aSearchWithAQueryNamesTheSettingThatTurnedTheModelOff() throws Exception {
		HttpResponse<String> response = get("/search?q=threads");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).contains("sample.embedding.enabled=false").contains("/search/random");
		HttpResponse<String> posted = this.http.send(HttpRequest.newBuilder(uri("/search"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"query\": \"threads\"}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(posted.statusCode()).isEqualTo(400);
		assertThat(posted.body()).contains("sample.embedding.enabled=false");
	}

	@Test
	void embedIsNotServed() throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri("/embed"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"texts\": [\"a sentence\"]}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(404);
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}
}
