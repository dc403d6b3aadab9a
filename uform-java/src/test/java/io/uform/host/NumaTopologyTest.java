package io.uform.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NumaTopologyTest {

	@Test
	void twoSocketsWithSiblingsNumberedAfterTheCores() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-two-socket"), 99);
		assertThat(topology.domains()).containsExactly(new NumaDomain(0, new int[] { 0, 1, 2, 3, 8, 9, 10, 11 }),
				new NumaDomain(1, new int[] { 4, 5, 6, 7, 12, 13, 14, 15 }));
		assertThat(topology.domains().get(0)).hasToString("node0[0-3,8-11]");
		assertThat(topology.cpuQuota()).isEmpty();
		assertThat(topology.cpuBudget()).isEqualTo(16);
		assertThat(topology.describe()).contains("node1[4-7,12-15]").endsWith("no cgroup CPU quota");
		assertThat(topology.machineNodes()).isEqualTo(2);
	}

	/** The machine's nodes with CPUs, whatever the process may use: a cpuset can grow later. */
	@Test
	void aProcessConfinedToOneNodeStillCountsTheMachinesNodes(@TempDir Path root) throws IOException {
		write(root.resolve("sys/devices/system/node/node0/cpulist"), "0-3\n");
		write(root.resolve("sys/devices/system/node/node1/cpulist"), "4-7\n");
		write(root.resolve("sys/devices/system/node/node2/cpulist"), "\n");
		write(root.resolve("proc/thread-self/status"), "Name:\tmain\nCpus_allowed_list:\t0-3\n");
		NumaTopology topology = NumaTopology.read(root, 99);
		assertThat(topology.domains()).extracting(NumaDomain::id).containsExactly(0);
		assertThat(topology.machineNodes()).as("nodes with CPUs; node2 is memory only").isEqualTo(2);
		assertThat(NumaTopology.read(Fixtures.root("cgroup-v2-container-no-numa"), 99).machineNodes())
			.as("no node directories").isEqualTo(1);
	}

	/**
	 * The status file's first line is the thread's name, cut by the JVM to 15 bytes, through a
	 * character where the name is not ASCII: read as UTF-8 it threw, and an executor made on such a
	 * thread failed to start.
	 */
	@Test
	void aThreadWhoseNameIsCutThroughACharacterStillMakesAnExecutor() throws Exception {
		AtomicReference<Object> made = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			try (io.uform.Executor executor = io.uform.Executor
				.forRam(io.uform.ExecutorForRamConfig.defaults().withThreads(2))) {
				made.set(executor.statistics().pinning());
			}
			catch (Throwable ex) {
				made.set(ex);
			}
		}, "\u0416\u0416\u0416\u0416\u0416\u0416\u0416\u0416\u0416\u0416\u0416\u0416");
		thread.start();
		thread.join(20_000);
		assertThat(made.get()).isInstanceOf(String.class);
	}

	@Test
	void memoryOnlyNodeIsLeftOut() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-cxl-memory-node"), 99);
		assertThat(topology.domains()).extracting(NumaDomain::id).containsExactly(0, 1);
		assertThat(topology.domain(2)).isEmpty();
		assertThat(topology.cpuBudget()).isEqualTo(8);
	}

	@Test
	void containerCpusetCutsNodesAndPodQuotaCapsTheBudget() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-container-cpuset"), 99);
		// Cpus_allowed_list 2-5: two cores of each socket, none of the SMT siblings.
		assertThat(topology.domains()).containsExactly(new NumaDomain(0, new int[] { 2, 3 }),
				new NumaDomain(1, new int[] { 4, 5 }));
		// The pod's 150000/100000 in a parent cgroup binds the unlimited container below it.
		assertThat(topology.cpuQuota()).hasValueSatisfying((quota) -> {
			assertThat(quota.quotaMicros()).isEqualTo(150_000);
			assertThat(quota.cpus()).isEqualTo(2);
			assertThat(quota.source()).endsWith("kubepods-pod42.slice/cpu.max");
		});
		assertThat(topology.cpuBudget()).isEqualTo(2);
		assertThat(topology.cpuBudget(List.of(topology.domains().get(0)))).isEqualTo(2);
		assertThat(topology.describe()).contains("cgroup CPU quota 150000/100000 us = 2 CPU(s)");
	}

	@Test
	void withoutNodeDirectoriesTheAllowedCpusAreOneDomain() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("cgroup-v2-container-no-numa"), 99);
		assertThat(topology.domains()).containsExactly(new NumaDomain(0, new int[] { 0, 1, 2, 3 }));
		assertThat(topology.source()).contains("no NUMA nodes");
		assertThat(topology.cpuBudget()).isEqualTo(2);
	}

	@Test
	void withoutAnythingTheJvmCountIsOneDomain() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("zen4-epyc-9654"), 3);
		assertThat(topology.domains()).containsExactly(new NumaDomain(0, new int[] { 0, 1, 2 }));
		assertThat(topology.cpuQuota()).isEmpty();
	}

	@Test
	void thisMachinesFixture() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("local-epyc-zen4"), 99);
		assertThat(topology.domains()).containsExactly(new NumaDomain(0, new int[] { 0, 1 }));
		// cgroup v1 hybrid, cpu.cfs_quota_us -1: no quota.
		assertThat(topology.cpuQuota()).isEmpty();
	}

	@Test
	void theRunningMachineAgreesWithTheJvm() {
		NumaTopology topology = NumaTopology.system();
		// Read on the test's main thread, which nobody pinned: the JVM's count is the same budget.
		assertThat(topology.cpuBudget()).isEqualTo(Runtime.getRuntime().availableProcessors());
	}

	@Test
	void theCallingThreadsMaskWinsOverTheProcesssWhereLinuxShowsIt(@TempDir Path root) throws IOException {
		write(root.resolve("sys/devices/system/node/node0/cpulist"), "0-3\n");
		write(root.resolve("sys/devices/system/node/node1/cpulist"), "4-7\n");
		write(root.resolve("proc/self/status"), "Name:\tjava\nCpus_allowed_list:\t0-7\n");
		write(root.resolve("proc/thread-self/status"), "Name:\tworker\nCpus_allowed_list:\t4-5\n");
		assertThat(NumaTopology.read(root, 99).domains()).containsExactly(new NumaDomain(1, new int[] { 4, 5 }));
		// Before Linux 3.17 there is no thread-self: the process's mask stands for it.
		Files.delete(root.resolve("proc/thread-self/status"));
		assertThat(NumaTopology.read(root, 99).domains()).hasSize(2);
	}

	@Test
	@Timeout(value = 30, unit = TimeUnit.SECONDS)
	void onThisMachineAThreadPinnedToOneCpuSeesOnlyThatCpu() throws Exception {
		ThreadPinner pinner = ThreadPinner.system();
		assumeTrue(pinner.currentThreadAffinity().map((cpus) -> cpus.length >= 2).orElse(false),
				"needs 2 or more CPUs and working pinning (JNA and sched_setaffinity)");
		AtomicReference<int[]> seen = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			assertThat(pinner.pinCurrentThread(new int[] { 0 })).isNull();
			NumaTopology topology = NumaTopology.system();
			// The kernel's own answer for this thread (Runtime.availableProcessors() is no witness: in a
			// container HotSpot caches its count for a while, and it can still say 2 here).
			seen.set(new int[] { pinner.currentThreadAffinity().map((cpus) -> cpus.length).orElse(-1),
					topology.domains().stream().mapToInt(NumaDomain::cpuCount).sum() });
		});
		thread.start();
		thread.join();
		assertThat(seen.get()[0]).as("the kernel's affinity mask of that thread").isEqualTo(1);
		assertThat(seen.get()[1]).as("CPUs the topology offers that thread").isEqualTo(1);
	}

	@Test
	void aCpulistNamingAnImpossibleCpuIsRefusedAsACorruptFileAndTheDomainsComeFromTheMask(@TempDir Path root)
			throws IOException {
		assertThatIllegalArgumentException().isThrownBy(() -> CpuList.parse("0-2147483647"))
			.withMessageContaining("names CPU 2147483647");
		write(root.resolve("sys/devices/system/node/node0/cpulist"), "0-2147483647\n");
		write(root.resolve("proc/self/status"), "Cpus_allowed_list:\t0-1\n");
		assertThat(NumaTopology.read(root, 99).domains()).containsExactly(new NumaDomain(0, new int[] { 0, 1 }));
	}

	@Test
	void domainsComeAscendingByNodeIdNotByDirectoryName(@TempDir Path root) throws IOException {
		// "node10" sorts before "node2" as a name.
		write(root.resolve("sys/devices/system/node/node2/cpulist"), "0-1\n");
		write(root.resolve("sys/devices/system/node/node10/cpulist"), "2-3\n");
		assertThat(NumaTopology.read(root, 99).domains()).extracting(NumaDomain::id).containsExactly(2, 10);
	}

	@Test
	void withoutAnAffinityMaskEveryCpuOfEveryNodeIsUsable(@TempDir Path root) throws IOException {
		write(root.resolve("sys/devices/system/node/node0/cpulist"), "0-3\n");
		write(root.resolve("sys/devices/system/node/node1/cpulist"), "4-7\n");
		assertThat(NumaTopology.read(root, 99).domains()).containsExactly(new NumaDomain(0, new int[] { 0, 1, 2, 3 }),
				new NumaDomain(1, new int[] { 4, 5, 6, 7 }));
		// A status file without the line, or with an empty one, is no mask either.
		write(root.resolve("proc/self/status"), "Name:\tjava\nCpus_allowed_list:\t\n");
		assertThat(NumaTopology.read(root, 99).domains()).hasSize(2);
	}

	@Test
	void aCorruptCpulistInAnyNodeDiscardsEveryNodeNotOnlyThoseAfterIt(@TempDir Path root) throws IOException {
		write(root.resolve("sys/devices/system/node/node0/cpulist"), "0-3\n");
		write(root.resolve("sys/devices/system/node/node1/cpulist"), "4-?\n");
		write(root.resolve("proc/self/status"), "Cpus_allowed_list:\t0-7\n");
		// Not node0 alone, which would leave CPUs 4-7 unused: the mask as one domain.
		assertThat(NumaTopology.read(root, 99).domains())
			.containsExactly(new NumaDomain(0, new int[] { 0, 1, 2, 3, 4, 5, 6, 7 }));
		assertThat(NumaTopology.read(root, 99).source()).contains("no NUMA nodes");
	}

	private static void write(Path file, String text) throws IOException {
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
	}
}
