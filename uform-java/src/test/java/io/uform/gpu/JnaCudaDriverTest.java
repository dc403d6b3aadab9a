package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.uform.GpuVendor;
import io.uform.Uform;

/**
 * The real JNA binding on the machine the tests run on. CI has no NVIDIA driver, so what is tested
 * here is that its absence is quiet; {@code scripts/gpu-check.sh} exercises the binding on a GPU.
 */
class JnaCudaDriverTest {

	@Test
	void loadsOrReportsAbsenceWithoutThrowing() {
		assertThatCode(JnaCudaDriver::load).doesNotThrowAnyException();
	}

	@Test
	void aMachineWithoutTheDriverListsNoNvidiaDevicesAndNoProblem() {
		Optional<CudaDriver> driver = JnaCudaDriver.load();
		org.junit.jupiter.api.Assumptions.assumeTrue(driver.isEmpty(),
				"libcuda.so.1 is installed here; scripts/gpu-check.sh covers machines with a driver");

		assertThat(Uform.gpuDevices()).noneMatch((gpu) -> gpu.vendor() == GpuVendor.NVIDIA);
		assertThat(GpuDiscovery.system().problems()).noneMatch((problem) -> problem.startsWith("NVIDIA"));
		assertThat(GpuDiscovery.system().notes()).anyMatch((note) -> note.contains("libcuda.so.1 not found"));
	}

	@Test
	void discoveryIsCached() {
		assertThat(GpuDiscovery.system()).isSameAs(GpuDiscovery.system());
		assertThat(Uform.gpuDevices()).isSameAs(Uform.gpuDevices());
	}
}
