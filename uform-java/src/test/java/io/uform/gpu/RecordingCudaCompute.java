package io.uform.gpu;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.jna.Pointer;

/**
 * A {@link CudaCompute} over an imagined driver that records every call and checks it is used as
 * the real driver demands, so that binding bugs show up as {@link AssertionError}s in tests rather
 * than as crashes on a GPU.
 *
 * <p>It hands out recognisable fake handles (contexts {@code 0xC000…}, streams {@code 0x1000…},
 * events {@code 0x2000…}, modules {@code 0x3000…}, functions {@code 0x4000…}, device addresses {@code 0x7F00_0000_0000…}),
 * records each call as {@code "cuStreamCreate 1 -> 0x1000"} in {@link #calls}, and tracks what is
 * live so that tests can assert that what was created was destroyed.
 *
 * <p>Misuse it catches: a call that needs a context with none current on the calling thread (or one
 * that was released), a handle or address it never handed out (or already destroyed), one that
 * belongs to another context, a copy that runs past its allocation, and releasing a device more
 * often than it was retained. Real driver statuses it produces itself:
 * {@code CUDA_ERROR_INVALID_VALUE} for a zero-byte allocation, {@code CUDA_ERROR_OUT_OF_MEMORY} past
 * {@link #totalBytes}, {@code CUDA_ERROR_NOT_FOUND} for a kernel name that is no {@code .entry} of the
 * module's PTX. {@link #failNext} makes the next call of a name fail with any status.
 *
 * <p>Allocations of up to 1 MiB are backed by host bytes, so a copy to the device and back returns
 * what was sent. Thread-safe: the current context is per thread, as in CUDA.
 */
final class RecordingCudaCompute implements CudaCompute {

	private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+([A-Za-z_$][\\w$]*)");

	private static final long BACKED_LIMIT = 1 << 20;

	/** One live allocation. */
	private record Allocation(long address, long bytes, long context, byte[] data) {
	}

	/** One kernel launch, as the binding received it. */
	record Launch(long function, int[] grid, int[] block, int sharedBytes, long stream,
			List<DeviceContext.KernelArgument> arguments) {
	}

	/** Every call, in order, like {@code cuMemAlloc_v2 256 -> 0x7f0000000000}. */
	final List<String> calls = new ArrayList<>();

	/** Every launch, in order. */
	final List<Launch> launches = new ArrayList<>();

	/** Device memory {@link #memGetInfo()} reports, and the ceiling allocations fail past. */
	long totalBytes = 80L << 30;

	private final Map<String, Queue<DriverCallException>> failures = new HashMap<>();

	/** Retain count per {@code CUdevice}. */
	private final Map<Integer, Integer> retains = new LinkedHashMap<>();

	/** Live primary context per {@code CUdevice}. */
	private final Map<Integer, Long> contextOfDevice = new HashMap<>();

	private final Set<Long> liveContexts = new HashSet<>();

	private final Map<Long, Long> streams = new LinkedHashMap<>();

	/** Live event to its context. */
	private final Map<Long, Long> events = new LinkedHashMap<>();

	/** Recorded event to the stream it was last recorded on. */
	private final Map<Long, Long> recordedOn = new HashMap<>();

	private final Map<Long, Allocation> allocations = new LinkedHashMap<>();

	private final Map<Long, Long> modules = new LinkedHashMap<>();

	private final Map<Long, Set<String>> moduleEntries = new HashMap<>();

	/** Function handle to its module. */
	private final Map<Long, Long> functions = new HashMap<>();

	/** Per stream, how many more queries (of it, or of an event recorded on it) answer "not ready". */
	private final Map<Long, Integer> busyQueries = new HashMap<>();

	private final ThreadLocal<Long> current = ThreadLocal.withInitial(() -> 0L);

	private long nextContext = 0xC000;

	private long nextStream = 0x1000;

	private long nextEvent = 0x2000;

	private long nextModule = 0x3000;

	private long nextFunction = 0x4000;

	private long nextAddress = 0x7F00_0000_0000L;

	int streamsCreated;

	int streamsDestroyed;

	int retained;

	int released;

	/**
	 * Makes the next call of {@code call} fail with a driver status, once.
	 * @param call the exported symbol, like {@code cuMemAlloc_v2}
	 * @param code the {@code CUresult}
	 * @param name its name, like {@code CUDA_ERROR_OUT_OF_MEMORY}
	 * @return this fake
	 */
	synchronized RecordingCudaCompute failNext(String call, int code, String name) {
		DriverCallException failure = call.equals("cuModuleLoadDataEx")
				? new ModuleLoadException(call, code, name, "")
				: new DriverCallException(call, code, name);
		return failNext(failure);
	}

	/**
	 * Makes the next module load fail with a status and a JIT error log, once.
	 * @param code the {@code CUresult}
	 * @param name its name
	 * @param jitLog what the JIT compiler would write
	 * @return this fake
	 */
	synchronized RecordingCudaCompute failNextModuleLoad(int code, String name, String jitLog) {
		return failNext(new ModuleLoadException("cuModuleLoadDataEx", code, name, jitLog));
	}

	private RecordingCudaCompute failNext(DriverCallException failure) {
		this.failures.computeIfAbsent(failure.call(), (key) -> new ArrayDeque<>()).add(failure);
		return this;
	}

	/** Fails the call if a test asked for it; after the misuse checks, so misuse is never hidden. */
	private void injected(String call) {
		Queue<DriverCallException> queued = this.failures.get(call);
		DriverCallException failure = queued == null ? null : queued.poll();
		if (failure != null) {
			this.calls.add(call + " !! " + failure.statusName());
			throw failure;
		}
	}

	private long requireCurrent(String call) {
		long context = this.current.get();
		if (context == 0) {
			throw new AssertionError(call + " on thread " + Thread.currentThread().getName()
					+ " with no current context: makeCurrent() was not called on this thread");
		}
		if (!this.liveContexts.contains(context)) {
			throw new AssertionError(call + " on thread " + Thread.currentThread().getName() + " with context "
					+ hex(context) + " current, which was released");
		}
		return context;
	}

	private void requireOwned(String call, String what, long handle, Long owner, long context) {
		if (owner == null) {
			throw new AssertionError(call + " given " + what + " " + hex(handle) + ", which was never created or is gone");
		}
		if (owner != context) {
			throw new AssertionError(call + " given " + what + " " + hex(handle) + " of context " + hex(owner)
					+ " while context " + hex(context) + " is current");
		}
	}

	/** Stream 0 is the legacy default stream, valid in every context. */
	private void requireStream(String call, long stream, long context) {
		if (stream != 0) {
			requireOwned(call, "stream", stream, this.streams.get(stream), context);
		}
	}

	private Allocation requireRange(String call, long address, long bytes, long context) {
		if (bytes < 0) {
			throw new AssertionError(call + " given a negative size " + bytes);
		}
		for (Allocation allocation : this.allocations.values()) {
			if (address >= allocation.address && address < allocation.address + allocation.bytes) {
				requireOwned(call, "address", address, allocation.context, context);
				if (address + bytes > allocation.address + allocation.bytes) {
					throw new AssertionError(call + " of " + bytes + " bytes at " + hex(address)
							+ " runs past the allocation of " + allocation.bytes + " bytes at " + hex(allocation.address));
				}
				return allocation;
			}
		}
		throw new AssertionError(call + " given address " + hex(address) + ", inside no live allocation");
	}

	@Override
	public synchronized long primaryContextRetain(int device) {
		String call = "cuDevicePrimaryCtxRetain";
		injected(call);
		Long context = this.contextOfDevice.get(device);
		if (context == null) {
			context = this.nextContext;
			this.nextContext += 0x100;
			this.contextOfDevice.put(device, context);
			this.liveContexts.add(context);
		}
		this.retains.merge(device, 1, Integer::sum);
		this.retained++;
		this.calls.add(call + " " + device + " -> " + hex(context));
		return context;
	}

	@Override
	public synchronized void primaryContextRelease(int device) {
		String call = "cuDevicePrimaryCtxRelease_v2";
		int count = this.retains.getOrDefault(device, 0);
		if (count == 0) {
			throw new AssertionError(call + " of device " + device + ", which holds no retain");
		}
		injected(call);
		this.calls.add(call + " " + device);
		this.released++;
		if (count == 1) {
			// The last release destroys the context; what is still live in it leaks, and tests see it.
			this.retains.remove(device);
			this.liveContexts.remove(this.contextOfDevice.remove(device));
		}
		else {
			this.retains.put(device, count - 1);
		}
	}

	@Override
	public synchronized void setCurrentContext(long context) {
		String call = "cuCtxSetCurrent";
		if (context != 0 && !this.liveContexts.contains(context)) {
			throw new AssertionError(call + " given context " + hex(context) + ", which is not live");
		}
		injected(call);
		this.calls.add(call + " " + hex(context));
		this.current.set(context);
	}

	@Override
	public synchronized long streamCreate(int flags) {
		String call = "cuStreamCreate";
		long context = requireCurrent(call);
		injected(call);
		long stream = this.nextStream;
		this.nextStream += 0x10;
		this.streams.put(stream, context);
		this.streamsCreated++;
		this.calls.add(call + " " + flags + " -> " + hex(stream));
		return stream;
	}

	@Override
	public synchronized void streamDestroy(long stream) {
		String call = "cuStreamDestroy_v2";
		long context = requireCurrent(call);
		requireOwned(call, "stream", stream, this.streams.get(stream), context);
		injected(call);
		this.streams.remove(stream);
		this.streamsDestroyed++;
		this.calls.add(call + " " + hex(stream));
	}

	@Override
	public synchronized void streamSynchronize(long stream) {
		String call = "cuStreamSynchronize";
		long context = requireCurrent(call);
		requireStream(call, stream, context);
		injected(call);
		this.calls.add(call + " " + hex(stream));
	}

	@Override
	public synchronized boolean streamQuery(long stream) {
		String call = "cuStreamQuery";
		long context = requireCurrent(call);
		requireStream(call, stream, context);
		injected(call);
		this.calls.add(call + " " + hex(stream));
		return !busy(stream);
	}

	/** Work queued here is done at once, unless a test made the stream busy; each query uses up one "busy". */
	private boolean busy(long stream) {
		int busy = this.busyQueries.getOrDefault(stream, 0);
		if (busy > 0) {
			this.busyQueries.put(stream, busy - 1);
			return true;
		}
		return false;
	}

	@Override
	public synchronized long eventCreate(int flags) {
		String call = "cuEventCreate";
		long context = requireCurrent(call);
		if ((flags & ~0xF) != 0) {
			throw new AssertionError(call + " given flags " + hex(flags) + ", outside CUevent_flags");
		}
		injected(call);
		long event = this.nextEvent;
		this.nextEvent += 0x10;
		this.events.put(event, context);
		this.calls.add(call + " " + flags + " -> " + hex(event));
		return event;
	}

	@Override
	public synchronized void eventRecord(long event, long stream) {
		String call = "cuEventRecord";
		long context = requireCurrent(call);
		requireOwned(call, "event", event, this.events.get(event), context);
		requireStream(call, stream, context);
		injected(call);
		this.recordedOn.put(event, stream);
		this.calls.add(call + " " + hex(event) + " on " + hex(stream));
	}

	@Override
	public synchronized boolean eventQuery(long event) {
		String call = "cuEventQuery";
		long context = requireCurrent(call);
		requireOwned(call, "event", event, this.events.get(event), context);
		injected(call);
		this.calls.add(call + " " + hex(event));
		// An event never recorded is done, as in CUDA.
		Long stream = this.recordedOn.get(event);
		return stream == null || !busy(stream);
	}

	@Override
	public synchronized void eventDestroy(long event) {
		String call = "cuEventDestroy_v2";
		long context = requireCurrent(call);
		requireOwned(call, "event", event, this.events.get(event), context);
		injected(call);
		this.events.remove(event);
		this.recordedOn.remove(event);
		this.calls.add(call + " " + hex(event));
	}

	/**
	 * Makes the next {@code times} queries of a stream, or of an event recorded on it, answer "not
	 * ready", as for a kernel still running.
	 * @param stream the stream
	 * @param times how many queries
	 * @return this
	 */
	synchronized RecordingCudaCompute busyFor(long stream, int times) {
		this.busyQueries.put(stream, times);
		return this;
	}

	@Override
	public synchronized long memAlloc(long bytes) {
		String call = "cuMemAlloc_v2";
		long context = requireCurrent(call);
		injected(call);
		if (bytes == 0) {
			throw new DriverCallException(call, CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE");
		}
		if (bytes > freeBytes()) {
			this.calls.add(call + " " + bytes + " !! CUDA_ERROR_OUT_OF_MEMORY");
			throw new DriverCallException(call, CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY");
		}
		long address = this.nextAddress;
		// cuMemAlloc aligns to at least 256 bytes; keep the fake's addresses as aligned.
		this.nextAddress += (bytes + 255) & ~255L;
		this.allocations.put(address,
				new Allocation(address, bytes, context, bytes <= BACKED_LIMIT ? new byte[(int) bytes] : null));
		this.calls.add(call + " " + bytes + " -> " + hex(address));
		return address;
	}

	@Override
	public synchronized void memFree(long address) {
		String call = "cuMemFree_v2";
		long context = requireCurrent(call);
		Allocation allocation = this.allocations.get(address);
		requireOwned(call, "address", address, allocation == null ? null : allocation.context, context);
		injected(call);
		this.allocations.remove(address);
		this.calls.add(call + " " + hex(address));
	}

	@Override
	public synchronized DeviceContext.MemoryInfo memGetInfo() {
		String call = "cuMemGetInfo_v2";
		requireCurrent(call);
		injected(call);
		DeviceContext.MemoryInfo info = new DeviceContext.MemoryInfo(freeBytes(), this.totalBytes);
		this.calls.add(call + " -> " + info.freeBytes() + "/" + info.totalBytes());
		return info;
	}

	private long freeBytes() {
		long used = 0;
		for (Allocation allocation : this.allocations.values()) {
			used += allocation.bytes;
		}
		return this.totalBytes - used;
	}

	@Override
	public synchronized void memcpyHtoDAsync(long destination, Pointer source, long bytes, long stream) {
		String call = "cuMemcpyHtoDAsync_v2";
		long context = requireCurrent(call);
		Allocation allocation = requireRange(call, destination, bytes, context);
		requireStream(call, stream, context);
		if (source == null) {
			throw new AssertionError(call + " given a null host pointer");
		}
		injected(call);
		if (allocation.data != null) {
			source.read(0, allocation.data, (int) (destination - allocation.address), (int) bytes);
		}
		this.calls.add(call + " " + hex(destination) + " <- " + hex(Pointer.nativeValue(source)) + " " + bytes
				+ " bytes on " + hex(stream));
	}

	@Override
	public synchronized void memcpyDtoHAsync(Pointer destination, long source, long bytes, long stream) {
		String call = "cuMemcpyDtoHAsync_v2";
		long context = requireCurrent(call);
		Allocation allocation = requireRange(call, source, bytes, context);
		requireStream(call, stream, context);
		if (destination == null) {
			throw new AssertionError(call + " given a null host pointer");
		}
		injected(call);
		if (allocation.data != null) {
			destination.write(0, allocation.data, (int) (source - allocation.address), (int) bytes);
		}
		this.calls.add(call + " " + hex(Pointer.nativeValue(destination)) + " <- " + hex(source) + " " + bytes
				+ " bytes on " + hex(stream));
	}

	@Override
	public synchronized long moduleLoadData(String ptx) {
		String call = "cuModuleLoadDataEx";
		long context = requireCurrent(call);
		if (ptx == null) {
			throw new AssertionError(call + " given no PTX");
		}
		injected(call);
		Set<String> entries = new HashSet<>();
		Matcher matcher = ENTRY.matcher(ptx);
		while (matcher.find()) {
			entries.add(matcher.group(1));
		}
		long module = this.nextModule;
		this.nextModule += 0x10;
		this.modules.put(module, context);
		this.moduleEntries.put(module, entries);
		this.calls.add(call + " " + ptx.length() + " chars -> " + hex(module));
		return module;
	}

	@Override
	public synchronized long moduleGetFunction(long module, String name) {
		String call = "cuModuleGetFunction";
		long context = requireCurrent(call);
		requireOwned(call, "module", module, this.modules.get(module), context);
		injected(call);
		if (!this.moduleEntries.get(module).contains(name)) {
			this.calls.add(call + " " + hex(module) + " " + name + " !! CUDA_ERROR_NOT_FOUND");
			throw new DriverCallException(call, CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND");
		}
		long function = this.nextFunction;
		this.nextFunction += 0x10;
		this.functions.put(function, module);
		this.calls.add(call + " " + hex(module) + " " + name + " -> " + hex(function));
		return function;
	}

	@Override
	public synchronized void moduleUnload(long module) {
		String call = "cuModuleUnload";
		long context = requireCurrent(call);
		requireOwned(call, "module", module, this.modules.get(module), context);
		injected(call);
		this.modules.remove(module);
		this.moduleEntries.remove(module);
		// Its functions die with it, so a later launch of one is caught.
		this.functions.values().removeIf((owner) -> owner == module);
		this.calls.add(call + " " + hex(module));
	}

	@Override
	public synchronized void launchKernel(long function, int gridX, int gridY, int gridZ, int blockX, int blockY,
			int blockZ, int sharedBytes, long stream, DeviceContext.KernelArgument[] arguments) {
		String call = "cuLaunchKernel";
		long context = requireCurrent(call);
		Long module = this.functions.get(function);
		requireOwned(call, "function", function, module == null ? null : this.modules.get(module), context);
		requireStream(call, stream, context);
		if (gridX < 1 || gridY < 1 || gridZ < 1 || blockX < 1 || blockY < 1 || blockZ < 1) {
			throw new AssertionError(call + " given an empty grid or block");
		}
		if (arguments == null) {
			throw new AssertionError(call + " given a null argument array");
		}
		injected(call);
		List<String> packed = new ArrayList<>();
		for (DeviceContext.KernelArgument argument : arguments) {
			packed.add(argument.bytes() + ":" + hex(argument.bits()));
		}
		this.launches.add(new Launch(function, new int[] { gridX, gridY, gridZ }, new int[] { blockX, blockY, blockZ },
				sharedBytes, stream, List.of(arguments)));
		this.calls.add(call + " " + hex(function) + " grid " + gridX + "," + gridY + "," + gridZ + " block " + blockX
				+ "," + blockY + "," + blockZ + " shared " + sharedBytes + " on " + hex(stream) + " args " + packed);
	}

	/**
	 * How many retains a device holds.
	 * @param device a {@code CUdevice}
	 * @return retains minus releases
	 */
	synchronized int retainCount(int device) {
		return this.retains.getOrDefault(device, 0);
	}

	/**
	 * Streams created and not destroyed.
	 * @return their handles
	 */
	synchronized Set<Long> liveStreams() {
		return Set.copyOf(this.streams.keySet());
	}

	/**
	 * Events created and not destroyed.
	 * @return their handles
	 */
	synchronized Set<Long> liveEvents() {
		return Set.copyOf(this.events.keySet());
	}

	/**
	 * Allocations not freed.
	 * @return their addresses
	 */
	synchronized Set<Long> liveAllocations() {
		return Set.copyOf(this.allocations.keySet());
	}

	/**
	 * Modules not unloaded.
	 * @return their handles
	 */
	synchronized Set<Long> liveModules() {
		return Set.copyOf(this.modules.keySet());
	}

	/**
	 * The calls so far, a copy safe to assert on.
	 * @return the calls in order
	 */
	synchronized List<String> calls() {
		return List.copyOf(this.calls);
	}

	/**
	 * The context current on the calling thread.
	 * @return the handle, 0 when none
	 */
	long currentContext() {
		return this.current.get();
	}

	static String hex(long value) {
		return "0x" + Long.toHexString(value);
	}
}
