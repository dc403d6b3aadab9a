package io.uform.sample.search;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Base64;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Values of the wrong JSON type are a 400, never read as something else: Jackson by default reads
 * "" as absent, " 7 " and "1" as numbers, and a base64 string as a float[].
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.vectors.enabled=true", "sample.vectors.rows=1", "sample.vectors.dimensions=4", "sample.corpus.path=src/test/resources/corpus", "uform.ram.threads=2",
				"uform.vram.devices=0,1" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SearchRequestTypesTest {

	@Value("${local.server.port}")
	int port;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void anEmptyStringForKIsRefusedNotTakenAsTheDefault() throws Exception {
		// Jackson would read "" as null, which the controller then defaults to 10: a 200 on a
		// corpus of 10 rows or more, and here (1 row) a 400 blaming a k of 10 the client never sent.
		HttpResponse<String> response = post("{\"vector\": [1, 0, 0, 0], \"k\": \"\"}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).doesNotContain("was 10").contains("the body must be JSON like");
	}

	@Test
	void aStringForKIsRefused() throws Exception {
		// "k": 1.0 was refused, but "k": " 1 " was read as 1.
		assertThat(post("{\"vector\": [1, 0, 0, 0], \"k\": \" 1 \"}").statusCode()).isEqualTo(400);
	}

	@Test
	void stringsInTheVectorAreRefused() throws Exception {
		// "vector": ["1", "0", "0", "0"] was read as numbers.
		assertThat(post("{\"vector\": [\"1\", \"0\", \"0\", \"0\"], \"k\": 1}").statusCode()).isEqualTo(400);
	}

	@Test
	void aBase64StringIsNotAVector() throws Exception {
		// Jackson decodes a base64 string into a float[] (big-endian floats).
		ByteBuffer bytes = ByteBuffer.allocate(16).putFloat(1).putFloat(0).putFloat(0).putFloat(0);
		String base64 = Base64.getEncoder().encodeToString(bytes.array());
		assertThat(post("{\"vector\": \"" + base64 + "\", \"k\": 1}").statusCode()).isEqualTo(400);
	}

	@Test
	void aCorpusSmallerThanTheDevicesStillSearchesOnEveryEngine() throws Exception {
		for (String engine : new String[] { "ram", "vram", "parallel-stream" }) {
			HttpResponse<String> response = post("{\"vector\": [1, 0, 0, 0], \"k\": 1, \"engine\": \"" + engine + "\"}");
			assertThat(response.statusCode()).as(engine + ": " + response.body()).isEqualTo(200);
			assertThat(response.body()).contains("\"row\":0");
		}
	}

	private HttpResponse<String> post(String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/search"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}
}
