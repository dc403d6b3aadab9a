package io.uform.sample.web;

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
 * Every mistake a client can make in the bytes of a request is answered with a 4xx RFC 9457 problem
 * naming it, never Tomcat's HTML page, Boot's fallback error JSON, an empty body or an ERROR log line.
 * The requests go over a socket as raw bytes, since an HTTP client library would mend them.
 * (Same properties as {@code TextSearchApiTest}, so the two share one application.)
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.corpus.path=src/test/resources/corpus", "sample.corpus.batch-size=3",
				"uform.models.all-minilm-l6-v2-q.max-texts=4", "uform.ram.threads=2" })
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProblemEverywhereTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	@Value("${local.server.port}")
	int port;

	@Test
	void anUndecodableQueryStringIsAProblemNotAnErrorLog(CapturedOutput output) throws Exception {
		problem(get("/search?q=a%zzb"), 400, "the query string cannot be decoded");
		problem(get("/search?q=%ff%fe"), 400, "encode text as UTF-8");
		problem(get("/actuator/prometheus?name=%zz"), 400, "the query string cannot be decoded");
		assertThat(output).doesNotContain("ERROR").doesNotContain("InvalidParameterException");
	}

	@Test
	void aParameterGivenTwiceOrEmptyIsRefusedNotGuessed() throws Exception {
		problem(get("/search?q=threads&k=5&k=6"), 400, "k is given 2 times [5, 6]: give it once");
		problem(get("/search?q=threads&k="), 400, "k is empty: give it a value, or leave it out for its default");
		problem(get("/search?q="), 400, "q is empty");
	}

	@Test
	void whatTomcatRefusesItselfIsAProblemNotAnHtmlPage(CapturedOutput output) throws Exception {
		problem(get("/%2e%2e/etc/passwd"), 400, "the request could not be parsed");
		problem(RawHttp.send(this.port, RawHttp.get(new byte[] { '/', 's', (byte) 0xff }, "")), 400,
				"the request could not be parsed");
		problem(get("/search?q=" + "a".repeat(10_000)), 400, "");
		problem(RawHttp.send(this.port, RawHttp.get("/search?q=x".getBytes(StandardCharsets.US_ASCII),
				"X-Long: " + "b".repeat(10_000) + "\r\n")), 400, "");
		assertThat(output).doesNotContain("ERROR");
	}

	@Test
	void anActuatorPartThatDoesNotExistSaysSo() throws Exception {
		problem(get("/actuator/uform/bogus"), 404, "there is nothing at /actuator/uform/bogus");
		problem(get("/actuator/uform/executors/bogus"), 404, "there is nothing at /actuator/uform/executors/bogus");
	}

	@Test
	void aNumberWhereTextBelongsIsRefusedNamingTheField() throws Exception {
		problem(post("/search", "{\"query\": 123}"), 400, "at query: Cannot coerce Integer value (123) to `java.lang.String`");
		problem(post("/search", "{\"query\": true}"), 400, "at query:");
		problem(post("/embed", "{\"texts\": [\"a\", 2.5]}"), 400, "at texts[1]: Cannot coerce Float value (2.5) to `java.lang.String`");
	}

	private RawHttp.Answer get(String target) throws Exception {
		return RawHttp.send(this.port, RawHttp.get(target.getBytes(StandardCharsets.ISO_8859_1), ""));
	}

	private RawHttp.Answer post(String path, String body) throws Exception {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		return RawHttp.send(this.port, ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
				+ "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n" + body)
			.getBytes(StandardCharsets.UTF_8));
	}

	private static void problem(RawHttp.Answer answer, int status, String detail) {
		assertThat(answer.status()).as(answer.head() + "\n" + answer.body()).isEqualTo(status);
		assertThat(answer.contentType()).as(answer.head()).startsWith("application/problem+json");
		JsonNode problem = json.readTree(answer.json());
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		assertThat(problem.get("detail").asString()).contains(detail).doesNotContain("Exception").doesNotContain("\tat ");
	}
}
