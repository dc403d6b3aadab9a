package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import com.sun.jna.Memory;

import io.uform.UformException;
import io.uform.UformException.Status;
import io.uform.gpu.DeviceFacts.Vendor;

class SimulatedRuntimeTest {

	private static final long MIB = 1L << 20;

	private static final String PTX = """
			.version 8.0
			.target sm_75
			.address_size 64
			.visible .entry dot_batched(
				.param .u64 a
			)
			{
				ret;
			}
			""";

	private static void assertFails(ThrowingCallable call, Status status, String... message) {
		assertThatThrownBy(call).isInstanceOfSatisfying(UformException.class, (ex) -> {
			assertThat(ex.status()).isEqualTo(status);
			assertThat(ex.getMessage()).contains(message);
		});
	}

	@Test
	void describesItsDevicesAsSimulatedHostMemory() {
		SimulatedRuntime runtime = new SimulatedRuntime(2, 64 * MIB);

		assertThat(runtime.name()).isEqualTo("simulated");
		assertThat(runtime.devices()).containsExactly(
				new DeviceFacts(Vendor.SIMULATED, 0, "simulated", 1, 64 * MIB, "Simulated GPU 0 (host memory)",
						"GPU-SIMULATED-0", null),
				new DeviceFacts(Vendor.SIMULATED, 1, "simulated", 1, 64 * MIB, "Simulated GPU 1 (host memory)",
						"GPU-SIMULATED-1", null));
		assertThat(runtime.readings(1)).isEqualTo(new Readings(0L, 64 * MIB, null, null, null));
		assertThat(io.uform.GpuVendor.ofCode(io.uform.GpuVendor.SIMULATED.code())).isEqualTo(io.uform.GpuVendor.SIMULATED);
		assertThat(io.uform.GpuVendor.SIMULATED.code()).isEqualTo(255);
	}

	@Test
	void aMissingOrdinalIsNoDevice() {
		SimulatedRuntime runtime = new SimulatedRuntime(2, MIB);

		assertFails(() -> runtime.open(2), Status.NO_DEVICE, "No simulated device with ordinal 2",
				"ordinals run from 0 to 1");
		assertFails(() -> new SimulatedRuntime(0, MIB).open(0), Status.NO_DEVICE, "uform.devices.simulated");
		assertFails(() -> runtime.usedBytes(-1), Status.NO_DEVICE, "ordinal -1");
	}

	@Test
	void allocationsAreAlignedAndCountedAcrossContexts() {
		SimulatedRuntime runtime = new SimulatedRuntime(2, 4 * MIB);
		try (DeviceContext first = runtime.open(0); DeviceContext second = runtime.open(0);
				DeviceContext other = runtime.open(1)) {
			long a = first.allocate(MIB);
			long b = second.allocate(2 * MIB);
			other.allocate(3 * MIB);

			assertThat(a % 256).isZero();
			assertThat(b % 256).isZero();
			assertThat(runtime.usedBytes(0)).isEqualTo(3 * MIB);
			assertThat(first.memoryInfo()).isEqualTo(new DeviceContext.MemoryInfo(MIB, 4 * MIB));
			assertThat(second.memoryInfo()).isEqualTo(first.memoryInfo());
			assertThat(runtime.readings(1).memoryUsedBytes()).isEqualTo(3 * MIB);

			assertFails(() -> second.allocate(MIB + 1), Status.OUT_OF_MEMORY, "Simulated GPU 0 (host memory) is out "
					+ "of memory: cuMemAlloc_v2 of 1048577 bytes with 3145728 of 4194304 bytes in use "
					+ "(CUDA_ERROR_OUT_OF_MEMORY on a real GPU)");
			long rest = second.allocate(MIB);
			assertThat(first.memoryInfo().freeBytes()).isZero();

			// Primary-context semantics: one context may free what another of the device allocated.
			first.free(rest);
			second.free(a);
			assertThat(runtime.usedBytes(0)).isEqualTo(2 * MIB);
		}
		assertThat(runtime.usedBytes(0)).isZero();
		assertThat(runtime.usedBytes(1)).isZero();
	}

	@Test
	void copiesMoveRealBytesBothWays() {
		SimulatedRuntime runtime = new SimulatedRuntime(1, MIB);
		try (DeviceContext device = runtime.open(0)) {
			device.makeCurrent();
			long stream = device.createStream();
			long address = device.allocate(1000);
			Memory in = new Memory(1000);
			for (int i = 0; i < 1000; i++) {
				in.setByte(i, (byte) (i * 7));
			}
			Memory out = new Memory(600);

			device.copyToDevice(address, in, 1000, stream);
			device.copyToHost(out, address + 400, 600, stream);
			device.synchronize(stream);

			assertThat(out.getByteArray(0, 600)).isEqualTo(in.getByteArray(400, 600));
			// The address is a real host address, so it can be read straight.
			assertThat(new com.sun.jna.Pointer(address).getByte(999)).isEqualTo((byte) (999 * 7));
			device.destroyStream(stream);
		}
	}

	@Test
	void copiesOutsideAnAllocationAreRefused() {
		SimulatedRuntime runtime = new SimulatedRuntime(1, MIB);
		try (DeviceContext device = runtime.open(0)) {
			long address = device.allocate(100);
			Memory host = new Memory(200);

			assertFails(() -> device.copyToDevice(address + 50, host, 51, 0), Status.DEVICE_ERROR,
					"cuMemcpyHtoDAsync_v2 failed on Simulated GPU 0 (host memory): 51 bytes at 0x",
					"run past the end of its allocation (100 bytes at 0x", "50 left from that address)");
			assertFails(() -> device.copyToHost(host, address + 100, 1, 0), Status.DEVICE_ERROR,
					"is not inside an allocation on this device");
			assertFails(() -> device.copyToHost(host, address, 201, 0), Status.DEVICE_ERROR,
					"the host memory holds 200 bytes");
			assertFails(() -> device.copyToHost(null, address, 1, 0), Status.DEVICE_ERROR, "host pointer is null");
		}
	}

	@Test
	void unknownAddressesAndStreamsAreRefused() {
		SimulatedRuntime runtime = new SimulatedRuntime(2, MIB);
		try (DeviceContext zero = runtime.open(0); DeviceContext one = runtime.open(1)) {
			long address = zero.allocate(64);
			long stream = zero.createStream();

			assertFails(() -> one.free(address), Status.DEVICE_ERROR,
					"cuMemFree_v2 failed on Simulated GPU 1 (host memory): 0x",
					"is not the start of an allocation on this device");
			assertFails(() -> zero.free(address + 8), Status.DEVICE_ERROR, "not the start of an allocation");
			assertFails(() -> one.synchronize(stream), Status.DEVICE_ERROR, "cuStreamSynchronize failed",
					"is not a stream created on this device");
			assertFails(() -> one.copyToDevice(address, new Memory(64), 64, 0), Status.DEVICE_ERROR,
					"not inside an allocation on this device");

			zero.free(address);
			assertFails(() -> zero.free(address), Status.DEVICE_ERROR, "freed already");
			zero.destroyStream(stream);
			assertFails(() -> zero.destroyStream(stream), Status.DEVICE_ERROR, "destroyed already");
			zero.synchronize(0);
		}
	}

	@Test
	void modulesLoadButKernelsDoNotRun() {
		SimulatedRuntime runtime = new SimulatedRuntime(1, MIB);
		try (DeviceContext device = runtime.open(0)) {
			long module = device.loadModule(PTX);
			long function = device.function(module, "dot_batched");

			assertThat(module).isNotZero();
			assertThat(function).isNotZero();
			assertFails(() -> device.function(module, "dot"), Status.DEVICE_ERROR, "no kernel named dot");
			assertFails(() -> device.launch(function, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0,
					new DeviceContext.KernelArgument[] {new DeviceContext.KernelArgument(8, 0)}), Status.UNSUPPORTED,
					"cuLaunchKernel on Simulated GPU 0 (host memory): a simulated device cannot run PTX kernels; run "
							+ "this step on the host (Executor.forRam) when the device is simulated");
			device.unloadModule(module);
			assertFails(() -> device.function(module, "dot_batched"), Status.DEVICE_ERROR, "not a module loaded");
			assertFails(() -> device.unloadModule(module), Status.DEVICE_ERROR, "not a module loaded");
		}
	}

	@Test
	void closeFreesWhatTheContextHoldsOnlyAndOnce() {
		SimulatedRuntime runtime = new SimulatedRuntime(1, 4 * MIB);
		DeviceContext keeper = runtime.open(0);
		DeviceContext closing = runtime.open(0);
		long kept = keeper.allocate(MIB);
		closing.allocate(MIB);
		closing.allocate(2 * MIB);
		long stream = closing.createStream();
		long module = closing.loadModule(PTX);

		closing.close();
		closing.close();

		assertThat(runtime.usedBytes(0)).isEqualTo(MIB);
		assertFails(() -> keeper.synchronize(stream), Status.DEVICE_ERROR, "not a stream created on this device");
		assertFails(() -> keeper.function(module, "dot_batched"), Status.DEVICE_ERROR, "not a module loaded");
		assertFails(() -> closing.allocate(1), Status.DEVICE_ERROR, "the device context is closed");
		assertFails(closing::makeCurrent, Status.DEVICE_ERROR, "closed");
		keeper.free(kept);
		keeper.close();
		assertThat(runtime.usedBytes(0)).isZero();
	}

	@Test
	void concurrentAllocationsKeepExactAccountingAndNeverOvershoot() throws Exception {
		int threads = 8;
		int rounds = 2000;
		long size = 1000 * 1024;
		SimulatedRuntime runtime = new SimulatedRuntime(1, size);
		AtomicInteger refused = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int seed = t;
				done.add(pool.submit(() -> {
					try (DeviceContext device = runtime.open(0)) {
						start.await();
						List<Long> held = new ArrayList<>();
						for (int i = 0; i < rounds; i++) {
							long bytes = 1024L * (1 + (seed * 31 + i) % 64);
							try {
								held.add(device.allocate(bytes));
							}
							catch (UformException ex) {
								assertThat(ex.status()).isEqualTo(Status.OUT_OF_MEMORY);
								refused.incrementAndGet();
							}
							assertThat(runtime.usedBytes(0)).isBetween(0L, size);
							if (held.size() > 8) {
								device.free(held.remove(0));
							}
						}
						// Half freed by hand, the rest left for close() to free.
						for (int i = 0; i < held.size() / 2; i++) {
							device.free(held.get(i));
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		// 8 threads holding up to 9 blocks of up to 64 KiB each must run into the 1000 KiB limit.
		assertThat(refused.get()).isPositive();
		assertThat(runtime.usedBytes(0)).isZero();
	}
}
