package io.uform;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.uform.UformException.Status;
import io.uform.host.HostPlacement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Config validation: a bad value fails with {@code INVALID_ARGUMENT} naming the field and the value;
 * absent values derive documented defaults. Also the entry points this version does not build yet.
 */
class ExecutorConfigTest {

	@Test
	void zeroOrNegativeThreadsAreRejectedByName() {
		assertInvalid(ExecutorForRamConfig.defaults().withThreads(0), "threads = 0", "at least 1");
		assertInvalid(ExecutorForRamConfig.defaults().withThreads(-3), "threads = -3", "at least 1");
		assertInvalid(ExecutorForRamConfig.defaults().withThreads(HostPlacement.MAX_THREADS + 1),
				"threads = " + (HostPlacement.MAX_THREADS + 1), "at most");
	}

	@Test
	void zeroDeferredLimitIsRejectedByName() {
		assertInvalid(ExecutorForRamConfig.defaults().withDeferredLimit(0), "deferredLimit = 0", "at least 1");
		assertInvalid(ExecutorForRamConfig.defaults().withDeferredLimit(-1), "deferredLimit = -1", "at least 1");
	}

	@Test
	void unknownEmptyDuplicateOrNullMemoryDomainsAreRejectedByName() {
		assertInvalid(ExecutorForRamConfig.defaults().withMemoryDomains(List.of(99)), "memoryDomains = [99]",
				"node 99 does not exist");
		assertInvalid(ExecutorForRamConfig.defaults().withMemoryDomains(List.of()), "memoryDomains = []",
				"at least one NUMA node");
		assertInvalid(ExecutorForRamConfig.defaults().withMemoryDomains(List.of(0, 0)), "memoryDomains = [0, 0]",
				"twice");
		assertInvalid(ExecutorForRamConfig.defaults().withMemoryDomains(Arrays.asList(0, null)),
				"memoryDomains = [0, null]", "null entry");
	}

	@Test
	void unknownCpuClassListsThisArchitecturesClasses() {
		assertInvalid(ExecutorForRamConfig.defaults().withCpuClass("intel-pentium"), "cpuClass = 'intel-pentium'",
				"serial");
	}

	@Test
	void everyVramFieldHasAWitherThatChangesItAlone() {
		ExecutorForVramConfig config = ExecutorForVramConfig.defaults()
			.withDevices(List.of(1))
			.withGpuClass("nvidia-hopper")
			.withMemoryDomains(List.of(0))
			.withCpuClass("serial")
			.withStreams(List.of(7L))
			.withScratchLimit(1024L)
			.withDeferredLimit(8);
		assertThat(config).isEqualTo(new ExecutorForVramConfig(List.of(1), "nvidia-hopper", List.of(0), "serial",
				List.of(7L), 1024L, 8));
		assertThat(config.withMemoryDomains(null).memoryDomains()).isNull();
		assertThat(config.withCpuClass(null)).isEqualTo(new ExecutorForVramConfig(List.of(1), "nvidia-hopper",
				List.of(0), null, List.of(7L), 1024L, 8));
		assertThat(config.withStreams(null).streams()).isNull();
	}

	@Test
	void absentFieldsDeriveFromTheMachine() {
		try (Executor executor = Executor.forRam()) {
			int cores = Runtime.getRuntime().availableProcessors();
			assertThat(executor.threads()).isEqualTo(HostPlacement.defaultThreads(cores));
			assertThat(executor.statistics().deferredLimit()).isEqualTo(ExecutorForRamConfig.DEFAULT_DEFERRED_LIMIT);
		}
	}

	@Test
	void defaultThreadsAreSevenEighthsOfTheCoresAndAtLeastOne() {
		assertThat(HostPlacement.defaultThreads(0)).isEqualTo(1);
		assertThat(HostPlacement.defaultThreads(1)).isEqualTo(1);
		assertThat(HostPlacement.defaultThreads(2)).isEqualTo(2);
		assertThat(HostPlacement.defaultThreads(7)).isEqualTo(7);
		assertThat(HostPlacement.defaultThreads(8)).isEqualTo(7);
		assertThat(HostPlacement.defaultThreads(16)).isEqualTo(14);
		assertThat(HostPlacement.defaultThreads(192)).isEqualTo(168);
	}

	@Test
	void configsAreImmutable() {
		List<Integer> domains = new java.util.ArrayList<>(List.of(0));
		ExecutorForRamConfig config = ExecutorForRamConfig.defaults().withMemoryDomains(domains);
		domains.add(1);
		assertThat(config.memoryDomains()).containsExactly(0);
		assertThatThrownBy(() -> config.memoryDomains().add(2)).isInstanceOf(UnsupportedOperationException.class);
	}

	@Test
	void forVramReportsNoDeviceWhereThereIsNoGpu() {
		org.junit.jupiter.api.Assumptions.assumeTrue(Uform.gpuDevices().isEmpty(), "this machine has a GPU");
		assertThatThrownBy(() -> Executor.forVram(ExecutorForVramConfig.defaults())).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.NO_DEVICE))
			.hasMessageContaining("No GPU found");
	}

	@Test
	void onPoolReportsUnsupported() {
		assertThatThrownBy(() -> Executor.onPool(0x1000L, ExecutorOnPoolConfig.defaults()))
			.isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.UNSUPPORTED))
			.hasMessageContaining("onPool");
	}

	@Test
	void meshBootstrapRefusesARamExecutorNamingTheFix() {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThatThrownBy(() -> Mesh.bootstrap(executor, MeshOptions.defaults())).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
				.hasMessageContaining("is a RAM executor")
				.hasMessageContaining("Executor.forVram()");
		}
	}

	@Test
	void missingArgumentsAreRejectedByNameNotWithANullPointerException() {
		assertInvalidCall(() -> Executor.forRam(null), "config = null", "ExecutorForRamConfig.defaults()");
		assertInvalidCall(() -> Executor.forVram(null), "config = null", "ExecutorForVramConfig.defaults()");
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertInvalidCall(() -> executor.forN(3, (ProngTask) null), "task = null", "work to run");
			assertInvalidCall(() -> executor.forN(3, (java.util.function.IntConsumer) null), "task = null", "work to run");
			assertInvalidCall(() -> executor.forNDynamic(3, (ProngTask) null), "task = null", "work to run");
			assertInvalidCall(() -> executor.forSlices(3, null), "task = null", "work to run");
			assertInvalidCall(() -> executor.forThreads(null), "task = null", "work to run");
			assertInvalidCall(() -> executor.defer((Runnable) null), "deferred call = null", "Callable or Runnable");
			assertInvalidCall(() -> executor.drain(null), "mood = null", "Mood.PARKED");
			assertInvalidCall(() -> Mesh.bootstrap(executor, null), "options = null", "MeshOptions.defaults()");
			assertInvalidCall(() -> Mesh.bootstrap(null, MeshOptions.defaults()), "executor = null", "VRAM executor");
		}
	}

	private static void assertInvalidCall(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String argument,
			String fix) {
		assertThatThrownBy(call).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining(argument)
			.hasMessageContaining(fix);
	}

	@Test
	void gpuVendorCodesMatchTheCAbi() {
		assertThat(GpuVendor.UNKNOWN.code()).isZero();
		assertThat(GpuVendor.NVIDIA.code()).isEqualTo(1);
		assertThat(GpuVendor.AMD.code()).isEqualTo(2);
		assertThat(GpuVendor.APPLE.code()).isEqualTo(3);
		assertThat(GpuVendor.ofCode(7)).isEqualTo(GpuVendor.UNKNOWN);
		assertThat(MultimemTier.SWITCH_REDUCED.label()).isEqualTo("switch-reduced");
		assertThat(MultimemTier.PEER_READ.label()).isEqualTo("peer-read");
	}

	private static void assertInvalid(ExecutorForRamConfig config, String fieldAndValue, String fix) {
		assertThatThrownBy(() -> Executor.forRam(config)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining(fieldAndValue)
			.hasMessageContaining(fix);
	}
}
