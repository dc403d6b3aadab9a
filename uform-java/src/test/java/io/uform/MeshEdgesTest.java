package io.uform;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.child.MeshMember;
import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Meshes at their edges, found by an adversarial review: a process stopped by SIGTERM while it waits in
 * bootstrap, a second claim of an index after the run joined, a count of two billion, a timeout of
 * for ever. Real processes where the promise is about processes; each bounded and killed by pid.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MeshEdgesTest {

	private static final List<String> JVM = List.of("-Duform.devices.simulated=1", "-Xmx64m", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-Xshare:auto");

	@TempDir
	Path directory;

	private final List<ChildJvm.Running> children = new ArrayList<>();

	@AfterEach
	void kill() throws InterruptedException {
		for (ChildJvm.Running child : this.children) {
			child.kill();
		}
	}

	private ChildJvm.Running member(String job, int index, int count, long timeoutMs, long holdMs) throws Exception {
		ChildJvm.Running child = ChildJvm.start(MeshMember.class, JVM, List.of("index=" + index, "count=" + count,
				"dir=" + this.directory, "job=" + job, "timeoutMs=" + timeoutMs, "holdMs=" + holdMs));
		this.children.add(child);
		return child;
	}

	private static void awaitFile(Path file) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!Files.exists(file) && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(file).exists();
	}

	private List<String> names(String job) throws Exception {
		Path dir = this.directory.resolve(job);
		if (!Files.isDirectory(dir)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(dir)) {
			return files.map((p) -> p.getFileName().toString()).sorted().toList();
		}
	}

	/**
	 * SIGTERM (Kubernetes stopping a failed Job's pods) while the process waits in bootstrap: it gives
	 * up for everyone on its way out, and leaves no record for the next run to report.
	 */
	@Test
	void sigtermDuringBootstrap() throws Exception {
		ChildJvm.Running waiting = member("term", 0, 3, 20_000, 0);
		ChildJvm.Running peer = member("term", 1, 3, 20_000, 0);
		awaitFile(this.directory.resolve("term").resolve("member-0.properties"));
		awaitFile(this.directory.resolve("term").resolve("member-1.properties"));
		waiting.process().destroy(); // SIGTERM
		waiting.process().waitFor(10, TimeUnit.SECONDS);
		long start = System.nanoTime();
		ChildJvm.Result result = peer.await(40);
		long peerMillis = (System.nanoTime() - start) / 1_000_000;
		assertThat(names("term")).doesNotContain("member-0.properties");
		// Told by the exiting process's abort, the peer fails at once rather than after its 20 s.
		assertThat(result.output()).contains("FAILED").contains("is exiting");
		assertThat(peerMillis).as("the peer's wait after the SIGTERM (ms)").isLessThan(10_000);
	}

	/**
	 * A second process of index 0 arriving after the run joined is named as a second claim, not as an
	 * earlier run's leftovers (the joined run's ready files are not leftovers).
	 */
	@Test
	void aLateSecondClaimOfAnIndexIsNamedAsSuch() throws Exception {
		ChildJvm.Running zero = member("late", 0, 2, 20_000, 8_000);
		ChildJvm.Running one = member("late", 1, 2, 20_000, 8_000);
		awaitFile(this.directory.resolve("late").resolve("ready-0.properties"));
		awaitFile(this.directory.resolve("late").resolve("ready-1.properties"));
		Thread.sleep(200);
		ChildJvm.Result late = member("late", 0, 2, 5_000, 0).await(40);
		assertThat(late.output()).contains("index 0 is claimed by two processes");
	}

	/**
	 * hostDomainCount is accepted up to Integer.MAX_VALUE: its timeout message built a string per missing
	 * index, and the process died of an OutOfMemoryError instead of failing with TIMEOUT.
	 */
	@Test
	void aHugeCountTimesOutWithATimeout() throws Exception {
		ChildJvm.Running child = ChildJvm.start(MeshMember.class, JVM, List.of("index=0", "count=" + Integer.MAX_VALUE,
				"dir=" + this.directory, "job=huge", "timeoutMs=500"));
		this.children.add(child);
		ChildJvm.Result result = child.await(60);
		assertThat(result.output()).contains("FAILED status=TIMEOUT").contains("index 1, 2, 3, 4, 5, 6, 7, 8 and 2147483638 more never joined");
	}

	/**
	 * A timeout of Duration.ofSeconds(Long.MAX_VALUE), "wait for ever": the second process to arrive
	 * overflowed an Instant checking the first one's record for staleness, and failed with a raw
	 * ArithmeticException, leaving the first to wait for ever.
	 */
	@Test
	void aVeryLongTimeoutStillJoins() throws Exception {
		SimulatedRuntime runtime = new SimulatedRuntime(2, 16L << 20);
		List<Executor> executors = new ArrayList<>();
		List<Object> outcomes = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		try {
			for (int index = 0; index < 2; index++) {
				Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(index)),
						Gpus.devices(runtime.devices()), (device, ordinal) -> runtime);
				executors.add(executor);
				MeshOptions options = new MeshOptions(index, 2, null, this.directory, "forever", Duration.ofSeconds(Long.MAX_VALUE));
				Thread thread = new Thread(() -> {
					Object outcome;
					try {
						outcome = Mesh.bootstrap(executor, options);
					}
					catch (Throwable ex) {
						outcome = ex;
					}
					synchronized (outcomes) {
						outcomes.add(outcome);
					}
				});
				thread.setDaemon(true);
				thread.start();
				threads.add(thread);
				Thread.sleep(300);
			}
			for (Thread thread : threads) {
				thread.join(10_000);
			}
			assertThat(outcomes).hasSize(2).allMatch((o) -> o instanceof Mesh);
		}
		finally {
			for (Object o : outcomes) {
				if (o instanceof Mesh mesh) {
					mesh.free();
				}
			}
			threads.forEach(Thread::interrupt);
			for (Thread thread : threads) {
				thread.join(5_000);
			}
			executors.forEach(Executor::free);
		}
	}
}
