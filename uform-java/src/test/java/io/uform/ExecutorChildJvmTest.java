package io.uform;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.child.CallsQueuedAtExit;
import io.uform.child.CleanupAtExit;
import io.uform.child.DeferredCallExhaustsTheHeap;
import io.uform.child.NoThreadAfterFree;
import io.uform.child.TasksExhaustTheHeap;
import io.uform.cli.VramCheck;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What needs a JVM of its own: tasks that exhaust a small heap, calls still queued when the JVM
 * exits, and every uform thread of the JVM gone once its executors are freed. Each child runs with a time limit and is killed past it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExecutorChildJvmTest {

	@Test
	void forksWhoseTasksExhaustTheHeapAllReturnAndTheExecutorKeepsServing() throws Exception {
		ChildJvm.Result result = ChildJvm.run(TasksExhaustTheHeap.class, List.of("-Xmx32m", "-XX:+UseSerialGC"), 90);
		assertThat(result.output()).contains("forks that threw: 20 of 20")
			.contains("sum after: 499500")
			.contains("state: FREED");
		assertThat(result.exitCode()).as(result.output()).isZero();
	}

	@Test
	void aDeferredCallThatFillsTheHeapIsFinishedOnceMemoryIsBackAndTheExecutorKeepsServing() throws Exception {
		ChildJvm.Result result = ChildJvm.run(DeferredCallExhaustsTheHeap.class, List.of("-Xmx32m", "-XX:+UseSerialGC"),
				90);
		assertThat(result.output()).as(result.output())
			.contains("filler failed with: the heap is full")
			.contains("next call: ran")
			.contains("state: FREED, completed 1, failed 1");
		assertThat(result.exitCode()).as(result.output()).isZero();
	}

	@Test
	void theRealHardwareVramCheckPassesOnASimulatedDevice() throws Exception {
		// scripts/gpu-check.sh runs this on a real GPU; here the same steps run on host memory.
		ChildJvm.Result result = ChildJvm.run(VramCheck.class, List.of("-Xmx768m", "-Duform.devices.simulated=1",
				"-Duform.devices.simulated.memory=512MB"), 110);
		assertThat(result.output()).contains("PASS  forVram")
			.contains("PASS  scratch to 256 MiB")
			.contains("PASS  upload")
			.contains("PASS  kernel refused on a simulated device")
			.contains("PASS  download")
			.contains("PASS  deferred call")
			.contains("PASS  drain")
			.containsPattern("PASS  drain with a deadline +event recorded on the stream \\(cuEventRecord\\)")
			.contains("PASS  free")
			.contains("PASS  device memory back")
			.contains("vram-check: all checks passed");
		assertThat(result.exitCode()).as(result.output()).isZero();
	}

	@Test
	void callsStillQueuedWhenTheJvmExitsHaveTheirFuturesCompletedWithFreed() throws Exception {
		ChildJvm.Result result = ChildJvm.run(CallsQueuedAtExit.class, List.of("-Xmx64m"), 60);
		assertThat(result.exitCode()).as(result.output()).isZero();
		for (int call = 1; call <= 3; call++) {
			assertThat(result.output()).contains("queued call " + call + ": UformException: ")
				.contains("dropped deferred call #" + (call + 1) + " before it started: the JVM is exiting");
		}
	}

	/**
	 * Once the last executor is freed no uform thread is left, the shared completion pool's included
	 * (its idle threads exit at once rather than after their 30 s keep-alive); while an executor lives,
	 * the pool keeps its threads for reuse.
	 */
	@Test
	void onceTheLastExecutorIsFreedNoUformThreadRemainsTheCompletionPoolsIncluded() throws Exception {
		ChildJvm.Result result = ChildJvm.start(NoThreadAfterFree.class, List.of("-Xmx64m"), List.of()).await(60);
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).containsPattern("one executor left: [1-9]\\d* completion threads")
			.containsPattern("after the last free: no uform thread, within \\d+ ms")
			.containsPattern("an executor again, idle 300 ms: [1-9]\\d* completion threads")
			.containsPattern("after its free: no uform thread, within \\d+ ms");
	}

	@Test
	void aDroppedCallsCleanupThatFreesTheExecutorRunsAtExitAndDoesNotHoldItUp() throws Exception {
		ChildJvm.Result result = ChildJvm.start(CleanupAtExit.class, List.of("-Xmx64m"), List.of("free")).await(30);
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("continuation: UformException[FREED]")
			.contains("before it started: the JVM is exiting");
	}

	@Test
	void aDroppedCallsCleanupThatDrainsTheExecutorRunsAtExitAndDoesNotHoldItUp() throws Exception {
		ChildJvm.Result result = ChildJvm.start(CleanupAtExit.class, List.of("-Xmx64m"), List.of("drain")).await(30);
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("continuation: UformException[FREED]");
	}

	@Test
	void callsQueuedAtExitRunWhenTheExecutorIsLeftToAnOwnerThatFreesItAtExit() throws Exception {
		ChildJvm.Result result = ChildJvm.start(CallsQueuedAtExit.class, List.of("-Xmx64m"), List.of("owner")).await(60);
		assertThat(result.exitCode()).as(result.output()).isZero();
		for (int call = 1; call <= 3; call++) {
			assertThat(result.output()).as(result.output()).contains("queued call " + call + ": ran " + call);
		}
		assertThat(result.output()).contains("owner freed the executor").doesNotContain("the JVM is exiting");
	}
}
