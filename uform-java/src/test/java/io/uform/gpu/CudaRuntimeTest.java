package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.sun.jna.Memory;

import io.uform.UformException;
import io.uform.UformException.Status;
import io.uform.gpu.DeviceContext.KernelArgument;

/**
 * {@link CudaRuntime} against {@link FakeCudaDriver} (devices) and {@link RecordingCudaCompute}
 * (contexts, streams, memory, modules, launches), which records every call and fails the test on
 * misuse the real driver would punish: no current context, unknown or foreign handles, double
 * releases.
 */
class CudaRuntimeTest {

	private static final String PTX = """
			.version 8.0
			.target sm_80
			.address_size 64
			.visible .entry saxpy(.param .u64 y, .param .u32 n, .param .f32 a)
			{
				ret;
			}
			""";

	private FakeCudaDriver driver;

	private RecordingCudaCompute compute;

	private CudaRuntime runtime;

	@BeforeEach
	void twoGpus() {
		this.driver = new FakeCudaDriver();
		this.driver.gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, 80L << 30, 0x1B);
		this.driver.gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, 80L << 30, 0x2B);
		this.compute = new RecordingCudaCompute();
		this.runtime = new CudaRuntime(this.driver, this.compute);
	}

	@Test
	void isNamedCuda() {
		assertThat(this.runtime.name()).isEqualTo("cuda");
	}

	@Test
	void openRetainsThePrimaryContextOfTheCudaDeviceNotTheOrdinalAndBindsNothing() {
		this.driver.visible(1, 0); // ordinal 0 is physical GPU 1: CUdevice 101 in the fake

		try (DeviceContext device = this.runtime.open(0)) {
			assertThat(device.ordinal()).isZero();
			assertThat(this.compute.retainCount(101)).isEqualTo(1);
			assertThat(this.compute.calls()).containsExactly("cuDevicePrimaryCtxRetain 101 -> 0xc000");
			// Retain needs no current context, so open leaves the caller's thread as it was.
			assertThat(this.compute.currentContext()).isZero();
		}
		assertThat(this.driver.calls).containsSubsequence("cuInit", "cuDeviceGetCount", "cuDeviceGet");
		assertThat(this.compute.retainCount(101)).isZero();
	}

	@Test
	void closeReleasesExactlyOnce() {
		DeviceContext device = this.runtime.open(1);

		device.close();
		device.close();

		assertThat(this.compute.retained).isEqualTo(1);
		assertThat(this.compute.released).isEqualTo(1);
		assertThat(this.compute.calls()).containsExactly("cuDevicePrimaryCtxRetain 101 -> 0xc000",
				"cuDevicePrimaryCtxRelease_v2 101");
	}

	@Test
	void twoOpensOfOneDeviceShareTheContextUntilBothClose() {
		DeviceContext first = this.runtime.open(0);
		DeviceContext second = this.runtime.open(0);
		assertThat(this.compute.retainCount(100)).isEqualTo(2);

		first.close();
		second.makeCurrent();
		long stream = second.createStream();
		second.destroyStream(stream);
		second.close();

		assertThat(this.compute.retainCount(100)).isZero();
	}

	@Test
	void aReleaseThatFailsIsNotRetriedBySecondClose() {
		DeviceContext device = this.runtime.open(0);
		this.compute.failNext("cuDevicePrimaryCtxRelease_v2", 999, "CUDA_ERROR_UNKNOWN");

		assertThatThrownBy(device::close).isInstanceOf(UformException.class)
			.hasMessageContaining("cuDevicePrimaryCtxRelease_v2 failed: CUDA_ERROR_UNKNOWN (999)");
		device.close();

		assertThat(this.compute.calls()).filteredOn((call) -> call.startsWith("cuDevicePrimaryCtxRelease")).hasSize(1);
	}

	@Test
	void nothingRunsOnAClosedDevice() {
		DeviceContext device = this.runtime.open(0);
		device.close();

		assertThatThrownBy(device::makeCurrent).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.status()).isEqualTo(Status.FREED));
		assertThatThrownBy(() -> device.allocate(16)).isInstanceOf(UformException.class);
		assertThat(this.compute.calls()).noneMatch((call) -> call.startsWith("cuCtxSetCurrent"));
	}

	@Test
	void anOrdinalPastTheLastIsNoDevice() {
		for (int ordinal : new int[] { 2, -1 }) {
			assertThatThrownBy(() -> this.runtime.open(ordinal)).isInstanceOfSatisfying(UformException.class, (ex) -> {
				assertThat(ex.status()).isEqualTo(Status.NO_DEVICE);
				assertThat(ex.getMessage()).contains("CUDA device " + ordinal + " does not exist")
					.contains("sees 2 CUDA device(s) (ordinals 0 to 1)")
					.contains("CUDA_VISIBLE_DEVICES");
			});
		}
		assertThat(this.compute.retained).isZero();
	}

	@Test
	void noVisibleDeviceIsNoDevice() {
		this.driver.fail("cuInit", CudaDriver.CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE");

		assertThatThrownBy(() -> this.runtime.open(0)).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(Status.NO_DEVICE);
			assertThat(ex.getMessage()).contains("sees 0 CUDA device(s)");
		});
	}

	@Test
	void aDriverThatFailsToInitialiseIsADeviceError() {
		this.driver.fail("cuInit", 999, "CUDA_ERROR_UNKNOWN");

		assertThatThrownBy(() -> this.runtime.open(0)).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(Status.DEVICE_ERROR);
			assertThat(ex.getMessage()).startsWith("CUDA device 0: cuInit failed: CUDA_ERROR_UNKNOWN (999)");
		});
	}

	@Test
	void withoutLibcudaOpenIsNoDeviceSayingSo() {
		CudaRuntime absent = new CudaRuntime(Optional::empty);

		assertThatThrownBy(() -> absent.open(0)).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(Status.NO_DEVICE);
			assertThat(ex.getMessage()).contains("libcuda.so.1 not found");
		});
	}

	@Test
	void aBrokenLibcudaIsLoadedOnceAndReportedEveryTime() {
		AtomicInteger loads = new AtomicInteger();
		CudaRuntime broken = new CudaRuntime(() -> {
			loads.incrementAndGet();
			throw new DriverCallException("cuLaunchKernel", DriverCallException.NOT_LOADED,
					"symbol missing from libcuda.so.1 (driver too old or damaged)");
		});

		for (int i = 0; i < 2; i++) {
			assertThatThrownBy(() -> broken.open(0)).isInstanceOfSatisfying(UformException.class, (ex) -> {
				assertThat(ex.status()).isEqualTo(Status.DEVICE_ERROR);
				assertThat(ex.getMessage()).contains("cuLaunchKernel failed: symbol missing");
			});
		}
		assertThat(loads).hasValue(1);
	}

	@Test
	void streamsAreNonBlockingAndEveryCreatedOneIsDestroyed() {
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();
			long first = device.createStream();
			long second = device.createStream();
			device.synchronize(first);
			device.synchronize(0); // the legacy default stream
			device.destroyStream(second);
			device.destroyStream(first);
		}

		assertThat(this.compute.calls()).contains("cuStreamCreate 1 -> 0x1000", "cuStreamCreate 1 -> 0x1010",
				"cuStreamSynchronize 0x1000", "cuStreamDestroy_v2 0x1010", "cuStreamDestroy_v2 0x1000");
		assertThat(this.compute.streamsCreated).isEqualTo(2).isEqualTo(this.compute.streamsDestroyed);
		assertThat(this.compute.liveStreams()).isEmpty();
	}

	@Test
	void closeDestroysNothingItDidNotCreate() {
		DeviceContext device = this.runtime.open(0);
		device.makeCurrent();
		// A stream someone else made in the shared primary context, lent to the executor.
		long borrowed = this.compute.streamCreate(0);
		device.synchronize(borrowed);
		int before = this.compute.calls().size();

		device.close();

		assertThat(this.compute.calls().subList(before, this.compute.calls().size()))
			.containsExactly("cuDevicePrimaryCtxRelease_v2 100");
		assertThat(this.compute.liveStreams()).containsExactly(borrowed);
	}

	@Test
	void allocationsAreFreedAndMemoryInfoFollowsThem() {
		this.compute.totalBytes = 1L << 30;
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();
			long address = device.allocate(1000);
			assertThat(device.memoryInfo()).isEqualTo(new DeviceContext.MemoryInfo((1L << 30) - 1000, 1L << 30));
			device.free(address);
			assertThat(device.memoryInfo().freeBytes()).isEqualTo(1L << 30);
		}
		assertThat(this.compute.calls()).contains("cuMemAlloc_v2 1000 -> 0x7f0000000000", "cuMemFree_v2 0x7f0000000000");
		assertThat(this.compute.liveAllocations()).isEmpty();
	}

	@Test
	void anEmptyAllocationIsRefusedBeforeTheDriver() {
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();
			assertThatThrownBy(() -> device.allocate(0)).isInstanceOfSatisfying(UformException.class,
					(ex) -> assertThat(ex.status()).isEqualTo(Status.INVALID_ARGUMENT));
		}
		assertThat(this.compute.calls()).noneMatch((call) -> call.startsWith("cuMemAlloc"));
	}

	@Test
	void runningOutOfDeviceMemoryIsOutOfMemory() {
		this.compute.totalBytes = 4096;
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();
			UformException ex = (UformException) catchThrowable(() -> device.allocate(8192));

			assertThat(ex.status()).isEqualTo(Status.OUT_OF_MEMORY);
			assertThat(ex.getMessage())
				.startsWith("CUDA device 0: cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2) allocating 8192 bytes. ")
				.contains("too little free memory");
		}
	}

	@Test
	void copiesPassAddressesSizesAndStreamsThrough() {
		try (DeviceContext device = this.runtime.open(0); Memory sent = new Memory(64); Memory back = new Memory(64)) {
			for (int i = 0; i < 64; i++) {
				sent.setByte(i, (byte) (i * 3));
			}
			back.clear();
			device.makeCurrent();
			long stream = device.createStream();
			long address = device.allocate(256);

			device.copyToDevice(address + 16, sent, 64, stream);
			device.copyToHost(back, address + 16, 64, stream);
			device.synchronize(stream);

			assertThat(back.getByteArray(0, 64)).isEqualTo(sent.getByteArray(0, 64));
			assertThat(this.compute.calls()).contains(
					"cuMemcpyHtoDAsync_v2 0x7f0000000010 <- " + RecordingCudaCompute.hex(com.sun.jna.Pointer.nativeValue(sent))
							+ " 64 bytes on 0x1000",
					"cuMemcpyDtoHAsync_v2 " + RecordingCudaCompute.hex(com.sun.jna.Pointer.nativeValue(back))
							+ " <- 0x7f0000000010 64 bytes on 0x1000");
			device.free(address);
			device.destroyStream(stream);
		}
	}

	@Test
	void modulesLoadFindKernelsLaunchAndUnload() {
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();
			long stream = device.createStream();
			long y = device.allocate(4096);
			long module = device.loadModule(PTX);
			long saxpy = device.function(module, "saxpy");

			device.launch(saxpy, new int[] { 4, 1, 1 }, new int[] { 256, 1, 1 }, 128, stream,
					new KernelArgument[] { new KernelArgument(8, y), new KernelArgument(4, 1024),
						new KernelArgument(4, Float.floatToRawIntBits(2.5f)) });
			device.synchronize(stream);
			device.unloadModule(module);
			device.free(y);
			device.destroyStream(stream);
		}

		RecordingCudaCompute.Launch launch = this.compute.launches.get(0);
		assertThat(launch.function()).isEqualTo(0x4000);
		assertThat(launch.grid()).containsExactly(4, 1, 1);
		assertThat(launch.block()).containsExactly(256, 1, 1);
		assertThat(launch.sharedBytes()).isEqualTo(128);
		assertThat(launch.stream()).isEqualTo(0x1000);
		assertThat(launch.arguments()).containsExactly(new KernelArgument(8, 0x7F00_0000_0000L),
				new KernelArgument(4, 1024), new KernelArgument(4, 0x40200000));
		assertThat(this.compute.liveModules()).isEmpty();
		assertThat(this.compute.liveAllocations()).isEmpty();
		assertThat(this.compute.liveStreams()).isEmpty();
	}

	@Test
	void aLaunchWithoutArgumentsPassesAnEmptyArrayAndBadDimensionsNeverReachTheDriver() {
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();
			long module = device.loadModule(PTX);
			long saxpy = device.function(module, "saxpy");

			device.launch(saxpy, new int[] { 1, 1, 1 }, new int[] { 32, 1, 1 }, 0, 0, null);
			assertThatThrownBy(() -> device.launch(saxpy, new int[] { 0, 1, 1 }, new int[] { 32, 1, 1 }, 0, 0, null))
				.isInstanceOfSatisfying(UformException.class,
						(ex) -> assertThat(ex.status()).isEqualTo(Status.INVALID_ARGUMENT));
			assertThatThrownBy(() -> device.launch(saxpy, new int[] { 1, 1 }, new int[] { 32, 1, 1 }, 0, 0, null))
				.isInstanceOf(UformException.class);
			device.unloadModule(module);
		}
		assertThat(this.compute.launches).hasSize(1);
		assertThat(this.compute.launches.get(0).arguments()).isEmpty();
	}

	@Test
	void aKernelNameNotInTheModuleIsNamedInTheMessage() {
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();
			long module = device.loadModule(PTX);

			UformException ex = (UformException) catchThrowable(() -> device.function(module, "sgemm"));

			assertThat(ex.status()).isEqualTo(Status.DEVICE_ERROR);
			assertThat(ex.getMessage())
				.startsWith("CUDA device 0: cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500) looking up kernel "
						+ "'sgemm' in module 0x3000. The module has no kernel of that name");
			device.unloadModule(module);
		}
	}

	@Test
	void aRefusedModuleQuotesTheJitLog() {
		this.compute.failNextModuleLoad(218, "CUDA_ERROR_INVALID_PTX",
				"ptxas application ptx input, line 7; error   : Unknown symbol 'missing'\n");
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();

			UformException ex = (UformException) catchThrowable(() -> device.loadModule(PTX));

			assertThat(ex.status()).isEqualTo(Status.DEVICE_ERROR);
			assertThat(ex.getMessage()).contains("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (218)")
				.endsWith("JIT log:\nptxas application ptx input, line 7; error   : Unknown symbol 'missing'");
		}
		assertThat(this.compute.liveModules()).isEmpty();
	}

	@ParameterizedTest(name = "{0} -> {2} ({1})")
	@CsvSource(delimiter = '|', textBlock = """
			cuMemAlloc_v2                | 2   | CUDA_ERROR_OUT_OF_MEMORY          | OUT_OF_MEMORY | too little free memory
			cuDevicePrimaryCtxRetain     | 34  | CUDA_ERROR_STUB_LIBRARY           | DEVICE_ERROR  | stub libcuda.so
			cuCtxSetCurrent              | 34  | CUDA_ERROR_STUB_LIBRARY           | DEVICE_ERROR  | LD_LIBRARY_PATH
			cuModuleLoadDataEx           | 218 | CUDA_ERROR_INVALID_PTX            | DEVICE_ERROR  | JIT compiler refused the PTX
			cuModuleLoadDataEx           | 222 | CUDA_ERROR_UNSUPPORTED_PTX_VERSION | DEVICE_ERROR | update the NVIDIA driver
			cuModuleLoadDataEx           | 221 | CUDA_ERROR_JIT_COMPILER_NOT_FOUND | DEVICE_ERROR  | libnvidia-ptxjitcompiler.so.1
			cuModuleGetFunction          | 500 | CUDA_ERROR_NOT_FOUND              | DEVICE_ERROR  | no kernel of that name
			cuLaunchKernel               | 719 | CUDA_ERROR_LAUNCH_FAILED          | DEVICE_ERROR  | compute-sanitizer
			cuStreamSynchronize          | 719 | CUDA_ERROR_LAUNCH_FAILED          | DEVICE_ERROR  | context is unusable
			cuStreamDestroy_v2           | 400 | CUDA_ERROR_INVALID_HANDLE         | DEVICE_ERROR  | not valid in this context
			cuStreamCreate               | 201 | CUDA_ERROR_INVALID_CONTEXT        | DEVICE_ERROR  | makeCurrent() must come first
			cuMemcpyHtoDAsync_v2         | 999 | CUDA_ERROR_UNKNOWN                | DEVICE_ERROR  | copying 64 bytes
			cuMemcpyDtoHAsync_v2         | 700 | CUDA_ERROR_ILLEGAL_ADDRESS        | DEVICE_ERROR  | copying 64 bytes
			cuMemGetInfo_v2              | 3   | CUDA_ERROR_NOT_INITIALIZED        | DEVICE_ERROR  | cuMemGetInfo_v2
			cuMemFree_v2                 | 1   | CUDA_ERROR_INVALID_VALUE          | DEVICE_ERROR  | freeing 0x7f0000000000
			cuModuleUnload               | 400 | CUDA_ERROR_INVALID_HANDLE         | DEVICE_ERROR  | unloading module 0x3000
			cuDevicePrimaryCtxRelease_v2 | 4   | CUDA_ERROR_DEINITIALIZED          | DEVICE_ERROR  | releasing the primary context
			""")
	void everyDriverFailureNamesTheCallTheStatusAndTheDevice(String call, int code, String name, Status status,
			String fix) {
		this.compute.failNext(call, code, name);

		Throwable thrown = catchThrowable(this::useEveryCall);

		assertThat(thrown).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(status);
			assertThat(ex.getMessage()).startsWith("CUDA device 1: " + call + " failed: " + name + " (" + code + ")")
				.contains(fix);
			assertThat(ex.getCause()).isInstanceOfSatisfying(DriverCallException.class,
					(cause) -> assertThat(cause.code()).isEqualTo(code));
		});
	}

	/** Makes every CudaCompute call once, in the order an executor would, on device 1. */
	private void useEveryCall() {
		try (DeviceContext device = this.runtime.open(1); Memory host = new Memory(64)) {
			device.makeCurrent();
			long stream = device.createStream();
			long address = device.allocate(4096);
			device.memoryInfo();
			device.copyToDevice(address, host, 64, stream);
			long module = device.loadModule(PTX);
			long saxpy = device.function(module, "saxpy");
			device.launch(saxpy, new int[] { 1, 1, 1 }, new int[] { 64, 1, 1 }, 0, stream,
					new KernelArgument[] { new KernelArgument(8, address) });
			device.copyToHost(host, address, 64, stream);
			device.synchronize(stream);
			device.unloadModule(module);
			device.free(address);
			device.destroyStream(stream);
		}
	}

	@Test
	void theWholeSequenceLeavesNothingBehind() {
		useEveryCall();

		assertThat(this.compute.liveStreams()).isEmpty();
		assertThat(this.compute.liveAllocations()).isEmpty();
		assertThat(this.compute.liveModules()).isEmpty();
		assertThat(this.compute.retainCount(101)).isZero();
	}

	@Test
	void aThreadThatDidNotMakeTheContextCurrentIsCaught() throws InterruptedException {
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent(); // on this thread only
			AtomicReference<Throwable> without = new AtomicReference<>();
			AtomicReference<Long> with = new AtomicReference<>();

			Thread fresh = new Thread(() -> without.set(catchThrowable(device::createStream)), "fresh-worker");
			fresh.start();
			fresh.join();
			Thread bound = new Thread(() -> {
				device.makeCurrent();
				long stream = device.createStream();
				device.destroyStream(stream);
				with.set(stream);
			}, "bound-worker");
			bound.start();
			bound.join();

			assertThat(without.get()).isInstanceOf(AssertionError.class)
				.hasMessageContaining("cuStreamCreate on thread fresh-worker with no current context");
			assertThat(with.get()).isNotNull();
		}
	}

	@Test
	void theFakeCatchesAHandleUsedUnderAnotherDevicesContext() {
		try (DeviceContext first = this.runtime.open(0); DeviceContext second = this.runtime.open(1)) {
			first.makeCurrent();
			long address = first.allocate(64);
			second.makeCurrent();

			assertThatThrownBy(() -> first.free(address)).isInstanceOf(AssertionError.class)
				.hasMessageContaining("of context 0xc000 while context 0xc100 is current");
			first.makeCurrent();
			first.free(address);
		}
		assertThat(this.compute.liveAllocations()).isEmpty();
	}

	@Test
	void theFakeCatchesUnknownHandles() {
		try (DeviceContext device = this.runtime.open(0)) {
			device.makeCurrent();

			assertThatThrownBy(() -> device.destroyStream(0x9990)).isInstanceOf(AssertionError.class)
				.hasMessageContaining("never created");
			assertThatThrownBy(() -> device.free(0x1234)).isInstanceOf(AssertionError.class);
			assertThatThrownBy(() -> device.unloadModule(0x3000)).isInstanceOf(AssertionError.class);
		}
		assertThat(this.compute.streamsDestroyed).isZero();
	}
}
