package io.uform.sample.search;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

import io.uform.Executor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A saturated executor refuses a search with 503 and {@code Retry-After} once its slot wait is over,
 * rather than queueing without bound; once a slot frees, searches are served again. Text searches
 * waiting together hold one slot, not one each, and bad input is refused before it reaches the
 * executor, even a saturated one; searches that arrive together share the model's deferred calls. And without a VRAM executor, asking for one is a 400 that says why.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = { "sample.vectors.enabled=true",
		"sample.vectors.rows=500", "sample.vectors.dimensions=8", "sample.corpus.path=src/test/resources/corpus", "uform.ram.threads=2", "uform.ram.deferred-limit=2", "uform.vram.enabled=false" })
class SearchSaturationTest {

	@Value("${local.server.port}")
	int port;

	@Autowired
	Executor ram;

	@Autowired
	PassageIndex index;

	@Autowired
	MeterRegistry registry;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void everySlotTakenIsA503WithRetryAfterAndAFreedSlotServesAgain() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		List<CompletableFuture<Void>> blockers = new ArrayList<>();
		try {
			for (int i = 0; i < 2; i++) {
				blockers.add(this.ram.defer(() -> {
					try {
						release.await(30, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}));
			}
			long start = System.nanoTime();
			HttpResponse<String> refused = get("/search/random?engine=ram");
			long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
			assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(refused.body()).contains("every search slot stayed taken for as long as a search waits");
			// It waited for a slot first (SearchService.SLOT_WAIT), then gave up.
			assertThat(waitedMillis).isGreaterThanOrEqualTo(SearchService.SLOT_WAIT.toMillis());
			// The OpenAI route says it in OpenAI's words, with a status its clients retry.
			HttpResponse<String> openAi = post("/v1/embeddings", "{\"model\": \"all-minilm-l6-v2-q\", \"input\": \"x\"}");
			assertThat(openAi.statusCode()).as(openAi.body()).isEqualTo(503);
			assertThat(openAi.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(openAi.body()).contains("\"type\":\"server_error\"").contains("\"code\":\"overloaded\"");
			// Both models give up on a saturated executor: each entry has its slot wait.
			HttpResponse<String> second = post("/v1/embeddings", "{\"model\": \"all-minilm-l6-v2\", \"input\": \"x\"}");
			assertThat(second.statusCode()).as(second.body()).isEqualTo(503);
			assertThat(second.body()).contains("\"code\":\"overloaded\"");
			// The parallel stream does not use the executor, so it still answers.
			assertThat(get("/search/random?engine=parallel-stream").statusCode()).isEqualTo(200);
		}
		finally {
			release.countDown();
		}
		CompletableFuture.allOf(blockers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(get("/search/random?engine=ram").statusCode()).isEqualTo(200);
	}

	@Test
	void concurrentSearchesShareTheModelsDeferredCalls() throws Exception {
		// The search model's batches: one per deferred call of the model.
		DistributionSummary batches = this.registry.get("uform.model.batch.size").tag("model", "all-minilm-l6-v2-q")
			.summary();
		long batchesBefore = batches.count();
		double textsBefore = batches.totalAmount();
		int searches = 16;
		CountDownLatch release = new CountDownLatch(1);
		List<CompletableFuture<Void>> blockers = new ArrayList<>();
		List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
		try {
			// Every slot taken, so the searches arrive while none can run, as under load.
			for (int i = 0; i < 2; i++) {
				blockers.add(this.ram.defer(() -> awaitQuietly(release)));
			}
			for (int i = 0; i < searches; i++) {
				answers.add(this.http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port
						+ "/search?q=" + URLEncoder.encode("how many threads, asked by client " + i, StandardCharsets.UTF_8)))
					.build(), HttpResponse.BodyHandlers.ofString()));
			}
			// Well within the model's 1 s slot wait: every search is waiting by then.
			Thread.sleep(400);
		}
		finally {
			release.countDown();
		}
		for (CompletableFuture<HttpResponse<String>> answer : answers) {
			HttpResponse<String> search = answer.get(30, TimeUnit.SECONDS);
			assertThat(search.statusCode()).as(search.body()).isEqualTo(200);
		}
		CompletableFuture.allOf(blockers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(batches.totalAmount() - textsBefore).as("queries embedded").isEqualTo(searches);
		// Each deferred call takes every query waiting at that moment: a few calls, not one per search
		// (which is what the model does when it cannot batch, e.g. with max-batch-tokens=1).
		assertThat(batches.count() - batchesBefore).as("deferred calls of the model for " + searches + " searches")
			.isLessThanOrEqualTo(searches / 4);
	}

	@BeforeEach
	void indexed() throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!this.index.ready() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(this.index.ready()).as("index built within 30 s").isTrue();
	}

	@Test
	void badTextIsRefusedOnTheRequestThreadEvenWhileEverySlotIsTaken() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		List<CompletableFuture<Void>> blockers = new ArrayList<>();
		long acceptedBefore = accepted();
		try {
			for (int i = 0; i < 2; i++) {
				blockers.add(this.ram.defer(() -> awaitQuietly(release)));
			}
			String words = "word ".repeat(300);
			StringBuilder texts = new StringBuilder("{\"texts\": [");
			for (int i = 0; i < 64; i++) {
				texts.append((i > 0) ? ", " : "").append('"').append(words).append('"');
			}
			HttpResponse<String> embed = post("/embed", texts.append("]}").toString());
			HttpResponse<String> search = get("/search?q=" + URLEncoder.encode(words, StandardCharsets.UTF_8));
			// 400, not 503 after a slot wait: it never asked for a slot (the count below), let alone ran.
			assertThat(embed.statusCode()).as(embed.body()).isEqualTo(400);
			assertThat(embed.body()).contains("texts[0] has at least 302 tokens");
			assertThat(search.statusCode()).as(search.body()).isEqualTo(400);
			assertThat(search.body()).contains("query has at least 302 tokens");
		}
		finally {
			release.countDown();
		}
		CompletableFuture.allOf(blockers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(accepted() - acceptedBefore).as("deferred calls accepted: only the two blockers").isEqualTo(2);
	}

	private long accepted() {
		io.uform.ExecutorStatistics stats = this.ram.statistics();
		return stats.deferredCompleted() + stats.deferredFailed() + stats.deferredCancelled() + stats.deferredInFlight();
	}

	private static void awaitQuietly(CountDownLatch release) {
		try {
			release.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private HttpResponse<String> post(String path, String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void withoutAVramExecutorTheVramEngineIsA400ThatSaysWhy() throws Exception {
		HttpResponse<String> refused = get("/search/random?engine=vram");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(refused.body()).contains("engine must be one of [auto, ram, parallel-stream], was 'vram' (this "
				+ "application has no VRAM executor: uform.vram.enabled is false");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}
}
