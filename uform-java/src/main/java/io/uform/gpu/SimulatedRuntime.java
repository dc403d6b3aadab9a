package io.uform.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;

import io.uform.failure.Failures;
import io.uform.gpu.DeviceFacts.Vendor;

/**
 * A {@link GpuRuntime} whose devices are host memory, so that machines without GPUs (tests, the
 * sample application, CI) exercise VRAM executors, scratch, statistics and device panels. Chosen only
 * when asked for (see {@link SimulatedDevices}); listed with {@link DeviceFacts.Vendor#SIMULATED}, after every
 * real GPU.
 *
 * <h2>What is real</h2>
 * Memory: {@link DeviceContext#allocate(long)} takes native host memory, 256-byte aligned as
 * {@code cuMemAlloc} guarantees, and its address is a real host address, so copies move real bytes
 * with {@code memcpy}. Each device has a fixed size that every context of that device shares (as a
 * GPU's memory is shared by every context on it): an allocation past it fails with
 * {@code OUT_OF_MEMORY}, as {@code CUDA_ERROR_OUT_OF_MEMORY} would, and
 * {@link DeviceContext#memoryInfo()} and {@link #usedBytes(int)} count what is allocated. Copies are
 * checked against the allocation they fall in, and addresses this device never gave are refused,
 * where a real GPU would fault or corrupt memory.
 *
 * <h2>Streams and events</h2>
 * Streams are distinct non-zero numbers, not {@code CUstream}s: another GPU library handed a
 * simulated stream address cannot use it. Copies run synchronously when they are queued and kernels
 * do not run, so nothing is ever left running on a stream: {@link DeviceContext#idle(long)} answers
 * {@code true}, an event ({@link DeviceContext#createEvent()}) is done as soon as it is recorded, and
 * {@link DeviceContext#synchronize(long)} returns at once. Streams and events are still checked as
 * CUDA checks them: one destroyed, never made, or made on another device is refused.
 *
 * <h2>What is not</h2>
 * Modules load and functions are found (an entry the PTX does not declare is refused), but
 * {@link DeviceContext#launch} always fails with {@code UNSUPPORTED}: there is no PTX
 * interpreter, so a step with a kernel must run on the host when its device is simulated.
 *
 * <p>As with CUDA's primary context, every context of one device sees the same memory, streams and
 * events, so an address, stream or event from one context works in another of the same device; each
 * context frees what it created when it is closed. All methods are thread-safe.
 */
public final class SimulatedRuntime implements GpuRuntime {

	/** The backend name, as {@link #name()} gives it. */
	public static final String NAME = "simulated";

	/** The GPU class of simulated devices; outside uform's capability vocabulary on purpose. */
	public static final String GPU_CLASS = "simulated";

	/** Alignment of allocations: what {@code cuMemAlloc} guarantees. */
	private static final long ALIGNMENT = 256;

	/**
	 * Largest piece one {@code ByteBuffer} copy moves: buffers are indexed by {@code int}, so bigger
	 * copies go in pieces.
	 */
	private static final long COPY_PIECE = 1L << 30;

	/**
	 * Streams, modules and functions are numbered from one counter shared by all devices, so that a
	 * handle from one device is refused on another; the high bits make them easy to spot in a dump.
	 */
	private static final AtomicLong HANDLES = new AtomicLong(0x51a0_0000_0000_0000L);

	private static volatile SimulatedRuntime system;

	private final SimulatedDevices settings;

	private final List<Device> devices;

	/**
	 * A runtime of the given devices, configured in code; for tests.
	 * @param count how many devices, 0 to {@value SimulatedDevices#MAX_COUNT}
	 * @param memoryBytes memory per device, at least 1
	 * @throws RuntimeException {@code INVALID_ARGUMENT} for a count or size out of range
	 */
	public SimulatedRuntime(int count, long memoryBytes) {
		this(SimulatedDevices.of(count, memoryBytes));
	}

	/**
	 * A runtime of the devices an opt-in asks for; none when it is off.
	 * @param settings the opt-in
	 */
	public SimulatedRuntime(SimulatedDevices settings) {
		this.settings = Objects.requireNonNull(settings, "settings");
		List<Device> made = new ArrayList<>(settings.count());
		for (int ordinal = 0; ordinal < settings.count(); ordinal++) {
			made.add(new Device(ordinal, settings.memoryBytes()));
		}
		this.devices = List.copyOf(made);
	}

	/**
	 * This process's simulated devices, as {@link SimulatedDevices#system()} asks for them: the one
	 * runtime that discovery lists and VRAM executors open, so that readings show their allocations.
	 * @return the runtime, the same one on every call; without devices when the process did not opt in
	 */
	public static SimulatedRuntime system() {
		SimulatedRuntime runtime = system;
		if (runtime == null) {
			synchronized (SimulatedRuntime.class) {
				runtime = system;
				if (runtime == null) {
					runtime = new SimulatedRuntime(SimulatedDevices.system());
					system = runtime;
				}
			}
		}
		return runtime;
	}

	@Override
	public String name() {
		return NAME;
	}

	/**
	 * The opt-in this runtime was built from.
	 * @return the settings, with their problems and note
	 */
	public SimulatedDevices settings() {
		return this.settings;
	}

	/**
	 * The devices, in simulated ordinal order.
	 * @return each device's description, vendor {@link DeviceFacts.Vendor#SIMULATED}
	 */
	public List<DeviceFacts> devices() {
		return this.devices.stream().map((device) -> device.description).toList();
	}

	/**
	 * Memory allocated on a device now, by every context of it.
	 * @param ordinal the simulated ordinal
	 * @return bytes in use
	 * @throws RuntimeException {@code NO_DEVICE} when no simulated device has that ordinal
	 */
	public long usedBytes(int ordinal) {
		return device(ordinal).used.get();
	}

	/**
	 * A device's readings: memory used and total; utilisation, power and temperature are
	 * {@code null}, since host memory has none to report.
	 * @param ordinal the simulated ordinal
	 * @return the readings
	 * @throws RuntimeException {@code NO_DEVICE} when no simulated device has that ordinal
	 */
	public Readings readings(int ordinal) {
		Device device = device(ordinal);
		return new Readings(device.used.get(), device.size, null, null, null);
	}

	@Override
	public DeviceContext open(int ordinal) {
		return new Context(device(ordinal));
	}

	/** What discovery lists: the devices with their readings, the opt-in's problems and its note. */
	GpuScan scan() {
		List<FoundGpu> gpus = new ArrayList<>();
		for (Device device : this.devices) {
			gpus.add(new FoundGpu(device.description, () -> readings(device.ordinal)));
		}
		String note = this.settings.note();
		return new GpuScan(gpus, this.settings.problems(), note == null ? List.of() : List.of(note));
	}

	private Device device(int ordinal) {
		if (ordinal < 0 || ordinal >= this.devices.size()) {
			throw Failures.factory().noDevice("No simulated device with ordinal " + ordinal + ": "
					+ (this.devices.isEmpty() ? "none is simulated; set " + SimulatedDevices.COUNT_PROPERTY + " or "
							+ SimulatedDevices.COUNT_VARIABLE + " to a device count"
							: "simulated ordinals run from 0 to " + (this.devices.size() - 1)), null);
		}
		return this.devices.get(ordinal);
	}

	/** One allocation: the native block that owns it, the aligned range handed out, who made it. */
	private static final class Allocation {

		final Memory block;

		final long address;

		final long bytes;

		final Context owner;

		/**
		 * Copies hold it shared and free holds it exclusive, so that memory freed by one thread while
		 * another copies is refused instead of crashing the JVM: a fault here would be a use after free.
		 */
		final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

		boolean freed;

		Allocation(Memory block, long address, long bytes, Context owner) {
			this.block = block;
			this.address = address;
			this.bytes = bytes;
			this.owner = owner;
		}
	}

	/** One loaded module: its text (to check entries against) and who loaded it. */
	private record Module(String ptx, Context owner) {
	}

	/** State every context of one device shares, as CUDA's primary context is shared. */
	private static final class Device {

		final int ordinal;

		final long size;

		final DeviceFacts description;

		final String label;

		final AtomicLong used = new AtomicLong();

		/** By start address, so a copy finds the allocation an address falls in with one floor look-up. */
		final ConcurrentSkipListMap<Long, Allocation> allocations = new ConcurrentSkipListMap<>();

		/** Stream to the context that created it; stream 0, CUDA's legacy default stream, is not listed. */
		final Map<Long, Context> streams = new ConcurrentHashMap<>();

		/** Event to the context that created it. */
		final Map<Long, Context> events = new ConcurrentHashMap<>();

		final Map<Long, Module> modules = new ConcurrentHashMap<>();

		/** Function handle to the module it was found in. */
		final Map<Long, Long> functions = new ConcurrentHashMap<>();

		Device(int ordinal, long size) {
			this.ordinal = ordinal;
			this.size = size;
			String name = "Simulated GPU " + ordinal + " (host memory)";
			this.description = new DeviceFacts(Vendor.SIMULATED, ordinal, GPU_CLASS, 1, size, name,
					"GPU-SIMULATED-" + ordinal, null);
			this.label = name;
		}
	}

	/** One open device. */
	private static final class Context implements DeviceContext {

		private final Device device;

		private final AtomicBoolean closed = new AtomicBoolean();

		Context(Device device) {
			this.device = device;
		}

		@Override
		public int ordinal() {
			return this.device.ordinal;
		}

		@Override
		public void makeCurrent() {
			// Host memory needs no thread binding; only a closed context is refused, as CUDA would.
			ensureOpen("cuCtxSetCurrent");
		}

		@Override
		public long createStream() {
			ensureOpen("cuStreamCreate");
			long stream = HANDLES.incrementAndGet();
			this.device.streams.put(stream, this);
			if (this.closed.get()) {
				// close() ran between the check and the put and may have missed this stream.
				this.device.streams.remove(stream);
				throw closedError("cuStreamCreate");
			}
			return stream;
		}

		@Override
		public void destroyStream(long stream) {
			ensureOpen("cuStreamDestroy_v2");
			if (stream == 0 || this.device.streams.remove(stream) == null) {
				throw error("cuStreamDestroy_v2", unknownStream(stream));
			}
		}

		@Override
		public void synchronize(long stream) {
			stream("cuStreamSynchronize", stream);
		}

		@Override
		public boolean idle(long stream) {
			stream("cuStreamQuery", stream);
			return true;
		}

		@Override
		public long createEvent() {
			ensureOpen("cuEventCreate");
			long event = HANDLES.incrementAndGet();
			this.device.events.put(event, this);
			if (this.closed.get()) {
				// As for a stream: close() ran between the check and the put and may have missed it.
				this.device.events.remove(event);
				throw closedError("cuEventCreate");
			}
			return event;
		}

		@Override
		public void recordEvent(long event, long stream) {
			stream("cuEventRecord", stream);
			event("cuEventRecord", event);
		}

		@Override
		public boolean eventDone(long event) {
			ensureOpen("cuEventQuery");
			event("cuEventQuery", event);
			return true;
		}

		@Override
		public void destroyEvent(long event) {
			ensureOpen("cuEventDestroy_v2");
			if (event == 0 || this.device.events.remove(event) == null) {
				throw error("cuEventDestroy_v2", unknownEvent(event));
			}
		}

		private void event(String call, long event) {
			if (!this.device.events.containsKey(event)) {
				throw error(call, unknownEvent(event));
			}
		}

		private static String unknownEvent(long event) {
			return hex(event) + " is not an event created on this device (destroyed already, or from another device)";
		}

		@Override
		public long allocate(long bytes) {
			ensureOpen("cuMemAlloc_v2");
			if (bytes < 1) {
				throw error("cuMemAlloc_v2", "asked for " + bytes + " bytes; allocate at least 1");
			}
			reserve(bytes);
			Memory block;
			try {
				block = new Memory(bytes + ALIGNMENT - 1);
			}
			catch (OutOfMemoryError ex) {
				this.device.used.addAndGet(-bytes);
				throw Failures.factory().outOfMemory(this.device.label + " could not take " + bytes
						+ " bytes of host memory (" + ex.getMessage() + "); the simulated device's memory is host "
						+ "memory, so give it less with " + SimulatedDevices.MEMORY_PROPERTY, ex);
			}
			long address = (Pointer.nativeValue(block) + ALIGNMENT - 1) & -ALIGNMENT;
			Allocation allocation = new Allocation(block, address, bytes, this);
			this.device.allocations.put(address, allocation);
			if (this.closed.get()) {
				// close() ran meanwhile and may have missed it; free it here so nothing leaks.
				release(allocation);
				throw closedError("cuMemAlloc_v2");
			}
			return address;
		}

		/** Counts bytes against the device's size, atomically, so concurrent allocations never overshoot. */
		private void reserve(long bytes) {
			while (true) {
				long before = this.device.used.get();
				if (bytes > this.device.size - before) {
					throw Failures.factory().outOfMemory(this.device.label + " is out of memory: "
							+ "cuMemAlloc_v2 of " + bytes + " bytes with " + before + " of " + this.device.size
							+ " bytes in use (CUDA_ERROR_OUT_OF_MEMORY on a real GPU); free device memory first, or "
							+ "give simulated devices more with " + SimulatedDevices.MEMORY_PROPERTY, null);
				}
				if (this.device.used.compareAndSet(before, before + bytes)) {
					return;
				}
			}
		}

		@Override
		public void free(long address) {
			ensureOpen("cuMemFree_v2");
			Allocation allocation = this.device.allocations.get(address);
			if (allocation == null || !release(allocation)) {
				throw error("cuMemFree_v2", hex(address) + " is not the start of an allocation on this device "
						+ "(freed already, never allocated, or allocated on another device)");
			}
		}

		/**
		 * Frees an allocation once: whoever removes it from the map first frees it and stops counting it.
		 * @return {@code false} when another thread freed it first
		 */
		private boolean release(Allocation allocation) {
			if (!this.device.allocations.remove(allocation.address, allocation)) {
				return false;
			}
			allocation.lock.writeLock().lock();
			try {
				allocation.freed = true;
				allocation.block.close();
			}
			finally {
				allocation.lock.writeLock().unlock();
			}
			this.device.used.addAndGet(-allocation.bytes);
			return true;
		}

		@Override
		public MemoryInfo memoryInfo() {
			ensureOpen("cuMemGetInfo_v2");
			return new MemoryInfo(this.device.size - this.device.used.get(), this.device.size);
		}

		@Override
		public void copyToDevice(long device, Pointer host, long bytes, long stream) {
			copy("cuMemcpyHtoDAsync_v2", device, host, bytes, stream, true);
		}

		@Override
		public void copyToHost(Pointer host, long device, long bytes, long stream) {
			copy("cuMemcpyDtoHAsync_v2", device, host, bytes, stream, false);
		}

		private void copy(String call, long address, Pointer host, long bytes, long stream, boolean toDevice) {
			stream(call, stream);
			if (host == null) {
				throw error(call, "the host pointer is null");
			}
			if (bytes < 0) {
				throw error(call, "asked to copy " + bytes + " bytes");
			}
			// A host Memory knows its size, so an overrun on that side is caught too where it can be.
			if (host instanceof Memory memory && bytes > memory.size()) {
				throw error(call, "the host memory holds " + memory.size() + " bytes, fewer than the " + bytes
						+ " to copy");
			}
			Map.Entry<Long, Allocation> entry = this.device.allocations.floorEntry(address);
			Allocation allocation = entry == null ? null : entry.getValue();
			if (allocation == null || address - allocation.address >= allocation.bytes) {
				throw error(call, hex(address) + " is not inside an allocation on this device (freed, never "
						+ "allocated, or allocated on another device)");
			}
			long offset = address - allocation.address;
			if (bytes > allocation.bytes - offset) {
				throw error(call, bytes + " bytes at " + hex(address) + " run past the end of its allocation ("
						+ allocation.bytes + " bytes at " + hex(allocation.address) + ", " + (allocation.bytes - offset)
						+ " left from that address)");
			}
			allocation.lock.readLock().lock();
			try {
				if (allocation.freed) {
					throw error(call, hex(address) + " was freed while the copy was being queued");
				}
				Pointer device = new Pointer(address);
				if (toDevice) {
					memcpy(device, host, bytes);
				}
				else {
					memcpy(host, device, bytes);
				}
			}
			finally {
				allocation.lock.readLock().unlock();
			}
		}

		/** Native to native, without a Java array in between: direct buffers copy with one memcpy. */
		private static void memcpy(Pointer to, Pointer from, long bytes) {
			for (long done = 0; done < bytes; done += COPY_PIECE) {
				long piece = Math.min(COPY_PIECE, bytes - done);
				to.getByteBuffer(done, piece).put(from.getByteBuffer(done, piece));
			}
		}

		@Override
		public long loadModule(String ptx) {
			ensureOpen("cuModuleLoadDataEx");
			if (ptx == null || ptx.isBlank()) {
				throw error("cuModuleLoadDataEx", "the PTX text is empty");
			}
			long module = HANDLES.incrementAndGet();
			this.device.modules.put(module, new Module(ptx, this));
			if (this.closed.get()) {
				unload(module);
				throw closedError("cuModuleLoadDataEx");
			}
			return module;
		}

		@Override
		public long function(long module, String entry) {
			ensureOpen("cuModuleGetFunction");
			Module loaded = this.device.modules.get(module);
			if (loaded == null) {
				throw error("cuModuleGetFunction", hex(module) + " is not a module loaded on this device");
			}
			// Finding entries the way CUDA would (CUDA_ERROR_NOT_FOUND) catches misspelt kernel names on
			// machines without a GPU, which is much of what simulation is for.
			if (entry == null
					|| !Pattern.compile("\\.entry\\s+" + Pattern.quote(entry) + "\\s*\\(").matcher(loaded.ptx()).find()) {
				throw error("cuModuleGetFunction", "the module declares no kernel named " + entry
						+ " (no \".entry " + entry + "(\" in its PTX)");
			}
			long function = HANDLES.incrementAndGet();
			this.device.functions.put(function, module);
			return function;
		}

		@Override
		public void unloadModule(long module) {
			ensureOpen("cuModuleUnload");
			if (!unload(module)) {
				throw error("cuModuleUnload", hex(module) + " is not a module loaded on this device");
			}
		}

		private boolean unload(long module) {
			if (this.device.modules.remove(module) == null) {
				return false;
			}
			this.device.functions.values().removeIf((owner) -> owner == module);
			return true;
		}

		@Override
		public void launch(long function, int[] grid, int[] block, int sharedBytes, long stream,
				KernelArgument[] arguments) {
			ensureOpen("cuLaunchKernel");
			throw Failures.factory().unsupported("cuLaunchKernel on " + this.device.label + ": a simulated "
					+ "device cannot run PTX kernels; run this step on the host (Executor.forRam) when the device is "
					+ "simulated, or on a real GPU");
		}

		@Override
		public void close() {
			if (!this.closed.compareAndSet(false, true)) {
				return;
			}
			// Only what this context made: other contexts of the device keep theirs, as with CUDA's
			// primary context, which outlives each retain.
			for (Allocation allocation : this.device.allocations.values()) {
				if (allocation.owner == this) {
					release(allocation);
				}
			}
			this.device.streams.values().removeIf((owner) -> owner == this);
			this.device.events.values().removeIf((owner) -> owner == this);
			for (Map.Entry<Long, Module> module : this.device.modules.entrySet()) {
				if (module.getValue().owner() == this) {
					unload(module.getKey());
				}
			}
		}

		private void stream(String call, long stream) {
			ensureOpen(call);
			// 0 is CUDA's legacy default stream, which every context has.
			if (stream != 0 && !this.device.streams.containsKey(stream)) {
				throw error(call, unknownStream(stream));
			}
		}

		private static String unknownStream(long stream) {
			return hex(stream) + " is not a stream created on this device (destroyed already, or from another "
					+ "device or library)";
		}

		private void ensureOpen(String call) {
			if (this.closed.get()) {
				throw closedError(call);
			}
		}

		private RuntimeException closedError(String call) {
			return error(call, "the device context is closed");
		}

		private RuntimeException error(String call, String what) {
			return Failures.factory().deviceError(call + " failed on " + this.device.label + ": " + what, null);
		}

		private static String hex(long value) {
			return "0x" + Long.toHexString(value);
		}

		@Override
		public String toString() {
			return "SimulatedRuntime.Context[" + this.device.label + (this.closed.get() ? ", closed]" : "]");
		}
	}
}
