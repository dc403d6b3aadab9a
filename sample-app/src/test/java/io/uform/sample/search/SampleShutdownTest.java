package io.uform.sample.search;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.Executor;
import io.uform.sample.SampleApplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sample closes cleanly after searching on every engine: both executors end freed (the VRAM one
 * with the corpus still in its scratch, which freeing gives back), the search service's host
 * buffers are freed after that without complaint, and nothing is logged at WARN or ERROR on the way
 * down.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class SampleShutdownTest {

	@Test
	void closingAfterSearchesFreesBothExecutorsQuietly(CapturedOutput output) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.run("--sample.vectors.enabled=true", "--sample.vectors.rows=2000", "--sample.vectors.dimensions=16",
					"--sample.corpus.path=src/test/resources/corpus", "--uform.ram.threads=2",
					"--spring.main.banner-mode=off");
		SearchService search = context.getBean(SearchService.class);
		for (String engine : List.of("ram", "vram", "parallel-stream")) {
			assertThat(search.search(search.corpus().randomQuery(1), 5, engine).hits()).hasSize(5);
		}
		Executor ram = context.getBean("uformRamExecutor", Executor.class);
		Executor vram = context.getBean("uformVramExecutor", Executor.class);
		int startupLength = output.length();
		context.close();
		assertThat(ram.statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(vram.statistics().state()).isEqualTo(Executor.State.FREED);
		String shutdown = output.toString().substring(startupLength);
		assertThat(shutdown).doesNotContain(" WARN ").doesNotContain(" ERROR ").doesNotContain("Exception");
	}

	@Test
	void closingWhileIndexingLogsOneInfoLineNotAnError(CapturedOutput output) throws InterruptedException {
		// The bundled docs, in small batches: hundreds of deferred calls, so the close lands mid-index.
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.run("--sample.corpus.batch-size=4", "--uform.ram.threads=2", "--spring.main.banner-mode=off",
					"--logging.level.io.uform.sample.search.PassageIndexer=info");
		PassageIndex index = context.getBean(PassageIndex.class);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (index.embedded() == 0 && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		int startupLength = output.length();
		context.close();
		assertThat(index.ready()).as("closed before the index was complete").isFalse();
		String shutdown = output.toString().substring(startupLength);
		assertThat(shutdown).contains("Indexing stopped at ")
			.doesNotContain(" WARN ")
			.doesNotContain(" ERROR ")
			.doesNotContain("\tat ");
	}

	@Test
	void aScratchLimitThatHoldsTheCorpusButNotASearchFailsStartupNotEverySearch() {
		// 2000 x 16 floats are 128,000 bytes of shard; a search reserves 64 + 8,000 more beside it. The
		// limit used to let startup pass (and health say UP), then every vram search was a 500.
		assertThatThrownBy(() -> new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.NONE)
			.run("--sample.vectors.enabled=true", "--sample.vectors.rows=2000", "--sample.vectors.dimensions=16",
					"--sample.corpus.path=src/test/resources/corpus", "--uform.ram.threads=2",
					"--uform.vram.scratch-limit=130000B", "--spring.main.banner-mode=off"))
			.hasStackTraceContaining("scratchLimit");
	}
}
