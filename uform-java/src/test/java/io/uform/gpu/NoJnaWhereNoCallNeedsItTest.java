package io.uform.gpu;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.ChildJvm;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Uform;
import io.uform.host.NumaTopology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On a machine with one NUMA node and no sign of an NVIDIA driver (this project's CI machines), an
 * application's start (GPU discovery, uform's preinitialization, a RAM executor whose workers are
 * pinned) loads no JNA class: loading JNA costs 100-200 ms of CPU in a cold JVM, and nothing there
 * needs a native call. A fresh JVM, since this one has loaded JNA long ago; its class-loading log says
 * what it loaded. Skipped, saying why, on a machine of another kind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoJnaWhereNoCallNeedsItTest {

	@Test
	void discoveryAndAPinnedRamExecutorLoadNoJnaClass() throws Exception {
		assumeTrue(System.getProperty("os.name", "").startsWith("Linux"), "pinning and discovery as on Linux");
		assumeTrue(NumaTopology.system().machineNodes() == 1,
				() -> "this machine has several NUMA nodes, whose workers do pin: " + NumaTopology.system().describe());
		assumeTrue(!NvidiaDriverFiles.mayBePresent(), "this machine shows signs of an NVIDIA driver, which is opened");
		ChildJvm.Result result = ChildJvm.run(StartsWithoutJna.class, List.of("-verbose:class"), 40);
		assertThat(result.exitCode()).as("child output:%n%s", result.output()).isZero();
		assertThat(result.output()).contains("pinning=pinned").contains("nvidia=NVIDIA: libcuda.so.1 not found");
		assertThat(result.output().lines().filter((line) -> line.contains("com.sun.jna.")))
			.as("JNA classes loaded").isEmpty();
	}

	/** What an application's start does with uform, then what it saw. */
	public static final class StartsWithoutJna {

		public static void main(String[] args) {
			Uform.preinitialize();
			int devices = Uform.gpuDevices().size();
			String nvidia = String.join("; ", GpuDiscovery.system().notes());
			try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
				executor.forThreads((thread, colocation) -> {
				});
				System.out.println("pinning=" + executor.statistics().pinning() + " devices=" + devices + " nvidia="
						+ nvidia);
			}
		}
	}
}
