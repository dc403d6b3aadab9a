package io.uform.spring.autoconfigure;

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
 * machine. It appears exactly when the threads on shared cores outnumber them; nothing fails.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformOversubscriptionCheckTest {

	private static final String WARNING = "are pinned to the same";

	/** A machine of two NUMA nodes with two CPUs each. */
	private static final Map<Integer, List<Integer>> TWO_NODES = Map.of(0, List.of(0, 1), 1, List.of(2, 3));

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.vram.enabled=false");

	@Test
	void executorsOnDifferentNodesAreNotWarnedAbout() {
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0)), new Placed("reranker", 2, List.of(1))), TWO_NODES, 4))
			.isEmpty();
	}

	@Test
	void executorsSharingANodeWithMoreThreadsThanItsCoresAreNamedWithTheCores() {
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0)), new Placed("reranker", 1, List.of(0))), TWO_NODES, 4))
			.singleElement()
			.asString()
			.contains("uform executor beans 'uformRamExecutor' (2 threads) and 'reranker' (1 thread) are pinned to the "
					+ "same 2 cores (node 0: CPUs [0, 1])")
			.contains("at most 2");
	}

	@Test
	void sharingOnlyPartOfTheDomainsCountsTheThreadsOnThatPart() {
		// 4 threads over both nodes put 2 on node 1; with 1 more there, node 1's 2 cores have 3.
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 4, List.of(0, 1)), new Placed("reranker", 1, List.of(1))), TWO_NODES,
				4))
			.singleElement()
			.asString()
			.contains("'uformRamExecutor' (2 threads) and 'reranker' (1 thread)");
		assertThat(UformOversubscriptionCheck.warnings(
				List.of(new Placed("uformRamExecutor", 2, List.of(0, 1)), new Placed("reranker", 1, List.of(1))), TWO_NODES,
				4))
			.isEmpty();
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
	void aContextWhoseExecutorsShareTheCoresSaysSoAtStartupAndStarts(CapturedOutput output) {
		int cores = cores();
		this.contextRunner.withPropertyValues("uform.ram.threads=" + cores)
			.withUserConfiguration(RerankerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce(WARNING)
					.containsPattern(" WARN .* uform executor beans 'reranker' \\(1 thread\\) and 'uformRamExecutor' \\("
							+ cores + " threads?\\) " + WARNING);
			});
	}

	@Test
	void aContextWhoseExecutorsFitTheCoresSaysNothing(CapturedOutput output) {
		int cores = cores();
		Assumptions.assumeTrue(cores >= 2, "two executors fit only on 2 cores or more; this machine has " + cores);
		this.contextRunner.withPropertyValues("uform.ram.threads=" + (cores - 1))
			.withUserConfiguration(RerankerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain(WARNING).doesNotContain("threads on the");
			});
	}

	@Test
	void aContextWithMoreThreadsThanCoresSaysSo(CapturedOutput output) {
		int cores = cores();
		this.contextRunner.withPropertyValues("uform.ram.threads=" + (cores + 2)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("uform executor bean 'uformRamExecutor' has " + (cores + 2) + " threads on the "
					+ cores + " cores");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class RerankerConfiguration {

		@Bean(defaultCandidate = false)
		Executor reranker() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		}
	}

	/** The cores the executors' default domains (all of them) carry here. */
	private static int cores() {
		int cpus = Uform.memoryDomains().values().stream().mapToInt(List::size).sum();
		return Math.min(cpus, Runtime.getRuntime().availableProcessors());
	}
}
