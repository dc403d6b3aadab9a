package io.uform.sample.search;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The search API over HTTP, as a client sees it: every engine this JVM has (the RAM executor, the VRAM
 * executor on two simulated devices, a parallel stream) returns exactly the hits of a serial scan
 * that sorts every row, and every bad request is a 400 that says what was wrong.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		// 50 dimensions: not a multiple of the dot product's four running sums.
		properties = { "sample.vectors.enabled=true", "sample.vectors.rows=3001", "sample.vectors.dimensions=50",
				"sample.corpus.path=src/test/resources/corpus", "uform.ram.threads=2" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SearchApiTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	@Value("${local.server.port}")
	int port;

	@Autowired
	Corpus corpus;

	private final HttpClient http = HttpClient.newHttpClient();

	@ParameterizedTest
	@ValueSource(strings = { "ram", "vram", "parallel-stream", "auto" })
	void everyEngineFindsWhatASerialScanFinds(String engine) throws Exception {
		SplittableRandom seeds = new SplittableRandom(engine.hashCode());
		for (int k : new int[] { 1, 10, 3001 }) {
			for (int round = 0; round < 8; round++) {
				long seed = seeds.nextLong();
				JsonNode response = ok(get("/search/random?engine=" + engine + "&k=" + k + "&seed=" + seed));
				assertThat(response.get("seed").asLong()).isEqualTo(seed);
				assertThat(hits(response)).as("%s, k %d, seed %d", engine, k, seed)
					.containsExactlyElementsOf(serial(this.corpus.randomQuery(seed), k));
			}
		}
	}

	@Test
	void eachResponseSaysWhatServedIt() throws Exception {
		assertThat(ok(get("/search/random?engine=ram")).get("path").asString()).isEqualTo("ram-executor");
		assertThat(ok(get("/search/random?engine=vram")).get("path").asString()).isEqualTo("simulated-gpu-host-scan");
		assertThat(ok(get("/search/random?engine=parallel-stream")).get("path").asString()).isEqualTo("parallel-stream");
		// Simulated devices run no kernels, so auto takes the RAM executor.
		JsonNode auto = ok(get("/search/random"));
		assertThat(auto.get("engine").asString()).isEqualTo("ram");
		assertThat(auto.get("k").asInt()).isEqualTo(10);
		assertThat(auto.get("rows").asInt()).isEqualTo(3001);
		assertThat(auto.get("dimensions").asInt()).isEqualTo(50);
	}

	@Test
	void aPostedVectorIsSearchedOnTheEngineItNames() throws Exception {
		float[] query = new float[50];
		SplittableRandom random = new SplittableRandom(3);
		for (int i = 0; i < query.length; i++) {
			query[i] = (float) random.nextGaussian() * 100;
		}
		for (String engine : new String[] { "ram", "vram", "parallel-stream" }) {
			JsonNode response = ok(post("{\"vector\": " + json.writeValueAsString(query) + ", \"k\": 7, \"engine\": \""
					+ engine + "\"}"));
			assertThat(response.get("engine").asString()).isEqualTo(engine);
			assertThat(response.has("seed")).isFalse();
			assertThat(hits(response)).containsExactlyElementsOf(serial(query, 7));
		}
		// k defaults to 10, engine to auto.
		assertThat(hits(ok(post("{\"vector\": " + json.writeValueAsString(query) + "}")))).hasSize(10);
	}

	@Test
	void badRequestsAre400sThatSayWhatWasWrong() throws Exception {
		String fifty = json.writeValueAsString(new float[50]);
		refused(post("{\"vector\": [1, 2, 3], \"k\": 5}"), "vector must have 50 numbers (the corpus's dimension, "
				+ "sample.vectors.dimensions), had 3");
		refused(post("{\"k\": 5}"), "query is missing: send {\"query\": \"a question\", \"k\": 10} (or a vector of 50 numbers)");
		refused(post("{\"vector\": " + fifty + ", \"k\": 0}"), "k must be between 1 and 3001 (the corpus's rows), was 0");
		refused(post("{\"vector\": " + fifty + ", \"k\": 3002}"), "k must be between 1 and 3001");
		// Jackson's default cut 1.7 to 1 and answered as if k were 1.
		refused(post("{\"vector\": " + fifty + ", \"k\": 1.7}"), "the body must be JSON like");
		refused(get("/search/random?k=-1"), "k must be between 1 and 3001");
		refused(get("/search/random?k=ten"), "k must be a whole number (k: 1 to 3001), was 'ten'");
		refused(get("/search/random?seed=x"), "seed must be a whole number, was 'x'");
		refused(get("/search/random?k=2147483648"), "k is out of range (k: 1 to 3001), was '2147483648'");
		refused(get("/search/random?seed=99999999999999999999"), "seed is out of range, was '99999999999999999999'");
		// A misspelt field was ignored, and the search ran with k = 10.
		refused(post("{\"vector\": " + fifty + ", \"topk\": 1}"), "Unrecognized property \"topk\"");
		refused(post("{\"unknown\": null, \"vector\": " + fifty + "}"), "Unrecognized property \"unknown\"");
		refused(post("{\"vector\": [NaN, 1], \"k\": 1}"), "the body must be JSON like {\"query\": \"a question\", \"k\": 10} or {\"vector\": [50 numbers]");
		refused(post("{\"vector\": " + fifty.replaceFirst("0\\.0", "\"NaN\"") + "}"), "vector[0] is NaN; every value must be a finite number");
		// 1e39 is a finite JSON number that a float cannot hold: the detail must say so, not only "Infinity".
		refused(post("{\"vector\": " + fifty.replaceFirst("0\\.0", "1e39") + "}"),
				"vector[0] is Infinity (or a number larger than a float holds, 3.4028235E38 in magnitude); every value must be a finite number");
		refused(post("{\"vector\": [1, 2"), "the body must be JSON like");
		refused(post(""), "the body is empty: send {\"query\": \"a question\", \"k\": 10} or {\"vector\": [50 numbers], \"k\": 10}");
		refused(post("{\"vector\": " + fifty + ", \"engine\": \"gpu\"}"),
				"engine must be one of [auto, ram, vram, parallel-stream], was 'gpu'");
		// Finite numbers whose scores would overflow a float: every hit was NaN or Infinity, ranked first.
		float[] huge = new float[50];
		for (int i = 0; i < huge.length; i++) {
			huge[i] = (i % 2 == 0) ? 3e38f : -3e38f;
		}
		refused(post("{\"vector\": " + json.writeValueAsString(huge) + "}"), "more than 1.0E30: its scores would overflow");
	}

	@Test
	void aBodyLargerThanAnyQueryIsRefusedBeforeItIsRead() throws Exception {
		// A body of hundreds of megabytes was read whole and filled the heap; these are just over the cap.
		// The cap is that of the longest text query (16,384 characters of 6 bytes each, and 4,096 more), far
		// above a vector of 50 numbers.
		String tooLong = "{\"vector\": [" + "0, ".repeat(35_000) + "0], \"k\": 3}";
		HttpResponse<String> declared = post(tooLong);
		assertThat(declared.statusCode()).as(declared.body()).isEqualTo(413);
		assertThat(json.readTree(declared.body()).get("detail").asString()).contains("a search takes at most 102400 (a query of 16384 characters, or sample.vectors.dimensions numbers, and k)");
		// Without a Content-Length (chunked), reading stops at the cap.
		HttpResponse<String> chunked = this.http.send(HttpRequest.newBuilder(uri("/search"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofInputStream(
					() -> new java.io.ByteArrayInputStream(tooLong.getBytes(java.nio.charset.StandardCharsets.UTF_8))))
			.build(), HttpResponse.BodyHandlers.ofString());
		refused(chunked, "the body is longer than 102400 bytes");
		// The servlet container maps these to /search too, and so must the cap.
		for (String path : new String[] { "/search;x=1", "/%73earch" }) {
			HttpResponse<String> other = this.http.send(HttpRequest.newBuilder(uri(path))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString(tooLong))
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(other.statusCode()).as(path + ": " + other.body()).isEqualTo(413);
		}
		// A query written out generously still fits.
		String spaced = "{\"vector\": [" + "-1.2345678e-30 ,  ".repeat(49) + "1], \"k\": 3}";
		assertThat(ok(post(spaced)).get("hits")).hasSize(3);
	}

	private void refused(HttpResponse<String> response, String detail) throws Exception {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(json.readTree(response.body()).get("detail").asString()).contains(detail);
	}

	/** Every row scored and sorted: shares only the dot product with the service. */
	private List<Hit> serial(float[] query, int k) {
		List<Hit> all = new ArrayList<>();
		for (int row = 0; row < this.corpus.rows(); row++) {
			all.add(new Hit(row, this.corpus.dot(row, query)));
		}
		all.sort(Comparator.comparing(Hit::score, Comparator.reverseOrder()).thenComparingInt(Hit::row));
		return all.subList(0, k);
	}

	private static List<Hit> hits(JsonNode response) {
		List<Hit> hits = new ArrayList<>();
		for (JsonNode hit : response.get("hits")) {
			hits.add(new Hit(hit.get("row").asInt(), hit.get("score").floatValue()));
		}
		return hits;
	}

	private static JsonNode ok(HttpResponse<String> response) throws Exception {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri("/search"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}
}
