package io.uform.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.ExecutorForRamConfig;
import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class HostPlacementTest {

	private static final CpuClasses ZEN4 = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));

	@Test
	void threadsSpreadOverTwoDomainsInContiguousRuns() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-two-socket"), 99);
		HostPlacement placement = resolve(ExecutorForRamConfig.defaults().withThreads(4), topology, ZEN4,
				64);
		assertThat(placement.colocationOfThread()).containsExactly(0, 0, 1, 1);
		assertThat(placement.colocations()).isEqualTo(2);
		assertThat(placement.cpusOf(1)).containsExactly(0, 1, 2, 3, 8, 9, 10, 11);
		assertThat(placement.cpusOf(3)).containsExactly(4, 5, 6, 7, 12, 13, 14, 15);
		assertThat(placement.cpuClass()).isEqualTo("amd-genoa");
	}

	@Test
	void defaultThreadsAreSevenEighthsOfBothSockets() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-two-socket"), 99);
		HostPlacement placement = resolve(ExecutorForRamConfig.defaults(), topology, ZEN4, 64);
		assertThat(placement.threads()).isEqualTo(14);
		assertThat(placement.colocationOfThread()).containsExactly(0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1);
	}

	@Test
	void memoryDomainsPickOneSocketInConfigOrder() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-two-socket"), 99);
		HostPlacement placement = resolve(
				ExecutorForRamConfig.defaults().withMemoryDomains(List.of(1, 0)).withThreads(2), topology, ZEN4, 64);
		assertThat(placement.domains()).extracting(NumaDomain::id).containsExactly(1, 0);
		assertThat(placement.cpusOf(0)).containsExactly(4, 5, 6, 7, 12, 13, 14, 15);
		assertThat(placement.cpusOf(1)).containsExactly(0, 1, 2, 3, 8, 9, 10, 11);
	}

	@Test
	void cgroupQuotaBoundsTheDefaultThreadsEvenWhenTheJvmCountIsHigher() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-container-cpuset"), 99);
		HostPlacement placement = resolve(ExecutorForRamConfig.defaults(), topology, ZEN4, 64);
		assertThat(placement.threads()).isEqualTo(2);
		assertThat(placement.colocationOfThread()).containsExactly(0, 1);
	}

	@Test
	void memoryOnlyNodeIsRefusedWithTheNodesThatExist() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-cxl-memory-node"), 99);
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> resolve(ExecutorForRamConfig.defaults().withMemoryDomains(List.of(2)),
					topology, ZEN4, 64))
			.withMessageContaining("node 2 does not exist or has no CPU")
			.withMessageContaining("[0, 1]");
	}

	@Test
	void cpuClassIsCheckedAgainstTheMachine() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-two-socket"), 99);
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> resolve(ExecutorForRamConfig.defaults().withCpuClass("arm-sve"), topology,
					ZEN4, 64))
			.withMessageContaining("lacks");
	}

	@Test
	void threadsSpreadOverThreeUnequalDomainsInProportionToTheirCpus(@TempDir Path root) throws IOException {
		write(root.resolve("sys/devices/system/node/node0/cpulist"), "0-3\n");
		write(root.resolve("sys/devices/system/node/node1/cpulist"), "4-7\n");
		write(root.resolve("sys/devices/system/node/node2/cpulist"), "8-15\n");
		NumaTopology topology = NumaTopology.read(root, 99);
		HostPlacement placement = resolve(ExecutorForRamConfig.defaults().withThreads(8), topology, ZEN4,
				64);
		// 4, 4 and 8 CPUs of 16: a quarter, a quarter and a half of the threads.
		assertThat(placement.colocationOfThread()).containsExactly(0, 0, 1, 1, 2, 2, 2, 2);
		assertThat(placement.cpusOf(7)).containsExactly(8, 9, 10, 11, 12, 13, 14, 15);
	}

	@Test
	void threadsUpToMaxThreadsAreAccepted() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-two-socket"), 99);
		HostPlacement placement = resolve(
				ExecutorForRamConfig.defaults().withThreads(HostPlacement.MAX_THREADS), topology, ZEN4, 64);
		assertThat(placement.threads()).isEqualTo(HostPlacement.MAX_THREADS);
		assertThat(placement.colocationOfThread()).hasSize(HostPlacement.MAX_THREADS);
	}

	@Test
	void aGivenDeferredLimitIsKeptDownToOne() {
		NumaTopology topology = NumaTopology.read(Fixtures.root("numa-two-socket"), 99);
		assertThat(resolve(ExecutorForRamConfig.defaults().withDeferredLimit(1), topology, ZEN4, 64)
			.deferredLimit()).isEqualTo(1);
		assertThat(resolve(ExecutorForRamConfig.defaults().withDeferredLimit(500), topology, ZEN4, 64)
			.deferredLimit()).isEqualTo(500);
		assertThat(resolve(ExecutorForRamConfig.defaults(), topology, ZEN4, 64).deferredLimit())
			.isEqualTo(ExecutorForRamConfig.DEFAULT_DEFERRED_LIMIT);
	}

	private static void write(Path file, String text) throws IOException {
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
	}

	/** What {@code Executor.forRam(config)} asks of the runtime, as the API passes it. */
	private static HostPlacement resolve(ExecutorForRamConfig config, NumaTopology topology, CpuClasses cpuClasses,
			int availableProcessors) {
		HostPlacement.Request request = new HostPlacement.Request(config.memoryDomains(), config.threads(),
				config.cpuClass(), config.deferredLimit(), ExecutorForRamConfig.DEFAULT_DEFERRED_LIMIT);
		return HostPlacement.resolve(request, topology, cpuClasses, availableProcessors, Fixtures.ERRORS);
	}
}
