package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Uform;
import io.uform.spring.autoconfigure.UformOversubscriptionCheck.Placed;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup WARN for executors that ask for more threads than their cores: on a machine described with
 * two NUMA nodes of two cores each, where executors can be kept apart, and in a context on this
 * machine. It appears exactly when the threads of executors that pin threads outnumber the cores they
 * share; an executor of one thread (the default VRAM executor's, its caller's) pins none and is never
 * named; nothing fails.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformOversubscriptionCheckTest {

	private static final String WARNING = "are pinned to the same";

	/** A machine of two NUMA nodes with two CPUs each. */
	private static final Map<Integer, List<Integer>> TWO_NODES = Map.of(0, List.of(0, 1), 1, List.of(2, 3));

	/** A machine of two NUMA nodes with four CPUs each. */
	private static final Map<Integer, List<Integer>> TWO_WIDER_NODES = Map.of(0, List.of(0, 1, 2, 3), 1,
			List.of(4, 5, 6, 7));

	/** A laptop: one node of two CPUs. */
	private static final Map<Integer, List<Integer>> ONE_NODE = Map.of(0, List.of(0, 1));

	// The test JVM sees two simulated devices (this module's pom), so the VRAM executor is made.
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class));

	@Test
	void executorsOnDifferentNodesAreNotWarnedAbout() {
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0)), new Placed("reranker", 2, List.of(1))), TWO_NODES, 4))
			.isEmpty();
	}

	@Test
	void executorsSharingANodeWithMoreThreadsThanItsCoresAreNamedWithTheCores() {
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0)), new Placed("reranker", 2, List.of(0))), TWO_NODES, 4))
			.singleElement()
			.asString()
			.contains("uform executor beans 'uformRamExecutor' (2 threads) and 'reranker' (2 threads) are pinned to the "
					+ "same 2 cores (node 0: CPUs [0, 1])")
			.contains("at most 2");
	}

	@Test
	void executorsSharingANodeWhoseThreadsFitItsCoresAreNotWarnedAbout() {
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0)), new Placed("reranker", 2, List.of(0))),
				TWO_WIDER_NODES, 8))
			.isEmpty();
	}

	@Test
	void sharingOnlyPartOfTheDomainsCountsTheThreadsOnThatPart() {
		// 8 threads over both nodes put 4 on node 1; with 2 more there, node 1's 4 cores have 6.
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 8, List.of(0, 1)), new Placed("reranker", 2, List.of(1))),
				TWO_WIDER_NODES, 8))
			.singleElement()
			.asString()
			.contains("'uformRamExecutor' (4 threads) and 'reranker' (2 threads) are pinned to the same 4 cores");
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 4, List.of(0, 1)), new Placed("reranker", 2, List.of(1))),
				TWO_WIDER_NODES, 8))
			.isEmpty();
	}

	@Test
	void anExecutorOfOneThreadPinsNoneSoTheDefaultsOnALaptopAreNotWarnedAbout() {
		// The default RAM executor takes both cores; the default VRAM executor's one thread is its caller's.
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0)), new Placed("uformVramExecutor", 1, List.of(0))),
				ONE_NODE, 2))
			.isEmpty();
	}

	@Test
	void aVramExecutorOfTwoDevicesPinsHostThreadsAndIsWarnedAbout() {
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0)), new Placed("uformVramExecutor", 2, List.of(0))),
				ONE_NODE, 2))
			.singleElement()
			.asString()
			.contains("'uformRamExecutor' (2 threads) and 'uformVramExecutor' (2 threads) are pinned to the same 2 cores");
	}

	@Test
	void oneExecutorWithMoreThreadsThanItsCoresIsNamed() {
		assertThat(UformOversubscriptionCheck.warnings(List.of(new Placed("uformRamExecutor", 8, List.of(0))), TWO_NODES, 4))
			.singleElement()
			.asString()
			.startsWith("uform executor bean 'uformRamExecutor' has 8 threads on the 2 cores its memory domains carry")
			.contains("at most 2 threads");
	}

	@Test
	void theExampleInTheDocsIsTheWarningOfItsMachine() throws IOException {
		String example = Files.readAllLines(Path.of("..", "docs", "configuration.md"))
			.stream()
			.map(String::strip)
			.filter((line) -> line.startsWith("uform executor beans "))
			.findFirst()
			.orElseThrow();
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("reranker", 2, List.of(0)), new Placed("uformRamExecutor", 2, List.of(0))), ONE_NODE, 2))
			.containsExactly(example);
	}

	@Test
	void theDefaultRamAndVramExecutorsSayNothingOnAnyMachine(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
			assertThat(output).doesNotContain(WARNING).doesNotContain("threads on the");
		});
	}

	@Test
	void aVramExecutorOnBothDevicesBesideTheDefaultRamExecutorSaysSo(CapturedOutput output) {
		// Its two host threads are chosen, and the RAM executor already has every core (or 7 in 8 of them).
		int ramThreads = cores() - cores() / 8;
		Assumptions.assumeTrue(Uform.memoryDomains().size() == 1 && ramThreads + 2 > cores(),
				"one NUMA node, where the default RAM executor leaves fewer than two cores free");
		this.contextRunner.withPropertyValues("uform.vram.devices=0,1").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(WARNING)
				.containsPattern(" WARN .* uform executor beans 'uformRamExecutor' \\(" + ramThreads
						+ " threads?\\) and 'uformVramExecutor' \\(2 threads\\) " + WARNING);
		});
	}

	@Test
	void aContextWhoseExecutorsShareTheCoresSaysSoAtStartupAndStarts(CapturedOutput output) {
		int cores = cores();
		this.contextRunner.withPropertyValues("uform.vram.enabled=false", "uform.ram.threads=" + cores)
			.withUserConfiguration(RerankerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce(WARNING)
					.containsPattern(" WARN .* uform executor beans 'reranker' \\(2 threads\\) and 'uformRamExecutor' \\("
							+ cores + " threads?\\) " + WARNING);
			});
	}

	@Test
	void aContextWithMoreThreadsThanCoresSaysSo(CapturedOutput output) {
		int cores = cores();
		this.contextRunner.withPropertyValues("uform.vram.enabled=false", "uform.ram.threads=" + (cores + 2))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("uform executor bean 'uformRamExecutor' has " + (cores + 2) + " threads on the "
						+ cores + " cores");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class RerankerConfiguration {

		@Bean(defaultCandidate = false)
		Executor reranker() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		}
	}

	/** The cores the executors' default domains (all of them) carry here. */
	private static int cores() {
		int cpus = Uform.memoryDomains().values().stream().mapToInt(List::size).sum();
		return Math.min(cpus, Runtime.getRuntime().availableProcessors());
	}
}
