package io.uform;

import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Test;

import io.uform.host.NumaTopology;
import io.uform.host.ThreadPinner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ExecutorPinningTest {

	@Test
	void workersRunOnTheirDomainsCpusAndTheCallerIsLeftAlone() {
		assumeTrue(System.getProperty("os.name", "").startsWith("Linux"),
				() -> "pinning uses Linux's sched_setaffinity; this OS is " + System.getProperty("os.name"));
		int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
		int[] callerBefore = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(threads))) {
			AtomicReferenceArray<int[]> seen = new AtomicReferenceArray<>(threads);
			int[] colocations = new int[threads];
			executor.forThreads((thread, colocation) -> {
				seen.set(thread, ThreadPinner.system().currentThreadAffinity().orElseThrow());
				colocations[thread] = colocation;
			});
			List<Integer> domainIds = executor.statistics().memoryDomains();
			NumaTopology topology = NumaTopology.system();
			for (int t = 1; t < threads; t++) {
				int[] domainCpus = topology.domain(domainIds.get(colocations[t])).orElseThrow().cpus();
				assertThat(seen.get(t)).as("worker %d on colocation %d", t, colocations[t]).containsExactly(domainCpus);
			}
			// Thread 0 is the caller: uform does not pin application threads.
			assertThat(seen.get(0)).containsExactly(callerBefore);
			assertThat(executor.statistics().pinning()).isEqualTo("pinned");
			assertThat(executor.toString()).contains("pinned");
		}
	}

	@Test
	void oneThreadIsReportedNotPinnedWithItsReason() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThat(executor.statistics().pinning()).startsWith("not pinned: one thread");
		}
	}
}
