package io.uform.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the service on a random port and calls it over HTTP, as a client would.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "uform.ram.threads=2")
class SampleApplicationTest {

	@Value("${local.server.port}")
	int port;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void dotProductMatchesASerialSum() throws Exception {
		HttpResponse<String> response = get("/api/dot?length=1000&seed=7");
		assertThat(response.statusCode()).isEqualTo(200);
		double[] a = new double[1000];
		double[] b = new double[1000];
		java.util.SplittableRandom random = new java.util.SplittableRandom(7);
		for (int i = 0; i < 1000; i++) {
			a[i] = random.nextDouble();
			b[i] = random.nextDouble();
		}
		// Two threads, two slices summed in thread order: the same additions as the service makes.
		double first = 0;
		double second = 0;
		for (int i = 0; i < 500; i++) {
			first += a[i] * b[i];
		}
		for (int i = 500; i < 1000; i++) {
			second += a[i] * b[i];
		}
		assertThat(response.body()).contains("\"dot\":" + (first + second)).contains("\"threads\":2");
	}

	@Test
	void executorStatisticsAreServed() throws Exception {
		get("/api/dot?length=10");
		HttpResponse<String> response = get("/api/executor");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"kind\":\"RAM\"").contains("\"threads\":2").contains("\"state\":\"RUNNING\"");
	}

	@Test
	void anOutOfRangeLengthIsABadRequest() throws Exception {
		HttpResponse<String> refused = get("/api/dot?length=0");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(refused.body()).contains("length must be between 1 and");
		assertThat(get("/api/dot?length=999999999").statusCode()).isEqualTo(400);
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}
}
