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

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.uform.onnxruntime.TextEmbeddingModel;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Semantic search and embedding over HTTP with the real model, on a small corpus directory: a question
 * finds the passage that answers it, {@code /embed} returns exactly the vectors of the model run one
 * text at a time, and every bad request is a 400 that says what was wrong. No synthetic vectors here,
 * so the vector paths say how to turn them on.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.corpus.path=src/test/resources/corpus", "sample.corpus.batch-size=3",
				"uform.models.all-minilm-l6-v2-q.max-texts=4", "uform.ram.threads=2" })
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TextSearchApiTest {

	private static final JsonMapper json = JsonMapper.builder().build();

	@Value("${local.server.port}")
	int port;

	@Autowired
	PassageIndex index;

	@Autowired
	TextEmbeddingModel model;

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeEach
	void indexed() throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!this.index.ready() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(this.index.ready()).as("index built within 30 s").isTrue();
	}

	@Test
	void aQuestionFindsThePassageThatAnswersIt() throws Exception {
		JsonNode response = ok(get("/search?q=" + encode("How do I set the number of threads?") + "&k=3"));
		JsonNode best = response.get("hits").get(0);
		assertThat(best.get("file").asString()).isEqualTo("threads.md");
		assertThat(best.get("heading").asString()).isEqualTo("Threads");
		assertThat(best.get("text").asString()).contains("uform.ram.threads");
		assertThat(response.get("k").asInt()).isEqualTo(3);
		assertThat(response.get("passages").asInt()).isEqualTo(this.index.passages().size());
		assertThat(response.get("embedding").get("path").asString()).isEqualTo("ram-executor");
		assertThat(response.get("scan").get("path").asString()).isEqualTo("ram-executor");
		assertThat(response.get("tokens").asInt())
			.isEqualTo(this.model.embedDetailed(List.of("How do I set the number of threads?")).tokens()[0]);
		assertThat(response.get("batch").asInt()).isEqualTo(1);

		JsonNode bread = ok(post("/search", "{\"query\": \"how to bake bread\", \"k\": 1}"));
		assertThat(bread.get("hits").get(0).get("file").asString()).isEqualTo("kitchen.txt");
		assertThat(bread.get("hits").get(0).get("text").asString()).startsWith("Bread rises");
		JsonNode gpu = ok(post("/search", "{\"query\": \"which kernel computes dot products on the GPU\", \"engine\": \"ram\"}"));
		assertThat(gpu.get("hits").get(0).get("file").asString()).isEqualTo("guide/gpus.md");
		// Best first, and k defaults to 10 (capped by the corpus, which has fewer passages here).
		List<Float> scores = new ArrayList<>();
		gpu.get("hits").forEach((hit) -> scores.add(hit.get("score").floatValue()));
		assertThat(scores).isSortedAccordingTo((a, b) -> Float.compare(b, a)).hasSize(Math.min(10, this.index.passages().size()));
	}

	@Test
	void queriesArrivingTogetherAreAnsweredAsEachWouldBeAlone() throws Exception {
		List<String> questions = List.of("How do I set the number of threads?", "how to bake bread",
				"which kernel computes dot products on the GPU", "what is a deferred call", "tomato sauce for pasta",
				"how much device memory may the scratch reserve", "when does a caller wait for a slot", "crust");
		List<JsonNode> alone = new ArrayList<>();
		for (String question : questions) {
			alone.add(ok(get("/search?k=3&q=" + encode(question))));
		}
		int clients = 4 * questions.size();
		java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(clients);
		java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
		try {
			List<java.util.concurrent.Future<JsonNode>> together = new ArrayList<>();
			for (int c = 0; c < clients; c++) {
				String question = questions.get(c % questions.size());
				together.add(pool.submit(() -> {
					start.await();
					return ok(get("/search?k=3&q=" + encode(question)));
				}));
			}
			int batched = 0;
			for (int c = 0; c < clients; c++) {
				JsonNode response = together.get(c).get(30, TimeUnit.SECONDS);
				// Each text is its own session call, whatever it is batched with: same hits, same scores.
				assertThat(response.get("hits")).as("client %d", c).isEqualTo(alone.get(c % questions.size()).get("hits"));
				batched = Math.max(batched, response.get("batch").asInt());
			}
			System.out.println("[queries together] largest batch: " + batched + " of " + clients + " clients");
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void embeddingReturnsTheModelsVectorsForEachTextInOrder() throws Exception {
		List<String> texts = List.of("first text", "a second, longer text about threads and executors", "third");
		JsonNode response = ok(post("/embed", json.writeValueAsString(java.util.Map.of("texts", texts))));
		assertThat(response.get("dimensions").asInt()).isEqualTo(384);
		assertThat(response.get("threads").asInt()).isEqualTo(2);
		for (int i = 0; i < texts.size(); i++) {
			var alone = this.model.embedDetailed(List.of(texts.get(i)));
			float[] expected = alone.vectors()[0];
			JsonNode vector = response.get("vectors").get(i);
			float[] actual = new float[vector.size()];
			for (int d = 0; d < actual.length; d++) {
				actual[d] = vector.get(d).floatValue();
			}
			// Tolerance 0: JSON carries a float's shortest exact representation.
			assertThat(actual).as("text %d", i).containsExactly(expected);
			assertThat(response.get("tokens").get(i).asInt()).isEqualTo(alone.tokens()[0]);
		}
	}

	@Test
	void badRequestsAre400sThatSayWhatWasWrong() throws Exception {
		refused(get("/search"), "q is missing: give a question or phrase");
		refused(get("/search?q=%20%20"), "query is empty: give a question or phrase");
		refused(get("/search?q=threads&k=0"), "k must be between 1 and " + this.index.passages().size()
				+ " (the passages indexed), was 0");
		refused(get("/search?q=threads&k=x"), "k must be a whole number (k: 1 to " + this.index.passages().size() + "), was 'x'");
		refused(post("/search", "{\"query\": \"\"}"), "query is empty");
		refused(post("/search", "{\"k\": 2}"), "query is missing: send {\"query\": \"a question\", \"k\": 10}");
		refused(post("/search", "{\"query\": \"x\", \"vector\": [1]}"), "give query or vector, not both");
		refused(post("/search", "{\"vector\": [1, 2]}"), "a search with a vector scans the synthetic vector corpus, which "
				+ "this application does not have: start it with sample.vectors.enabled=true");
		refused(get("/search/random"), "GET /search/random scans the synthetic vector corpus");
		refused(post("/search", "{\"query\": \"threads\", \"engine\": \"vram\"}"),
				"a text search scans the passages on the RAM executor: engine must be auto or ram, was 'vram'");
		refused(post("/search", "{\"query\": \"threads\", \"topk\": 1}"), "Unrecognized property \"topk\"");
		refused(post("/search", ""), "the body is empty: send {\"query\": \"a question\", \"k\": 10}");
		refused(post("/search", "{\"query\": [1]}"), "the body must be JSON like {\"query\": \"a question\", \"k\": 10}");
		String tooLong = "word ".repeat(300);
		refused(post("/search", "{\"query\": \"" + tooLong + "\"}"), "query has at least 302 tokens (its words and "
				+ "punctuation marks, [CLS] and [SEP]); the model takes at most 256, and this service refuses rather than "
				+ "cut a text silently");
		// 201 words, but each of two word pieces: found long only by the tokenizer.
		String manyPieces = "tokenization ".repeat(201);
		refused(post("/search", "{\"query\": \"" + manyPieces + "\"}"), "query is 404 tokens long; the model takes at most "
				+ "256 (word pieces, [CLS] and [SEP] included), and this service refuses rather than cut a text silently");
		refused(post("/search", "{\"query\": \"" + "x".repeat(16_385) + "\"}"), "query has 16385 characters");

		refused(post("/embed", "{}"), "texts is missing or empty: send {\"texts\": [\"a sentence\", ...]}, 1 to 4 texts");
		refused(post("/embed", "{\"texts\": []}"), "texts is missing or empty");
		refused(post("/embed", "{\"texts\": [\"a\", \"b\", \"c\", \"d\", \"e\"]}"),
				"too many texts: 5, at most 4 per call (uform.models.all-minilm-l6-v2-q.max-texts); split them over several calls");
		refused(post("/embed", "{\"texts\": [\"a\", null]}"), "texts[1] is null; every text must have words");
		refused(post("/embed", "{\"texts\": [\"a\", \" \"]}"), "texts[1] is blank");
		refused(post("/embed", "{\"texts\": [\"fine\", \"" + tooLong + "\"]}"), "texts[1] has at least 302 tokens");
		refused(post("/embed", "{\"texts\": [\"fine\", \"" + manyPieces + "\"]}"), "texts[1] is 404 tokens long");
		refused(post("/embed", "{\"texts\": \"one\"}"), "the body must be JSON like {\"texts\": [\"a sentence\", \"another\"]}");
		refused(post("/embed", ""), "the body is empty: send {\"texts\": [\"a sentence\", ...]}, 1 to 4 texts");
	}

	@Test
	void aBodyLargerThanAnyEmbeddingCallIsRefusedBeforeItIsRead() throws Exception {
		String huge = "{\"texts\": [\"" + "x".repeat(4 * (16_384 * 6 + 8) + 4096) + "\"]}";
		HttpResponse<String> response = post("/embed", huge);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(413);
		assertThat(json.readTree(response.body()).get("detail").asString())
			.contains("an embedding call takes at most 397344 (the search model's uform.models.<name>.max-texts texts of 16384 characters)");
	}

	private void refused(HttpResponse<String> response, String detail) throws Exception {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(json.readTree(response.body()).get("detail").asString()).contains(detail);
	}

	private static JsonNode ok(HttpResponse<String> response) throws Exception {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private static String encode(String text) {
		return URLEncoder.encode(text, StandardCharsets.UTF_8);
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String path, String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}
}
