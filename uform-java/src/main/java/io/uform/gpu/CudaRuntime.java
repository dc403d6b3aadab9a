package io.uform.gpu;

import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import com.sun.jna.Pointer;

import io.uform.failure.FailureFactory;
import io.uform.failure.Failures;

/**
 * {@link GpuRuntime} over the CUDA driver API: {@link CudaDriver} for {@code cuInit} and
 * {@code cuDeviceGet} (shared with discovery), {@link CudaCompute} for everything compute does.
 *
 * <h2>Contexts</h2>
 * {@link #open(int)} retains the device's primary context, the one the CUDA runtime and other
 * libraries use too, so device addresses and streams can be handed to them; {@link DeviceContext#close()}
 * releases it once. Opening an ordinal twice retains twice: the driver counts, and the context lives
 * until the last release. Neither call needs a current context, so {@code open} binds nothing to the
 * calling thread: as {@link DeviceContext} says, the executor calls {@link DeviceContext#makeCurrent()}
 * on each thread before the other methods.
 *
 * <h2>Failures</h2>
 * Every driver failure becomes one made by {@link io.uform.failure.FailureFactory}: {@code OUT_OF_MEMORY}
 * for {@code CUDA_ERROR_OUT_OF_MEMORY}, {@code DEVICE_ERROR} otherwise, the message naming the
 * device, the call, the driver's status name and code and, for the common failures, what to do (with
 * the JIT log when a module is refused). A missing {@code libcuda.so.1}, no visible device or an
 * ordinal past the last one is {@code NO_DEVICE}.
 */
public final class CudaRuntime implements GpuRuntime {

	private static volatile CudaRuntime system;

	private final Supplier<Optional<Bindings>> loader;

	/** The loader's answer, once asked; guarded by {@code this}. */
	private Optional<Bindings> bindings;

	/** The loader's failure, kept so every open reports the same; guarded by {@code this}. */
	private DriverCallException loadFailure;

	/**
	 * The two driver slices a runtime calls.
	 * @param driver {@code cuInit}, {@code cuDeviceGetCount}, {@code cuDeviceGet}
	 * @param compute contexts, streams, memory, modules and launches
	 */
	record Bindings(CudaDriver driver, CudaCompute compute) {
	}

	/**
	 * Makes a runtime over given bindings; tests pass fakes.
	 * @param driver the device-level calls
	 * @param compute the compute calls
	 */
	CudaRuntime(CudaDriver driver, CudaCompute compute) {
		this(() -> Optional.of(new Bindings(driver, compute)));
	}

	/**
	 * Makes a runtime that loads its bindings on first {@link #open(int)}.
	 * @param loader empty when {@code libcuda.so.1} is not installed; throws
	 *        {@link DriverCallException} when it is installed but unusable
	 */
	CudaRuntime(Supplier<Optional<Bindings>> loader) {
		this.loader = loader;
	}

	/**
	 * The runtime over this machine's {@code libcuda.so.1}, made once. The library is opened on the
	 * first {@link #open(int)}, not here, so that asking for the runtime costs nothing on a machine
	 * that never opens a device; without the library, {@code open} throws {@code NO_DEVICE}.
	 * @return the shared runtime
	 */
	public static CudaRuntime system() {
		CudaRuntime runtime = system;
		if (runtime == null) {
			synchronized (CudaRuntime.class) {
				runtime = system;
				if (runtime == null) {
					runtime = new CudaRuntime(CudaRuntime::loadSystem);
					system = runtime;
				}
			}
		}
		return runtime;
	}

	private static Optional<Bindings> loadSystem() {
		Optional<CudaDriver> driver = JnaCudaDriver.load();
		if (driver.isEmpty()) {
			return Optional.empty();
		}
		return JnaCudaCompute.load().map((compute) -> new Bindings(driver.get(), compute));
	}

	private synchronized Bindings bindings(int ordinal) {
		if (this.bindings == null && this.loadFailure == null) {
			try {
				this.bindings = this.loader.get();
			}
			catch (DriverCallException ex) {
				this.loadFailure = ex;
			}
		}
		if (this.loadFailure != null) {
			throw Failures.factory().deviceError("CUDA device " + ordinal + ": cannot use "
					+ JnaCudaDriver.CUDA_LIBRARY + ": " + this.loadFailure.getMessage()
					+ ". Check that nvidia-smi works and that the driver is complete and current", this.loadFailure);
		}
		return this.bindings.orElseThrow(() -> Failures.factory().noDevice("CUDA device " + ordinal
				+ " cannot be opened: " + JnaCudaDriver.CUDA_LIBRARY + " not found (no NVIDIA driver installed). "
				+ "Install the NVIDIA driver, or in a container run with the NVIDIA container runtime (--gpus)", null));
	}

	@Override
	public String name() {
		return "cuda";
	}

	@Override
	public DeviceContext open(int ordinal) {
		Bindings loaded = bindings(ordinal);
		int count;
		try {
			loaded.driver().init();
			count = loaded.driver().deviceCount();
		}
		catch (DriverCallException ex) {
			if (ex.code() != CudaDriver.CUDA_ERROR_NO_DEVICE) {
				throw failure(ex, ordinal, "");
			}
			// cuInit says CUDA_ERROR_NO_DEVICE when the driver works but this process sees no GPU.
			count = 0;
		}
		if (ordinal < 0 || ordinal >= count) {
			throw Failures.factory().noDevice("CUDA device " + ordinal + " does not exist: this process sees "
					+ count + " CUDA device(s)" + (count == 0 ? "" : " (ordinals 0 to " + (count - 1) + ")")
					+ ". Pick an ordinal in range, or check CUDA_VISIBLE_DEVICES"
					+ visibleDevices(), null);
		}
		try {
			int device = loaded.driver().device(ordinal);
			long context = loaded.compute().primaryContextRetain(device);
			return new CudaDevice(loaded.compute(), ordinal, device, context);
		}
		catch (DriverCallException ex) {
			throw failure(ex, ordinal, "");
		}
	}

	private static String visibleDevices() {
		String visible = System.getenv("CUDA_VISIBLE_DEVICES");
		return visible == null ? " (not set)" : " (set to \"" + visible + "\")";
	}

	/**
	 * Turns a driver failure into the exception uform throws.
	 * @param ex the failure
	 * @param ordinal the device's CUDA ordinal
	 * @param detail what the call was doing, like {@code " allocating 4096 bytes"}, or empty
	 * @return the exception, to be thrown by the caller
	 */
	static RuntimeException failure(DriverCallException ex, int ordinal, String detail) {
		StringBuilder message = new StringBuilder("CUDA device ").append(ordinal).append(": ").append(ex.call())
			.append(" failed: ").append(ex.statusName());
		if (ex.code() != DriverCallException.NOT_LOADED) {
			message.append(" (").append(ex.code()).append(')');
		}
		message.append(detail);
		String fix = fix(ex.code());
		if (!fix.isEmpty()) {
			message.append(". ").append(fix);
		}
		if (ex instanceof CudaCompute.ModuleLoadException load) {
			message.append(load.jitLog().isEmpty() ? ". The driver wrote no JIT log" : ". JIT log:\n" + load.jitLog());
		}
		FailureFactory failures = Failures.factory();
		return (ex.code() == CudaCompute.CUDA_ERROR_OUT_OF_MEMORY) ? failures.outOfMemory(message.toString(), ex)
				: failures.deviceError(message.toString(), ex);
	}

	/** What to do about the failures people meet; empty for the rest, whose status name says enough. */
	private static String fix(int code) {
		return switch (code) {
			case CudaCompute.CUDA_ERROR_OUT_OF_MEMORY -> "The device has too little free memory: free buffers, "
					+ "lower the executor's scratch size, or use a device with more free memory (nvidia-smi shows "
					+ "what other processes hold)";
			case CudaCompute.CUDA_ERROR_STUB_LIBRARY -> "The CUDA toolkit's stub libcuda.so (lib64/stubs, for "
					+ "linking only) was loaded instead of the driver's libcuda.so.1: remove the stubs directory from "
					+ "LD_LIBRARY_PATH (and jna.library.path), and install the NVIDIA driver if it is missing";
			case CudaCompute.CUDA_ERROR_INVALID_PTX -> "The driver's JIT compiler refused the PTX; the log below "
					+ "names the line. Check the .target against the device's compute capability";
			case CudaCompute.CUDA_ERROR_UNSUPPORTED_PTX_VERSION -> "The driver is older than the PTX ISA version the "
					+ "module declares (.version): update the NVIDIA driver, or generate PTX for an older ISA "
					+ "(an older nvcc, or -arch for an older target)";
			case CudaCompute.CUDA_ERROR_JIT_COMPILER_NOT_FOUND -> "The driver's PTX JIT compiler "
					+ "(libnvidia-ptxjitcompiler.so.1) is missing: install the full driver; in a container, "
					+ "NVIDIA_DRIVER_CAPABILITIES must include compute";
			case CudaCompute.CUDA_ERROR_INVALID_IMAGE -> "The module is not PTX or a cubin the driver can read";
			case CudaCompute.CUDA_ERROR_NOT_FOUND -> "The module has no kernel of that name: check the .entry name "
					+ "in the PTX (declare CUDA C++ kernels extern \"C\" so that the name is not mangled)";
			case CudaCompute.CUDA_ERROR_LAUNCH_FAILED -> "A kernel faulted while it ran. The device's context is "
					+ "unusable from now on: close every executor on this device, and run the kernel under "
					+ "compute-sanitizer to find the fault";
			case CudaCompute.CUDA_ERROR_ILLEGAL_ADDRESS -> "A kernel read or wrote outside the memory it was given "
					+ "(an index past a buffer's end, a rows/dim argument larger than the buffers). The device's context "
					+ "is unusable from now on: close every executor on this device, and check the launch's sizes "
					+ "against the buffers (compute-sanitizer names the access)";
			case CudaCompute.CUDA_ERROR_INVALID_HANDLE -> "A stream, event, module or kernel handle that is not valid in "
					+ "this context was passed: one used after it was destroyed or unloaded, or one from another device";
			case CudaCompute.CUDA_ERROR_INVALID_CONTEXT -> "No live context is current on this thread: "
					+ "makeCurrent() must come first on every thread, and nothing may be called after close()";
			default -> "";
		};
	}

	/** One open device: the primary context of one CUDA device, retained once. */
	private static final class CudaDevice implements DeviceContext {

		private final CudaCompute compute;

		private final int ordinal;

		/** The {@code CUdevice}, which after {@code CUDA_VISIBLE_DEVICES} need not equal the ordinal. */
		private final int device;

		private final long context;

		private final AtomicBoolean closed = new AtomicBoolean();

		CudaDevice(CudaCompute compute, int ordinal, int device, long context) {
			this.compute = compute;
			this.ordinal = ordinal;
			this.device = device;
			this.context = context;
		}

		/**
		 * Makes one driver call on the open context: fails after close, which would otherwise reach a
		 * context that may be destroyed, and turns the driver's failure into uform's, its message naming
		 * what the call was doing ({@code detail}, built only on failure).
		 */
		private <T> T driver(Supplier<T> call, Supplier<String> detail) {
			if (this.closed.get()) {
				throw Failures.factory().freed("CUDA device " + this.ordinal + " was closed; nothing can run on "
						+ "this DeviceContext any more");
			}
			try {
				return call.get();
			}
			catch (DriverCallException ex) {
				throw failure(ex, this.ordinal, detail.get());
			}
		}

		private void driver(Runnable call, Supplier<String> detail) {
			driver(() -> {
				call.run();
				return null;
			}, detail);
		}

		@Override
		public int ordinal() {
			return this.ordinal;
		}

		@Override
		public void makeCurrent() {
			driver(() -> this.compute.setCurrentContext(this.context), () -> "");
		}

		@Override
		public long createStream() {
			return driver(() -> this.compute.streamCreate(STREAM_NON_BLOCKING), () -> " creating a stream");
		}

		@Override
		public void destroyStream(long stream) {
			driver(() -> this.compute.streamDestroy(stream), () -> " destroying stream " + hex(stream));
		}

		@Override
		public void synchronize(long stream) {
			// Errors of earlier asynchronous work (a faulting kernel) surface here.
			driver(() -> this.compute.streamSynchronize(stream), () -> " synchronising stream " + hex(stream));
		}

		@Override
		public boolean idle(long stream) {
			// As for a synchronise: a faulting kernel's error surfaces here too.
			return driver(() -> this.compute.streamQuery(stream), () -> " querying stream " + hex(stream));
		}

		@Override
		public long createEvent() {
			return driver(() -> this.compute.eventCreate(CudaCompute.CU_EVENT_DISABLE_TIMING),
					() -> " creating an event");
		}

		@Override
		public void recordEvent(long event, long stream) {
			driver(() -> this.compute.eventRecord(event, stream),
					() -> " recording event " + hex(event) + " on stream " + hex(stream));
		}

		@Override
		public boolean eventDone(long event) {
			// As for a stream query: a faulting kernel queued before the event surfaces here.
			return driver(() -> this.compute.eventQuery(event), () -> " querying event " + hex(event));
		}

		@Override
		public void destroyEvent(long event) {
			driver(() -> this.compute.eventDestroy(event), () -> " destroying event " + hex(event));
		}

		@Override
		public long allocate(long bytes) {
			return driver(() -> {
				if (bytes < 1) {
					throw Failures.factory().invalid("bytes", bytes, "allocate at least 1 byte of device memory");
				}
				return this.compute.memAlloc(bytes);
			}, () -> " allocating " + bytes + " bytes");
		}

		@Override
		public void free(long address) {
			driver(() -> this.compute.memFree(address), () -> " freeing " + hex(address));
		}

		@Override
		public MemoryInfo memoryInfo() {
			return driver(this.compute::memGetInfo, () -> "");
		}

		@Override
		public void copyToDevice(long device, Pointer host, long bytes, long stream) {
			driver(() -> this.compute.memcpyHtoDAsync(device, host, bytes, stream),
					() -> " copying " + bytes + " bytes to " + hex(device) + " on stream " + hex(stream));
		}

		@Override
		public void copyToHost(Pointer host, long device, long bytes, long stream) {
			driver(() -> this.compute.memcpyDtoHAsync(host, device, bytes, stream),
					() -> " copying " + bytes + " bytes from " + hex(device) + " on stream " + hex(stream));
		}

		@Override
		public long loadModule(String ptx) {
			return driver(() -> {
				if (ptx == null) {
					throw Failures.factory().invalid("ptx", null, "pass the module's PTX text");
				}
				return this.compute.moduleLoadData(ptx);
			}, () -> " loading a PTX module of " + ptx.length() + " characters");
		}

		@Override
		public long function(long module, String entry) {
			return driver(() -> {
				if (entry == null) {
					throw Failures.factory().invalid("entry", null, "pass the kernel's .entry name");
				}
				return this.compute.moduleGetFunction(module, entry);
			}, () -> " looking up kernel '" + entry + "' in module " + hex(module));
		}

		@Override
		public void unloadModule(long module) {
			driver(() -> this.compute.moduleUnload(module), () -> " unloading module " + hex(module));
		}

		@Override
		public void launch(long function, int[] grid, int[] block, int sharedBytes, long stream,
				KernelArgument[] arguments) {
			driver(() -> {
				dimensions("grid", grid);
				dimensions("block", block);
				KernelArgument[] packed = arguments == null ? new KernelArgument[0] : arguments;
				this.compute.launchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes,
						stream, packed);
			}, () -> " launching kernel " + hex(function) + " with grid " + Arrays.toString(grid) + ", block "
					+ Arrays.toString(block) + ", " + sharedBytes + " shared bytes, on stream " + hex(stream));
		}

		private static void dimensions(String name, int[] sizes) {
			if (sizes == null || sizes.length != 3 || sizes[0] < 1 || sizes[1] < 1 || sizes[2] < 1) {
				throw Failures.factory().invalid(name, sizes == null ? null : Arrays.toString(sizes),
						"give x, y and z, each at least 1");
			}
		}

		@Override
		public void close() {
			// Exactly one release per retain: a second close must not drop someone else's reference.
			if (!this.closed.compareAndSet(false, true)) {
				return;
			}
			try {
				this.compute.primaryContextRelease(this.device);
			}
			catch (DriverCallException ex) {
				throw failure(ex, this.ordinal, " releasing the primary context");
			}
		}

		@Override
		public String toString() {
			return "CUDA device " + this.ordinal + " (context " + hex(this.context) + ")";
		}

		private static String hex(long value) {
			return "0x" + Long.toHexString(value);
		}
	}
}
