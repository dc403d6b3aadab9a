package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

import io.uform.UformException;
import io.uform.UformException.Status;
import io.uform.gpu.DeviceContext.KernelArgument;

/**
 * The real JNA binding for compute on the machine the tests run on. CI has no NVIDIA driver, so what
 * is tested here is that its absence is quiet, and the native memory the binding hands the driver
 * (kernel parameters, the PTX image, the JIT options), which JNA alone can check;
 * {@code scripts/gpu-check.sh} exercises the binding on a GPU.
 */
class JnaCudaComputeTest {

	@Test
	void loadsOrReportsAbsenceWithoutThrowing() {
		assertThatCode(JnaCudaCompute::load).doesNotThrowAnyException();
	}

	@Test
	void withoutTheDriverLoadIsEmptyAndOpeningADeviceIsNoDevice() {
		Optional<CudaCompute> compute = JnaCudaCompute.load();
		org.junit.jupiter.api.Assumptions.assumeTrue(compute.isEmpty(),
				"libcuda.so.1 is installed here; scripts/gpu-check.sh covers machines with a driver");

		assertThatThrownBy(() -> CudaRuntime.system().open(0)).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(Status.NO_DEVICE);
			assertThat(ex.getMessage()).contains("libcuda.so.1 not found");
		});
	}

	@Test
	void theSystemRuntimeIsMadeOnce() {
		assertThat(CudaRuntime.system()).isSameAs(CudaRuntime.system());
		assertThat(CudaRuntime.system().name()).isEqualTo("cuda");
	}

	@Test
	void kernelParametersAreAnArrayOfAddressesOfOneSlotPerArgument() {
		KernelArgument[] arguments = { new KernelArgument(8, 0x7F00_0000_1000L), new KernelArgument(4, 1024),
			new KernelArgument(4, Float.floatToRawIntBits(-2.5f)), new KernelArgument(8, -1L) };
		Memory[] slots = new Memory[arguments.length];

		Memory parameters = JnaCudaCompute.kernelParameters(arguments, slots);

		assertThat(parameters.size()).isEqualTo(4L * Native.POINTER_SIZE);
		for (int i = 0; i < arguments.length; i++) {
			Pointer slot = parameters.getPointer((long) i * Native.POINTER_SIZE);
			assertThat(Pointer.nativeValue(slot)).isEqualTo(Pointer.nativeValue(slots[i]));
			assertThat(slots[i].size()).isEqualTo(arguments[i].bytes());
		}
		assertThat(slots[0].getLong(0)).isEqualTo(0x7F00_0000_1000L);
		assertThat(slots[1].getInt(0)).isEqualTo(1024);
		assertThat(Float.intBitsToFloat(slots[2].getInt(0))).isEqualTo(-2.5f);
		assertThat(slots[3].getLong(0)).isEqualTo(-1L);
		// Little-endian in memory: the low byte of the value comes first.
		assertThat(slots[1].getByte(0)).isEqualTo((byte) 0x00);
		assertThat(slots[1].getByte(1)).isEqualTo((byte) 0x04);
	}

	@Test
	void noArgumentsPassNoParameterArray() {
		assertThat(JnaCudaCompute.kernelParameters(new KernelArgument[0], new Memory[0])).isNull();
		assertThat(JnaCudaCompute.kernelParameters(null, new Memory[0])).isNull();
	}

	@Test
	void thePtxImageIsNulTerminated() {
		String ptx = ".version 8.0\n.target sm_80\n";

		Memory image = JnaCudaCompute.image(ptx);

		assertThat(image.size()).isEqualTo(ptx.length() + 1L);
		assertThat(image.getByte(ptx.length())).isZero();
		assertThat(image.getString(0, StandardCharsets.UTF_8.name())).isEqualTo(ptx);
	}

	@Test
	void theJitOptionsAskForTheErrorLogWithItsSizeInTheValueSlot() {
		Memory options = new Memory(8);
		Memory values = new Memory(2L * Native.POINTER_SIZE);
		Memory log = new Memory(JnaCudaCompute.JIT_LOG_BYTES);

		JnaCudaCompute.jitOptions(options, values, log);

		assertThat(options.getInt(0)).isEqualTo(5); // CU_JIT_ERROR_LOG_BUFFER
		assertThat(options.getInt(4)).isEqualTo(6); // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
		assertThat(Pointer.nativeValue(values.getPointer(0))).isEqualTo(Pointer.nativeValue(log));
		assertThat(values.getLong(Native.POINTER_SIZE)).isEqualTo(JnaCudaCompute.JIT_LOG_BYTES);
	}

	@Test
	void aModuleLoadFailureCarriesItsJitLogInTheMessage() {
		CudaCompute.ModuleLoadException ex = new CudaCompute.ModuleLoadException("cuModuleLoadDataEx", 218,
				"CUDA_ERROR_INVALID_PTX", "  line 3: syntax error\n");

		assertThat(ex.jitLog()).isEqualTo("line 3: syntax error");
		assertThat(ex.getMessage())
			.isEqualTo("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (218); JIT log: line 3: syntax error");
		assertThat(new CudaCompute.ModuleLoadException("cuModuleLoadDataEx", 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
				null).getMessage()).isEqualTo("cuModuleLoadDataEx failed: CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)");
	}
}
