package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.uform.UformException;
import io.uform.gpu.DeviceFacts.Vendor;

class NvidiaDiscoveryTest {

	private static final long GIB = 1L << 30;

	private static GpuScan scan(FakeCudaDriver driver) {
		return new NvidiaDiscovery(() -> Optional.of(driver)).scan();
	}

	private static List<DeviceFacts> devices(GpuScan scan) {
		return scan.gpus().stream().map(FoundGpu::device).toList();
	}

	@Test
	void describesEachDeviceFromCudaAndNvml() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x2c);

		GpuScan scan = scan(driver);

		assertThat(scan.problems()).isEmpty();
		assertThat(devices(scan)).hasSize(2);
		DeviceFacts first = devices(scan).get(0);
		assertThat(first.vendor()).isEqualTo(Vendor.NVIDIA);
		assertThat(first.vendorOrdinal()).isZero();
		assertThat(first.gpuClass()).isEqualTo("nvidia-hopper");
		assertThat(first.computeUnits()).isEqualTo(132);
		assertThat(first.memoryBytes()).isEqualTo(141 * GIB);
		assertThat(first.name()).isEqualTo("NVIDIA H200");
		assertThat(first.pciBusId()).isEqualTo("0000:1b:00.0");
		assertThat(first.uuid()).isEqualTo("GPU-bbbcbdbe-bfc0-c1c2-c3c4-c5c6c7c8c9ca");
		assertThat(devices(scan).get(1).pciBusId()).isEqualTo("0000:2c:00.0");
		assertThat(scan.notes()).anySatisfy((note) -> assertThat(note).contains("CUDA driver 12.6"));
	}

	@Test
	void keepsCudaOrderAndTakesVendorOrdinalsFromNvmlByPciAddress() {
		FakeCudaDriver driver = new FakeCudaDriver();
		for (int bus = 0x10; bus < 0x50; bus += 0x10) {
			driver.gpu("NVIDIA A100-SXM4-80GB", 8, 0, 108, 80 * GIB, bus);
		}
		// CUDA_VISIBLE_DEVICES=3,1: CUDA renumbers them 0 and 1; NVML (nvidia-smi) lists all four,
		// in an order of its own, so the position in NVML's list is what vendorOrdinal must carry.
		driver.visible(3, 1).nvmlOrder(2, 3, 0, 1);

		List<DeviceFacts> devices = devices(scan(driver));

		assertThat(devices).extracting(DeviceFacts::pciBusId).containsExactly("0000:40:00.0", "0000:20:00.0");
		assertThat(devices).extracting(DeviceFacts::vendorOrdinal).containsExactly(1, 3);
		assertThat(devices).extracting(DeviceFacts::gpuClass).containsOnly("nvidia-ampere");
	}

	@Test
	void matchesPciAddressesAsNumbersNotStrings() {
		FakeCudaDriver driver = new FakeCudaDriver();
		FakeCudaDriver.Gpu gpu = driver.gpu("Tesla T4", 7, 5, 40, 15 * GIB, 0xaf);
		gpu.cudaPciBusId = "0000:AF:00.0";
		gpu.nvmlPciBusId = "00000000:af:00.0";

		DeviceFacts device = devices(scan(driver)).get(0);

		assertThat(device.vendorOrdinal()).isZero();
		assertThat(device.pciBusId()).isEqualTo("0000:af:00.0");
		assertThat(device.gpuClass()).isEqualTo("nvidia-turing");
	}

	@Test
	void withoutNvmlFormatsTheCudaUuidAndLeavesTheVendorOrdinalUnknown() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA L4", 8, 9, 58, 22 * GIB, 0x01);
		driver.fail("nvmlInit_v2", 12, "NVML_ERROR_LIBRARY_NOT_FOUND");

		GpuScan scan = scan(driver);

		DeviceFacts device = devices(scan).get(0);
		assertThat(device.uuid()).isEqualTo("GPU-a1a2a3a4-a5a6-a7a8-a9aa-abacadaeafb0");
		assertThat(device.vendorOrdinal()).isEqualTo(-1);
		assertThat(device.gpuClass()).isEqualTo("nvidia-ada");
		assertThat(scan.problems()).singleElement().asString().contains("NVML_ERROR_LIBRARY_NOT_FOUND");
		assertThat(scan.gpus().get(0).readings().get())
			.isEqualTo(new Readings(null, 22 * GIB, null, null, null));
	}

	@Test
	void readsLiveValuesFromNvmlAndLeavesUnsupportedOnesEmpty() {
		FakeCudaDriver driver = new FakeCudaDriver();
		FakeCudaDriver.Gpu gpu = driver.gpu("NVIDIA B200", 10, 0, 148, 180 * GIB, 0x05);
		gpu.milliwatts = null;
		gpu.celsius = null;

		GpuScan scan = scan(driver);
		Readings now = scan.gpus().get(0).readings().get();

		assertThat(devices(scan).get(0).gpuClass()).isEqualTo("nvidia-blackwell");
		assertThat(now.memoryTotalBytes()).isEqualTo(180 * GIB);
		assertThat(now.memoryUsedBytes()).isEqualTo(45 * GIB);
		assertThat(now.utilizationPercent()).isEqualTo(42);
		assertThat(now.powerWatts()).isNull();
		assertThat(now.temperatureCelsius()).isNull();
	}

	@Test
	void aGpuTheDriverCallsLostFailsItsReadingsInsteadOfGivingGaps() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, 80 * GIB, 0x18);
		GpuScan scan = scan(driver);
		// It fell off the bus after discovery: NVML now answers every call with GPU_IS_LOST.
		driver.fail("nvmlDeviceGetMemoryInfo", NvidiaDiscovery.NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST");

		assertThatThrownBy(() -> scan.gpus().get(0).readings().get()).isInstanceOf(DeviceLostException.class)
			.hasMessageContaining("nvmlDeviceGetMemoryInfo returned NVML_ERROR_GPU_IS_LOST")
			.hasMessageContaining("fell off the bus");
	}

	@Test
	void otherReadingFailuresStillLeaveGaps() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, 80 * GIB, 0x18);
		GpuScan scan = scan(driver);
		driver.fail("nvmlDeviceGetPowerUsage", 4, "NVML_ERROR_NO_PERMISSION");

		Readings now = scan.gpus().get(0).readings().get();

		assertThat(now.powerWatts()).isNull();
		assertThat(now.temperatureCelsius()).isEqualTo(37.0);
	}

	@Test
	void convertsPowerToWatts() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, 80 * GIB, 0x18);

		Readings now = scan(driver).gpus().get(0).readings().get();

		assertThat(now.powerWatts()).isEqualTo(350.5);
		assertThat(now.temperatureCelsius()).isEqualTo(37.0);
	}

	@Test
	void givesNoClassToComputeCapabilitiesNewerThanTheTable() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA Future", 13, 0, 200, 288 * GIB, 0x07);

		DeviceFacts device = devices(scan(driver)).get(0);

		assertThat(device.gpuClass()).isNull();
		assertThat(device.computeUnits()).isEqualTo(200);
	}

	@Test
	void skipsNvmlDevicesThatFailAndReportsThem() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA A10", 8, 6, 72, 24 * GIB, 0x3b);
		driver.fail("nvmlDeviceGetPciInfo_v3", 15, "NVML_ERROR_GPU_IS_LOST");

		GpuScan scan = scan(driver);

		assertThat(devices(scan).get(0).vendorOrdinal()).isEqualTo(-1);
		assertThat(scan.problems()).singleElement().asString().contains("NVML_ERROR_GPU_IS_LOST");
	}

	@Test
	void nvmlDevicesThisProcessMayNotOpenAreOnlyNoted() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA A10", 8, 6, 72, 24 * GIB, 0x3b);
		driver.fail("nvmlDeviceGetPciInfo_v3", 4, "NVML_ERROR_NO_PERMISSION");

		GpuScan scan = scan(driver);

		assertThat(scan.problems()).isEmpty();
		assertThat(scan.notes()).anySatisfy((note) -> assertThat(note).contains("NVML_ERROR_NO_PERMISSION"));
	}

	@Test
	void noLibraryMeansNoDevicesAndNoProblem() {
		GpuScan scan = new NvidiaDiscovery(Optional::empty).scan();

		assertThat(scan.gpus()).isEmpty();
		assertThat(scan.problems()).isEmpty();
		assertThat(scan.notes()).singleElement().asString().contains("libcuda.so.1 not found");
	}

	@Test
	void noDeviceFromTheDriverMeansAnEmptyList() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		driver.fail("cuInit", CudaDriver.CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE");

		GpuScan scan = scan(driver);

		assertThat(scan.gpus()).isEmpty();
		assertThat(scan.problems()).isEmpty();
		assertThat(driver.calls).containsExactly("cuInit");
	}

	@Test
	void anEmptyVisibleListMeansAnEmptyList() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		driver.visible();

		assertThat(scan(driver).gpus()).isEmpty();
		assertThat(driver.calls).doesNotContain("nvmlInit_v2");
	}

	@Test
	void aBrokenDriverIsADeviceErrorNamingTheCallAndStatus() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		driver.fail("cuInit", 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");

		assertThatThrownBy(() -> scan(driver)).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(UformException.Status.DEVICE_ERROR);
			assertThat(ex.getMessage()).contains("cuInit", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "803", "nvidia-smi");
		});
	}

	@Test
	void aFailingDeviceQueryIsADeviceError() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("NVIDIA H200", 9, 0, 132, 141 * GIB, 0x1b);
		driver.fail("cuDeviceTotalMem_v2", 999, "CUDA_ERROR_UNKNOWN");

		assertThatThrownBy(() -> scan(driver)).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.getMessage()).contains("cuDeviceTotalMem_v2 failed: CUDA_ERROR_UNKNOWN (999)"));
	}

	@Test
	void aLibraryMissingSymbolsIsADeviceError() {
		NvidiaDiscovery discovery = new NvidiaDiscovery(() -> {
			throw new DriverCallException("cuDeviceTotalMem_v2", DriverCallException.NOT_LOADED,
					"symbol missing from libcuda.so.1 (driver too old or damaged)");
		});

		assertThatThrownBy(discovery::scan).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.getMessage()).contains("symbol missing"));
	}

	@Test
	void formatsUuidBytesAsNvmlDoes() {
		byte[] bytes = new byte[16];
		for (int i = 0; i < 16; i++) {
			bytes[i] = (byte) (i * 17);
		}

		assertThat(NvidiaDiscovery.formatUuid(bytes)).isEqualTo("GPU-00112233-4455-6677-8899-aabbccddeeff");
	}

	@Test
	void aMigSliceIsDescribedByItsOwnUuidAndMemoryNotItsParentGpus() {
		FakeCudaDriver driver = new FakeCudaDriver();
		FakeCudaDriver.Gpu slice = driver.gpu("NVIDIA A100-SXM4-80GB MIG 1g.10gb", 8, 0, 14, 10 * GIB, 0x1b);
		String parentUuid = slice.nvmlUuid;
		// cuDeviceGetUuid_v2 gives the slice's own UUID; NVML, matched by PCI address, the whole GPU's.
		slice.uuidBytes = new byte[] { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88, 0x11, 0x22, 0x33, 0x44,
				0x55, 0x66, 0x77, (byte) 0x88 };
		slice.nvmlMemory = new CudaDriver.NvmlMemory(80 * GIB, 20 * GIB);
		GpuScan scan = scan(driver);
		DeviceFacts device = devices(scan).get(0);
		assertThat(device.uuid()).isEqualTo("MIG-11223344-5566-7788-1122-334455667788").isNotEqualTo(parentUuid);
		assertThat(device.memoryBytes()).isEqualTo(10 * GIB);
		assertThat(device.vendorOrdinal()).as("nvidia-smi's index of the parent GPU").isZero();
		Readings now = scan.gpus().get(0).readings().get();
		assertThat(now.memoryTotalBytes()).as("the slice's memory, not the GPU's").isEqualTo(10 * GIB);
		assertThat(now.memoryUsedBytes()).as("the parent's use counts other tenants' slices").isNull();
	}

	@Test
	void aWholeGpuKeepsNvmlsUuidAndReadings() {
		FakeCudaDriver driver = new FakeCudaDriver();
		FakeCudaDriver.Gpu gpu = driver.gpu("NVIDIA A100-SXM4-80GB", 8, 0, 108, 80 * GIB, 0x1b);
		GpuScan scan = scan(driver);
		assertThat(devices(scan).get(0).uuid()).isEqualTo(gpu.nvmlUuid).startsWith("GPU-");
		assertThat(scan.gpus().get(0).readings().get().memoryUsedBytes()).isEqualTo(20 * GIB);
	}
}
