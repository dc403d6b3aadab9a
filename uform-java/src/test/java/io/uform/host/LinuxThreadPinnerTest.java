package io.uform.host;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class LinuxThreadPinnerTest {

	@BeforeEach
	void onLinux() {
		assumeTrue(System.getProperty("os.name", "").startsWith("Linux"),
				() -> "pinning uses Linux's sched_setaffinity; this OS is " + System.getProperty("os.name"));
	}

	@Test
	void systemPinnerIsTheJnaBindingOnLinux() {
		// On Linux with JNA on the class path anything else is a bug, not a reason to skip.
		assertThat(ThreadPinner.system()).isInstanceOf(LinuxThreadPinner.class);
	}

	@Test
	void unpinnedThreadSeesTheProcessAffinity() {
		int[] mask = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		int[] allowed = NumaTopology.system().domains().stream()
			.flatMapToInt((domain) -> Arrays.stream(domain.cpus()))
			.sorted()
			.toArray();
		assertThat(mask).containsExactly(allowed);
	}

	@Test
	void pinsAFreshThreadToCpuZeroAndReadsItBack() throws Exception {
		int[] before = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		AtomicReference<String> failure = new AtomicReference<>("not run");
		AtomicReference<int[]> after = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			failure.set(ThreadPinner.system().pinCurrentThread(new int[] { before[0] }));
			after.set(ThreadPinner.system().currentThreadAffinity().orElseThrow());
		}, "pin-test");
		thread.start();
		thread.join();
		assertThat(failure.get()).isNull();
		assertThat(after.get()).containsExactly(before[0]);
		// Affinity is per thread: the test's own thread is untouched.
		assertThat(ThreadPinner.system().currentThreadAffinity().orElseThrow()).containsExactly(before);
	}

	@Test
	void cpusOutsideTheMaskAreDroppedAndNoneLeftIsAReason() throws Exception {
		int[] before = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		int outside = before[before.length - 1] + 1;
		AtomicReference<String> mixed = new AtomicReference<>();
		AtomicReference<int[]> mixedMask = new AtomicReference<>();
		AtomicReference<String> none = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			mixed.set(ThreadPinner.system().pinCurrentThread(new int[] { before[0], outside }));
			mixedMask.set(ThreadPinner.system().currentThreadAffinity().orElseThrow());
			none.set(ThreadPinner.system().pinCurrentThread(new int[] { outside, 100_000 }));
		}, "pin-test-outside");
		thread.start();
		thread.join();
		assertThat(mixed.get()).isNull();
		assertThat(mixedMask.get()).containsExactly(before[0]);
		assertThat(none.get()).startsWith("none of CPUs " + outside + ",100000 is in this thread's affinity mask");
	}

	@Test
	void aThreadLeavesItsCpuAndKeepsItsMask() throws Exception {
		int[] before = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		assumeTrue(before.length >= 2, "needs two CPUs to move between");
		AtomicReference<int[]> cpus = new AtomicReference<>();
		AtomicReference<int[]> after = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			int from = ThreadPinner.system().currentCpu();
			boolean moved = ThreadPinner.system().leaveCpu(from);
			cpus.set(new int[] { from, moved ? 1 : 0, ThreadPinner.system().currentCpu() });
			after.set(ThreadPinner.system().currentThreadAffinity().orElseThrow());
		}, "leave-test");
		thread.start();
		thread.join();
		assertThat(before).contains(cpus.get()[0]);
		assertThat(cpus.get()[1]).as("moved").isEqualTo(1);
		assertThat(cpus.get()[2]).as("the CPU after the move").isNotEqualTo(cpus.get()[0]);
		assertThat(after.get()).containsExactly(before);
	}

	@Test
	void aThreadPinnedToOneCpuCannotLeaveIt() throws Exception {
		int[] before = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		AtomicReference<String> outcome = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			ThreadPinner.system().pinCurrentThread(new int[] { before[0] });
			boolean moved = ThreadPinner.system().leaveCpu(before[0]);
			outcome.set(moved + " " + ThreadPinner.system().currentCpu() + " "
					+ Arrays.toString(ThreadPinner.system().currentThreadAffinity().orElseThrow()));
		}, "leave-test-pinned");
		thread.start();
		thread.join();
		assertThat(outcome.get()).isEqualTo("false " + before[0] + " [" + before[0] + "]");
	}

	@Test
	void poolWorkersPinThemselvesBeforeTheirFirstTask() throws Exception {
		// What Executor.forRam wires up, narrowed to one CPU so that the effect shows even on a
		// machine whose only NUMA domain holds every CPU (where a pinned worker looks unpinned).
		int[] before = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		int[] target = { before[before.length - 1] };
		var pool = new HostPool<>("pin-test", 2, new int[] { 0, 0 },
				(thread) -> ThreadPinner.system().pinCurrentThread(target), Fixtures.BODIES,
				Fixtures.ERRORS);
		try {
			AtomicReference<int[]> worker = new AtomicReference<>();
			pool.forThreads((thread, colocation) -> {
				if (thread == 1) {
					worker.set(ThreadPinner.system().currentThreadAffinity().orElseThrow());
				}
			});
			assertThat(worker.get()).containsExactly(target);
		}
		finally {
			pool.stop();
		}
	}

	@Test
	void unavailablePinnerSaysWhyAndCannotReadAffinity() {
		ThreadPinner pinner = ThreadPinner.unavailable("no reason at all");
		assertThat(pinner.pinCurrentThread(new int[] { 0 })).isEqualTo("no reason at all");
		assertThat(pinner.currentThreadAffinity()).isEmpty();
		assertThat(pinner).hasToString("ThreadPinner[unavailable: no reason at all]");
	}
}
