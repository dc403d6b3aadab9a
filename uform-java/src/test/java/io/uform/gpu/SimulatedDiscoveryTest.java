package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.gpu.DeviceFacts.Vendor;

class SimulatedDiscoveryTest {

	private static final long GIB = 1L << 30;

	private static final long MIB = 1L << 20;

	@Test
	void simulatedDevicesComeAfterEveryRealOne() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		SimulatedRuntime simulated = new SimulatedRuntime(2, 64 * MIB);

		GpuDiscovery discovery = GpuDiscovery.discover(() -> Optional.of(driver), Fixtures.root("two-mi210"), Map.of(),
				() -> simulated);

		assertThat(discovery.devices()).extracting(DeviceFacts::vendor).containsExactly(Vendor.NVIDIA, Vendor.AMD,
				Vendor.AMD, Vendor.SIMULATED, Vendor.SIMULATED);
		assertThat(discovery.devices().get(4).vendorOrdinal()).isEqualTo(1);
		assertThat(discovery.problems()).isEmpty();
		assertThat(discovery.notes())
			.contains("2 simulated devices of 64 MiB each (configured in code): host memory, not GPUs");
	}

	@Test
	void readingsOfASimulatedDeviceAreItsMemoryOnly(@TempDir Path root) {
		SimulatedRuntime simulated = new SimulatedRuntime(1, 64 * MIB);
		GpuDiscovery discovery = GpuDiscovery.discover(Optional::empty, root, Map.of(), () -> simulated);

		try (DeviceContext device = simulated.open(0)) {
			device.allocate(MIB);

			assertThat(discovery.readings(0)).isEqualTo(new Readings(MIB, 64 * MIB, null, null, null));
		}
		assertThat(discovery.readings(0).memoryUsedBytes()).isZero();
	}

	@Test
	void noneWithoutOptingIn(@TempDir Path root) {
		SimulatedRuntime off = new SimulatedRuntime(SimulatedDevices.from(new Properties(), Map.of()));

		GpuDiscovery discovery = GpuDiscovery.discover(Optional::empty, root, Map.of(), () -> off);

		assertThat(discovery.devices()).isEmpty();
		assertThat(discovery.problems()).isEmpty();
		assertThat(discovery.notes()).noneMatch((note) -> note.contains("simulated"));
	}

	@Test
	void theOldOverloadNeverListsThem(@TempDir Path root) {
		GpuDiscovery discovery = GpuDiscovery.discover(Optional::empty, root, Map.of("UFORM_DEVICES_SIMULATED", "2"));

		assertThat(discovery.devices()).isEmpty();
	}

	@Test
	void aBadSettingIsAProblemAndNoDevice(@TempDir Path root) {
		SimulatedRuntime bad = new SimulatedRuntime(
				SimulatedDevices.from(new Properties(), Map.of("UFORM_DEVICES_SIMULATED", "many")));

		GpuDiscovery discovery = GpuDiscovery.discover(Optional::empty, root, Map.of(), () -> bad);

		assertThat(discovery.devices()).isEmpty();
		assertThat(discovery.problems()).singleElement().asString()
			.contains("UFORM_DEVICES_SIMULATED = \"many\" is not a device count");
	}

	@Test
	void aFailingSimulatedRuntimeIsAProblemNotAnException(@TempDir Path root) {
		GpuDiscovery discovery = GpuDiscovery.discover(Optional::empty, root, Map.of(), () -> {
			throw new IllegalStateException("boom");
		});

		assertThat(discovery.devices()).isEmpty();
		assertThat(discovery.problems()).singleElement().asString().contains("Simulated device discovery failed", "boom");
	}
}
