package io.uform.sample.openai;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import java.util.List;

import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.embedding.MiniLm;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /v1/embeddings} and {@code /v1/models} on the wire: the response's shape, base64 as OpenAI
 * encodes it, {@code usage}, and every mistake answered in OpenAI's error body naming the parameter.
 * (Same properties as {@code TextSearchApiTest}: one application.)
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.corpus.path=src/test/resources/corpus", "sample.corpus.batch-size=3",
				"uform.models.all-minilm-l6-v2-q.max-texts=4", "uform.ram.threads=2" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenAiRouteTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final String MODEL = MiniLm.NAME;

	@Value("${local.server.port}")
	int port;

	@Autowired
	TextEmbeddingModel model;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void embeddingsComeAsOpenAiSendsThemFloatOrBase64WithUsage() throws Exception {
		JsonNode floats = ok(post("{\"model\": \"" + MODEL + "\", \"input\": [\"first text\", \"second\"]}"));
		assertThat(floats.get("object").asString()).isEqualTo("list");
		assertThat(floats.get("model").asString()).isEqualTo(MODEL);
		int[] tokens = this.model.embedDetailed(List.of("first text", "second")).tokens();
		assertThat(floats.get("usage").get("prompt_tokens").asLong()).isEqualTo(tokens[0] + tokens[1]);
		assertThat(floats.get("usage").get("total_tokens").asLong()).isEqualTo(tokens[0] + tokens[1]);
		JsonNode data = floats.get("data").get(1);
		assertThat(data.get("object").asString()).isEqualTo("embedding");
		assertThat(data.get("index").asInt()).isEqualTo(1);
		float[] vector = new float[data.get("embedding").size()];
		for (int d = 0; d < vector.length; d++) {
			vector[d] = data.get("embedding").get(d).floatValue();
		}
		assertThat(vector).containsExactly(this.model.embed("second"));

		JsonNode base64 = ok(post("{\"model\": \"" + MODEL + "\", \"input\": \"second\", \"encoding_format\": \"base64\", "
				+ "\"dimensions\": 384, \"user\": \"someone\"}"));
		ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(base64.get("data").get(0).get("embedding").asString()))
			.order(ByteOrder.LITTLE_ENDIAN);
		float[] decoded = new float[bytes.remaining() / Float.BYTES];
		bytes.asFloatBuffer().get(decoded);
		assertThat(decoded).containsExactly(this.model.embed("second"));
	}

	@Test
	void bothModelsAreTheStartersOnTheOneRamExecutorAndTheSearchsIsPrimary() throws Exception {
		JsonNode models = ok(this.http.send(HttpRequest.newBuilder(uri("/actuator/uform/models")).build(),
				HttpResponse.BodyHandlers.ofString()));
		assertThat(models.propertyNames()).containsExactly(MODEL, "all-minilm-l6-v2");
		for (JsonNode entry : models) {
			assertThat(entry.get("executor").asString()).as(entry.toString()).isEqualTo("uformRamExecutor");
			assertThat(entry.get("dimensions").asInt()).isEqualTo(384);
		}
		assertThat(this.model.name()).isEqualTo(MODEL);
		assertThat(this.model.options().maxTexts()).isEqualTo(4);
		assertThat(this.model.options().slotWait()).isEqualTo(java.time.Duration.ofSeconds(1));
	}

	@Test
	void theModelsAreListed() throws Exception {
		JsonNode models = ok(this.http.send(HttpRequest.newBuilder(uri("/v1/models")).build(),
				HttpResponse.BodyHandlers.ofString()));
		// Both uform.models entries of sample-models.yml.
		List<String> ids = new java.util.ArrayList<>();
		models.get("data").forEach((entry) -> ids.add(entry.get("id").asString()));
		assertThat(ids).containsExactly("all-minilm-l6-v2", MODEL);
		assertThat(models.get("data").get(0).get("object").asString()).isEqualTo("model");
		HttpResponse<String> missing = this.http.send(HttpRequest.newBuilder(uri("/v1/models/gpt-4")).build(),
				HttpResponse.BodyHandlers.ofString());
		error(missing, 404, "invalid_request_error", "model", "The model 'gpt-4' does not exist; this server has [all-minilm-l6-v2, " + MODEL + "]");
	}

	@Test
	void everyMistakeIsAnOpenAiErrorNamingTheParameter() throws Exception {
		error(post("{\"model\": \"text-embedding-3-small\", \"input\": \"x\"}"), 404, "invalid_request_error", "model",
				"The model 'text-embedding-3-small' does not exist; this server has [all-minilm-l6-v2, " + MODEL + "]");
		error(post("{\"input\": \"x\"}"), 400, "invalid_request_error", "model", "model is missing");
		error(post("{\"model\": \"" + MODEL + "\"}"), 400, "invalid_request_error", "input", "input is missing");
		error(post("{\"model\": \"" + MODEL + "\", \"input\": []}"), 400, "invalid_request_error", "input", "was an empty array");
		error(post("{\"model\": \"" + MODEL + "\", \"input\": [[101, 2023]]}"), 400, "invalid_request_error", "input",
				"token ids are not taken");
		error(post("{\"model\": \"" + MODEL + "\", \"input\": [\"a\", \"b\", \"c\", \"d\", \"e\"]}"), 400,
				"invalid_request_error", "input", "input has 5 strings, at most 4 per request");
		error(post("{\"model\": \"" + MODEL + "\", \"input\": \"  \"}"), 400, "invalid_request_error", "input", "input[0] is blank");
		error(post("{\"model\": \"" + MODEL + "\", \"input\": \"" + "tokenization ".repeat(201) + "\"}"), 400,
				"invalid_request_error", "input", "input[0] is 404 tokens long");
		error(post("{\"model\": \"" + MODEL + "\", \"input\": \"x\", \"encoding_format\": \"int8\"}"), 400,
				"invalid_request_error", "encoding_format", "encoding_format must be float or base64");
		error(post("{\"model\": \"" + MODEL + "\", \"input\": \"x\", \"dimensions\": 256}"), 400, "invalid_request_error",
				"dimensions", "dimensions must be 384");
		error(post("{\"model\": "), 400, "invalid_request_error", null, "the body is not valid JSON");
		error(post(""), 400, "invalid_request_error", null, "the body must be a JSON object");
	}

	private void error(HttpResponse<String> response, int status, String type, String param, String message) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		JsonNode error = json.readTree(response.body()).get("error");
		assertThat(error).as(response.body()).isNotNull();
		assertThat(error.get("type").asString()).isEqualTo(type);
		assertThat(error.get("param").isNull() ? null : error.get("param").asString()).isEqualTo(param);
		assertThat(error.get("message").asString()).contains(message);
		assertThat(error.has("code")).isTrue();
	}

	private static JsonNode ok(HttpResponse<String> response) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private HttpResponse<String> post(String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri("/v1/embeddings"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}
}
