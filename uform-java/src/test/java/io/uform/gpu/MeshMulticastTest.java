package io.uform.gpu;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.gpu.DeviceFacts.Vendor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mesh's question to the CUDA driver, {@code CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED}: asked by
 * CUDA ordinal (after {@code CUDA_VISIBLE_DEVICES}), never for other vendors, and "no" whenever the
 * driver cannot answer.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MeshMulticastTest {

	private static final DeviceFacts NVIDIA = new DeviceFacts(Vendor.NVIDIA, 0, "nvidia-hopper", 132, 80L << 30, "H100",
			"GPU-1", null);

	@Test
	void anNvidiaDeviceIsAskedByItsCudaOrdinal() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("H100", 9, 0, 132, 80L << 30, 0x1b).multicast = 0;
		driver.gpu("H100", 9, 0, 132, 80L << 30, 0x2c).multicast = 1;
		NvlinkMulticast probe = new NvlinkMulticast(() -> Optional.of(driver));
		assertThat(probe.supported(NVIDIA, 0)).isFalse();
		assertThat(probe.supported(NVIDIA, 1)).isTrue();
		// With CUDA_VISIBLE_DEVICES=1 the second GPU is CUDA ordinal 0.
		driver.visible(1);
		assertThat(probe.supported(NVIDIA, 0)).isTrue();
		assertThat(driver.calls).contains("cuInit", "cuDeviceGet", "cuDeviceGetAttribute");
	}

	@Test
	void aDriverThatCannotAnswerMeansPeerReads() {
		FakeCudaDriver driver = new FakeCudaDriver();
		driver.gpu("V100", 7, 0, 80, 32L << 30, 0x1b);
		assertThat(new NvlinkMulticast(() -> Optional.of(driver)).supported(NVIDIA, 0)).isFalse();
		assertThat(new NvlinkMulticast(Optional::empty).supported(NVIDIA, 0)).isFalse();
		assertThat(new NvlinkMulticast(() -> {
			throw new DriverCallException("cuInit", 999, "CUDA_ERROR_UNKNOWN");
		}).supported(NVIDIA, 0)).isFalse();
		FakeCudaDriver failing = new FakeCudaDriver();
		failing.gpu("H100", 9, 0, 132, 80L << 30, 0x1b).multicast = 1;
		failing.fail("cuInit", 3, "CUDA_ERROR_NOT_INITIALIZED");
		assertThat(new NvlinkMulticast(() -> Optional.of(failing)).supported(NVIDIA, 0)).isFalse();
	}

	@Test
	void otherVendorsAreNeverAsked() {
		FakeCudaDriver driver = new FakeCudaDriver();
		NvlinkMulticast probe = new NvlinkMulticast(() -> Optional.of(driver));
		DeviceFacts simulated = new DeviceFacts(Vendor.SIMULATED, 0, "simulated", 1, 1L << 20, "simulated", null, null);
		DeviceFacts amd = new DeviceFacts(Vendor.AMD, 0, "amd-cdna3", 304, 192L << 30, "MI300X", null, null);
		assertThat(probe.supported(simulated, 0)).isFalse();
		assertThat(probe.supported(amd, 0)).isFalse();
		assertThat(driver.calls).isEmpty();
	}
}
