package io.uform.sample.search;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.uform.Executor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A saturated executor refuses a search with 503 and {@code Retry-After} once its slot wait is over,
 * rather than queueing without bound; once a slot frees, searches are served again. And without a
 * VRAM executor, asking for one is a 400 that says why.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = { "sample.vectors.enabled=true",
		"sample.vectors.rows=500", "sample.vectors.dimensions=8", "sample.corpus.path=src/test/resources/corpus", "uform.ram.threads=2", "uform.ram.deferred-limit=2", "uform.vram.enabled=false" })
class SearchSaturationTest {

	@Value("${local.server.port}")
	int port;

	@Autowired
	Executor ram;

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
			assertThat(refused.body()).contains("every search slot stayed taken for 1000 ms");
			// It waited for a slot first (SearchService.SLOT_WAIT), then gave up.
			assertThat(waitedMillis).isGreaterThanOrEqualTo(SearchService.SLOT_WAIT.toMillis());
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
