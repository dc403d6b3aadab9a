package io.uform.sample.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every error under {@code /v1} is OpenAI's error body, whoever answers it: the route's own advice,
 * Spring MVC (an unknown route, a wrong method), a servlet filter (a body over the cap, a query string
 * that cannot be decoded) or Tomcat's error report (a path it refuses). The sample's own routes keep
 * RFC 9457 problems for the same mistakes, and none of them logs an ERROR. The requests go over a socket
 * as raw bytes, as in {@link ProblemEverywhereTest} (whose properties these are, so the two share one
 * application).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.corpus.path=src/test/resources/corpus", "sample.corpus.batch-size=3",
				"uform.models.all-minilm-l6-v2-q.max-texts=4", "uform.ram.threads=2" })
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenAiRouteErrorsTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	@Value("${local.server.port}")
	int port;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void anUnknownRouteUnderV1IsOpenAisInvalidUrlListingTheRoutes(CapturedOutput output) throws Exception {
		JsonNode error = openAiError(send("POST", "/v1/chat/completions", "{\"model\": \"x\"}"), 404);
		assertThat(error.get("message").asString()).startsWith("Invalid URL (POST /v1/chat/completions)")
			.contains("POST /v1/embeddings");
		openAiError(send("GET", "/v1", null), 404);
		problem(send("POST", "/chat/completions", "{}"), 404);
		assertThat(output).doesNotContain("ERROR");
	}

	@Test
	void aWrongMethodIsOpenAis405OnV1AndAProblemElsewhere(CapturedOutput output) throws Exception {
		RawHttp.Answer wrong = send("GET", "/v1/embeddings", null);
		JsonNode error = openAiError(wrong, 405);
		assertThat(error.get("message").asString()).contains("GET");
		assertThat(wrong.head()).containsIgnoringCase("Allow: POST");
		openAiError(send("DELETE", "/v1/models", null), 405);
		problem(send("DELETE", "/search", null), 405);
		assertThat(output).doesNotContain("ERROR");
	}

	@Test
	void aBodyOverTheCapIsOpenAis413BeforeItIsRead() throws Exception {
		// Over the cap of the largest max-texts (64 texts of 16384 characters, the full-precision model's).
		String huge = "x".repeat(64 * (16_384 * 6 + 8) + 4096 + 1);
		HttpResponse<String> tooLarge = this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port
				+ "/v1/embeddings")).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(huge))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(tooLarge.statusCode()).as(tooLarge.body()).isEqualTo(413);
		assertThat(tooLarge.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/json"));
		JsonNode error = json.readTree(tooLarge.body()).get("error");
		assertThat(error.get("type").asString()).isEqualTo("invalid_request_error");
		assertThat(error.get("message").asString()).contains("the body has " + huge.length() + " bytes")
			.contains("the largest uform.models.<name>.max-texts");
	}

	@Test
	void whatAFilterOrTomcatRefusesUnderV1IsOpenAisErrorToo(CapturedOutput output) throws Exception {
		JsonNode undecodable = openAiError(send("GET", "/v1/models?x=a%zzb", null), 400);
		assertThat(undecodable.get("message").asString()).contains("the query string cannot be decoded");
		JsonNode twice = openAiError(send("GET", "/v1/models?x=1&x=2", null), 400);
		assertThat(twice.get("message").asString()).contains("x is given 2 times");
		JsonNode tomcat = openAiError(send("GET", "/v1/%2e%2e/%2e%2e/etc/passwd", null), 400);
		assertThat(tomcat.get("message").asString()).contains("the request could not be parsed");
		problem(send("GET", "/search?q=a%zzb", null), 400);
		assertThat(output).doesNotContain("ERROR");
	}

	private RawHttp.Answer send(String method, String target, String body) throws Exception {
		byte[] bytes = (body != null) ? body.getBytes(StandardCharsets.UTF_8) : new byte[0];
		return RawHttp.send(this.port, (method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
				+ ((body != null) ? "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n" : "")
				+ "\r\n" + ((body != null) ? body : "")).getBytes(StandardCharsets.ISO_8859_1));
	}

	/** OpenAI's error body, as its SDKs read it: the error object, with all four fields. */
	private static JsonNode openAiError(RawHttp.Answer answer, int status) {
		assertThat(answer.status()).as(answer.head() + "\n" + answer.body()).isEqualTo(status);
		assertThat(answer.contentType()).as(answer.head()).startsWith("application/json");
		JsonNode error = json.readTree(answer.json()).get("error");
		assertThat(error).as(answer.body()).isNotNull();
		assertThat(error.get("message").asString()).isNotBlank().doesNotContain("Exception").doesNotContain("\tat ");
		assertThat(error.get("type").asString()).isEqualTo("invalid_request_error");
		assertThat(error.has("param")).isTrue();
		assertThat(error.has("code")).isTrue();
		return error;
	}

	private static void problem(RawHttp.Answer answer, int status) {
		assertThat(answer.status()).as(answer.head() + "\n" + answer.body()).isEqualTo(status);
		assertThat(answer.contentType()).as(answer.head()).startsWith("application/problem+json");
		assertThat(json.readTree(answer.json()).get("status").asInt()).isEqualTo(status);
	}
}
