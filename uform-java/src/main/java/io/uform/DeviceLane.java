package io.uform;

import java.util.function.Supplier;

import io.uform.gpu.ScratchArena;
import io.uform.gpu.VramDevice;

/**
 * One device of a VRAM executor as work sees it: the device, its stream, its scratch, and the verbs
 * that queue work on that stream. {@link Executor#forDevices(DeviceTask)} hands each task its lane;
 * {@link Executor#lanes()} gives them to deferred calls and other code.
 *
 * <h2>Order and waiting</h2>
 * Copies and launches are queued on the device's one stream and run in the order they were queued;
 * they return before the device has done them. {@link #synchronize()} waits until everything queued
 * is done: read results only after it. Host buffers stay alive until then ({@link HostBuffer#close()}
 * synchronises first).
 *
 * <h2>Threads</h2>
 * Every verb makes the device's context current on the calling thread first (a cheap call), so a
 * lane can be used from any thread; queue work on one lane from one thread at a time, since the
 * order of work on a stream is the order of the calls.
 *
 * <h2>Freeing</h2>
 * A lane keeps its executor reachable: code that holds only lanes (or buffers and kernels, which hold
 * their lane) never has the executor's devices released under it by the garbage collector. A verb
 * that races {@link Executor#free()} either finishes before the device is released or fails with
 * {@link UformException.Status#FREED}; free waits for the verbs in progress, never gives memory back
 * under a copy that is being queued.
 *
 * <h2>Foreign libraries</h2>
 * {@link #streamAddress()} is the {@code CUstream} that JCuda, ONNX Runtime's CUDA provider or any
 * other CUDA library can queue work on, so that it is ordered with the executor's own work. On a
 * simulated device it is a placeholder that no CUDA library can use.
 */
public final class DeviceLane {

	/**
	 * The executor this lane belongs to, held so that it stays reachable while the lane is: its
	 * Cleaner releases the devices once the executor is unreachable.
	 */
	private final Executor owner;

	private final String executor;

	private final VramDevice device;

	/** The device as the API describes it. */
	private final GpuDevice described;

	DeviceLane(Executor owner, VramDevice device, GpuDevice described) {
		this.owner = owner;
		this.executor = owner.name();
		this.device = device;
		this.described = described;
	}

	/**
	 * The device's position among the executor's devices.
	 * @return from 0
	 */
	public int index() {
		return this.device.index();
	}

	/**
	 * The device.
	 * @return its description, as {@link Uform#gpuDevices()} lists it
	 */
	public GpuDevice device() {
		return this.described;
	}

	/**
	 * The device's ordinal in its vendor's runtime as this process sees it, to hand to another GPU
	 * library: for an NVIDIA device the CUDA ordinal that {@code cuDeviceGet} and ONNX Runtime's
	 * {@code device_id} take, counted after {@code CUDA_VISIBLE_DEVICES}. Not
	 * {@link GpuDevice#vendorOrdinal()}, which is {@code nvidia-smi}'s index (it ignores
	 * {@code CUDA_VISIBLE_DEVICES}) and may be {@code -1}.
	 * @return from 0
	 */
	public int runtimeOrdinal() {
		return this.device.ordinal();
	}

	/**
	 * The stream's address, to hand to another GPU library.
	 * @return the {@code CUstream}; a placeholder on a simulated device
	 */
	public long streamAddress() {
		return this.device.stream();
	}

	/**
	 * Whether this device is simulated (host memory, no kernels).
	 * @return {@code true} for a simulated device
	 */
	public boolean simulated() {
		return this.described.vendor() == GpuVendor.SIMULATED;
	}

	/**
	 * Reserves scratch on this device; close the buffer to give it back.
	 * @param bytes at least 1
	 * @return the reservation
	 * @throws UformException {@link UformException.Status#OUT_OF_MEMORY} past the executor's
	 *         {@code scratchLimit} or the device's memory, naming both; the executor stays usable
	 */
	public DeviceBuffer reserve(long bytes) {
		ScratchArena scratch = this.device.scratch();
		return onDevice(() -> new DeviceBuffer(this, scratch, scratch.reserve(bytes), bytes));
	}

	/**
	 * Native host memory to copy from and to.
	 * @param bytes at least 1
	 * @return the buffer; close it when done
	 */
	public HostBuffer hostBuffer(long bytes) {
		if (bytes < 1) {
			throw UformException.invalid("bytes", bytes, "a host buffer holds at least 1 byte");
		}
		return new HostBuffer(this, bytes);
	}

	/**
	 * Queues a copy of a whole host buffer to the start of a device buffer.
	 * @param from the source
	 * @param to the destination, at least as large
	 */
	public void copyToDevice(HostBuffer from, DeviceBuffer to) {
		requireHostBuffer(from);
		copyToDevice(from, 0, to, 0, from.bytes());
	}

	/**
	 * Queues a host-to-device copy on the stream.
	 * @param from the source
	 * @param fromOffset where in it, in bytes
	 * @param to the destination, a reservation of this device
	 * @param toOffset where in it, in bytes
	 * @param bytes how many
	 */
	public void copyToDevice(HostBuffer from, long fromOffset, DeviceBuffer to, long toOffset, long bytes) {
		requireHostBuffer(from);
		from.requireLane(this, "copyToDevice");
		long device = deviceRange(to, toOffset, bytes, "copyToDevice");
		// Under the buffer's monitor until the copy is queued: close() takes it too, then waits for the
		// stream, so the memory is never freed under a copy in flight. The monitor comes first, as in
		// close(), which enters the device to wait for the stream while it holds the monitor.
		synchronized (from) {
			onDevice(() -> this.device.context().copyToDevice(device, from.pointer(fromOffset, bytes, "copyToDevice"),
					bytes, this.device.stream()));
		}
	}

	/**
	 * Queues a copy of the start of a device buffer into a whole host buffer.
	 * @param from the source, at least as large as {@code to}
	 * @param to the destination
	 */
	public void copyToHost(DeviceBuffer from, HostBuffer to) {
		requireHostBuffer(to);
		copyToHost(from, 0, to, 0, to.bytes());
	}

	/**
	 * Queues a device-to-host copy on the stream; the bytes are there after {@link #synchronize()}.
	 * @param from the source, a reservation of this device
	 * @param fromOffset where in it, in bytes
	 * @param to the destination
	 * @param toOffset where in it, in bytes
	 * @param bytes how many
	 */
	public void copyToHost(DeviceBuffer from, long fromOffset, HostBuffer to, long toOffset, long bytes) {
		requireHostBuffer(to);
		to.requireLane(this, "copyToHost");
		long device = deviceRange(from, fromOffset, bytes, "copyToHost");
		// As in copyToDevice: the buffer cannot be closed while the copy is being queued; monitor first.
		synchronized (to) {
			onDevice(() -> this.device.context().copyToHost(to.pointer(toOffset, bytes, "copyToHost"), device, bytes,
					this.device.stream()));
		}
	}

	/**
	 * Loads a kernel on this device; its module is loaded the first time this device sees its PTX.
	 * @param source the PTX and the kernel's name
	 * @return the kernel, for {@link #launch}
	 * @throws UformException {@link UformException.Status#DEVICE_ERROR} when the driver refuses the
	 *         module (the JIT log says why) or has no such kernel
	 */
	public Kernel kernel(KernelSource source) {
		UformException.requireArgument(source, "source", "pass a KernelSource, e.g. Kernels.dotF32()");
		return onDevice(() -> new Kernel(this, source.entry(), this.device.function(source.ptx(), source.entry())));
	}

	/**
	 * Queues a kernel launch on the stream.
	 * @param kernel a kernel loaded on this device
	 * @param grid blocks in x, y, z (1 to 3 values; missing ones are 1), each at least 1
	 * @param block threads per block in x, y, z (1 to 3 values), each at least 1
	 * @param sharedBytes dynamic shared memory per block, 0 or more
	 * @param args the kernel's parameters, in order
	 * @throws UformException {@link UformException.Status#UNSUPPORTED} on a simulated device (run
	 *         the step on the host instead)
	 */
	public void launch(Kernel kernel, int[] grid, int[] block, int sharedBytes, KernelArgs args) {
		UformException.requireArgument(kernel, "kernel", "pass a Kernel from lane.kernel(source)");
		UformException.requireArgument(args, "args", "pass KernelArgs.of()... with the kernel's parameters");
		int[] gridXyz = dimensions(grid, "grid");
		int[] blockXyz = dimensions(block, "block");
		if (sharedBytes < 0) {
			throw UformException.invalid("sharedBytes", sharedBytes, "dynamic shared memory is 0 or more bytes");
		}
		long function = kernel.function(this);
		onDevice(() -> this.device.context().launch(function, gridXyz, blockXyz, sharedBytes, this.device.stream(),
				args.resolve(this, "the launch of " + kernel.entry())));
	}

	/**
	 * Queues the shipped batched dot-product kernel ({@link Kernels#dotF32()}) with its launch shape:
	 * {@code scores[q * rows + r] = dot(queries[q], matrix[r])}.
	 * @param matrix {@code rows x dim} floats, row-major, on this device
	 * @param queries {@code nqueries x dim} floats, row-major, on this device
	 * @param scores {@code nqueries x rows} floats, written
	 * @param rows matrix rows
	 * @param dim floats per row
	 * @param nqueries queries
	 */
	public void dotProducts(DeviceBuffer matrix, DeviceBuffer queries, DeviceBuffer scores, int rows, int dim,
			int nqueries) {
		if (rows < 0 || dim < 0 || nqueries < 0) {
			throw UformException.invalid("rows, dim, nqueries", rows + ", " + dim + ", " + nqueries, "none may be negative");
		}
		requireBytes(matrix, (long) rows * dim, "matrix");
		requireBytes(queries, (long) nqueries * dim, "queries");
		requireBytes(scores, (long) nqueries * rows, "scores");
		if (rows == 0 || nqueries == 0) {
			return;
		}
		int rowsPerBlock = Kernels.dotF32Launch("rowsPerBlock");
		long blocks = Math.min(((long) rows + rowsPerBlock - 1) / rowsPerBlock, Integer.MAX_VALUE);
		launch(kernel(Kernels.dotF32()), new int[] { (int) blocks }, new int[] { Kernels.dotF32Launch("blockThreads") },
				Kernels.dotF32Launch("sharedBytes"),
				KernelArgs.of().buffer(matrix).buffer(queries).buffer(scores).u32(rows).u32(dim).u32(nqueries));
	}

	/** Waits until everything queued on this device's stream is done. */
	public void synchronize() {
		onDevice(() -> this.device.synchronize());
	}

	/**
	 * Marks the work queued on the stream so far with an event ({@code cuEventRecord}), for a wait
	 * with a deadline that must not also wait for work queued afterwards, by this executor or by
	 * another library on a borrowed stream. {@link #forget(long)} it in every case.
	 * @return the event
	 */
	long mark() {
		return onDevice(() -> this.device.recordEvent());
	}

	/**
	 * Whether the work a mark was recorded after is done, without waiting ({@code cuEventQuery}).
	 * @param mark from {@link #mark()}
	 * @return {@code true} once it is done
	 */
	boolean reached(long mark) {
		return onDevice(() -> this.device.eventDone(mark));
	}

	/**
	 * Destroys a mark. Once the executor's release has begun, leaves it to the release, which destroys
	 * every mark still live before it closes the context (see {@link VramDevice}).
	 * @param mark from {@link #mark()}
	 */
	void forget(long mark) {
		if (this.device.released()) {
			return;
		}
		try {
			onDevice(() -> this.device.destroyEvent(mark));
		}
		catch (UformException ex) {
			if (ex.status() != UformException.Status.FREED || !this.device.released()) {
				throw ex;
			}
			// Released between the check and the entry: the release destroys it.
		}
	}

	/**
	 * Whether the executor's release of this device has begun: verbs are refused from then on. Never
	 * waits, unlike a verb called at that moment, which waits for the release while it waits for the
	 * verbs in progress.
	 * @return {@code true} once the release has begun
	 */
	boolean releaseBegun() {
		return this.device.released();
	}

	/** Makes the device's context current on the calling thread, before a device task runs. */
	void bind() {
		this.device.makeCurrentForWork(this.executor);
	}

	/**
	 * Runs one verb on the device: lets it in (failing with {@code FREED} once the executor's release
	 * has begun) and out again, so that the release waits for it.
	 */
	private <T> T onDevice(Supplier<T> verb) {
		this.device.enterWork(this.executor);
		try {
			return verb.get();
		}
		finally {
			this.device.exitWork();
		}
	}

	private void onDevice(Runnable verb) {
		onDevice(() -> {
			verb.run();
			return null;
		});
	}

	/**
	 * Waits for the stream, so that no queued copy still uses a host buffer about to be freed. Once the
	 * executor's release has begun, waits for the release to end instead: the release synchronises the
	 * stream, but only after the verbs in flight on other threads, and until then a copy queued into
	 * the buffer may still be running.
	 */
	void synchronizeIfLive() {
		if (this.device.released()) {
			this.device.awaitReleaseDone();
			return;
		}
		try {
			synchronize();
		}
		catch (UformException ex) {
			if (ex.status() != UformException.Status.FREED || !this.device.released()) {
				throw ex;
			}
			// Released between the check and the wait.
			this.device.awaitReleaseDone();
		}
	}

	@Override
	public String toString() {
		return "DeviceLane[" + this.executor + ", device " + index() + ": " + device().name() + "]";
	}

	private long deviceRange(DeviceBuffer buffer, long offset, long bytes, String use) {
		UformException.requireArgument(buffer, "device buffer", "pass a DeviceBuffer from lane.reserve(bytes)");
		long address = buffer.address(this, use);
		if (offset < 0 || bytes < 0 || offset > buffer.bytes() - bytes) {
			throw UformException.invalid("offset", offset, use + " of " + bytes + " bytes does not fit a device buffer of "
					+ buffer.bytes() + " bytes");
		}
		return address + offset;
	}

	private static void requireHostBuffer(HostBuffer buffer) {
		UformException.requireArgument(buffer, "host buffer", "pass a HostBuffer from lane.hostBuffer(bytes)");
	}

	private static void requireBytes(DeviceBuffer buffer, long floats, String name) {
		UformException.requireArgument(buffer, name, "pass a DeviceBuffer from lane.reserve(bytes)");
		// Compared in floats: rows and dim near Integer.MAX_VALUE make floats * 4 overflow a long.
		if (buffer.bytes() / Float.BYTES < floats) {
			throw UformException.invalid(name, buffer, "needs " + floats + " floats (" + floats + " x " + Float.BYTES
					+ " bytes)");
		}
	}

	private static int[] dimensions(int[] given, String name) {
		UformException.requireArgument(given, name, "pass 1 to 3 sizes, e.g. new int[] { blocks }");
		if (given.length < 1 || given.length > 3) {
			throw UformException.invalid(name, java.util.Arrays.toString(given), "takes 1 to 3 sizes (x, y, z)");
		}
		int[] xyz = { 1, 1, 1 };
		for (int i = 0; i < given.length; i++) {
			if (given[i] < 1) {
				throw UformException.invalid(name, java.util.Arrays.toString(given), "every size is at least 1");
			}
			xyz[i] = given[i];
		}
		return xyz;
	}
}
