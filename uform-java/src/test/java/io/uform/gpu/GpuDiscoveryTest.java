package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException;
import io.uform.gpu.DeviceFacts.Vendor;

class GpuDiscoveryTest {

	private static final long GIB = 1L << 30;

	@Test
	void listsNvidiaFirstThenAmd() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);

		GpuDiscovery discovery = GpuDiscovery.discover(() -> Optional.of(driver), Fixtures.root("two-mi210"), Map.of());

		assertThat(discovery.devices()).extracting(DeviceFacts::vendor)
			.containsExactly(Vendor.NVIDIA, Vendor.AMD, Vendor.AMD);
		assertThat(discovery.problems()).isEmpty();
		assertThat(discovery.readings(0).utilizationPercent()).isEqualTo(42);
		assertThat(discovery.readings(2).memoryTotalBytes()).isEqualTo(64 * GIB);
	}

	@Test
	void aBrokenNvidiaDriverLeavesAmdDevicesAndAProblem() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		driver.fail("cuInit", 999, "CUDA_ERROR_UNKNOWN");

		GpuDiscovery discovery = GpuDiscovery.discover(() -> Optional.of(driver), Fixtures.root("mi300x"), Map.of());

		assertThat(discovery.devices()).extracting(DeviceFacts::gpuClass).containsExactly("amd-cdna3");
		assertThat(discovery.problems()).singleElement().asString().contains("cuInit failed: CUDA_ERROR_UNKNOWN (999)");
	}

	@Test
	void anyFailureInsideAVendorBecomesAProblemNotAnException(@TempDir Path root) {
		GpuDiscovery discovery = GpuDiscovery.discover(() -> {
			throw new UnsatisfiedLinkError("libcuda.so.1: undefined symbol");
		}, root, Map.of());

		assertThat(discovery.devices()).isEmpty();
		assertThat(discovery.problems()).singleElement().asString().contains("NVIDIA discovery failed", "undefined symbol");
	}

	@Test
	void readingsOfALostGpuAreNoDeviceNamingIt(@TempDir Path root) {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		GpuDiscovery discovery = GpuDiscovery.discover(() -> Optional.of(driver), root, Map.of());
		driver.fail("nvmlDeviceGetMemoryInfo", NvidiaDiscovery.NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST");

		assertThatThrownBy(() -> discovery.readings(0)).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(UformException.Status.NO_DEVICE);
			assertThat(ex.getMessage()).startsWith("GPU 0 (NVIDIA H200, GPU-")
				.contains("is lost: nvmlDeviceGetMemoryInfo returned NVML_ERROR_GPU_IS_LOST")
				.endsWith("Work on it fails until the machine is fixed and this process restarted");
		});
		// Still listed: the list is made once per process.
		assertThat(discovery.devices()).hasSize(1);
	}

	@Test
	void readingsOfAMissingOrdinalAreNoDevice(@TempDir Path root) {
		GpuDiscovery discovery = GpuDiscovery.discover(Optional::empty, root, Map.of());

		assertThat(discovery.devices()).isEmpty();
		assertThat(discovery.problems()).isEmpty();
		assertThat(discovery.notes()).hasSize(2);
		assertThatThrownBy(() -> discovery.readings(0)).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.NO_DEVICE));
	}
}
