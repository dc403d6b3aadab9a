package io.uform.gpu;

import com.sun.jna.Pointer;

/**
 * One open device of a {@link GpuRuntime}: its context, and the driver calls a VRAM executor makes
 * on it. Every method that talks to the device requires {@link #makeCurrent()} on the calling
 * thread first (CUDA binds contexts to threads); the executor does that, never user code.
 *
 * <p>Handles ({@code CUstream}, {@code CUmodule}, {@code CUfunction}) and device addresses
 * ({@code CUdeviceptr}) are plain {@code long}s here; they never reach user code except a stream
 * address, which is public so that other GPU libraries can run on the executor's stream.
 *
 * <p>Every failing call throws what {@link io.uform.failure.FailureFactory} makes: {@code OUT_OF_MEMORY} for
 * {@code CUDA_ERROR_OUT_OF_MEMORY}, {@code UNSUPPORTED} for what a backend cannot do (a kernel
 * launch on a simulated device), {@code DEVICE_ERROR} otherwise, the message naming the driver call
 * and the driver's status name (like {@code cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (218)}).
 */
public interface DeviceContext extends AutoCloseable {

	/** {@code CU_STREAM_NON_BLOCKING}: no implicit synchronisation with the legacy NULL stream. */
	int STREAM_NON_BLOCKING = 0x1;

	/**
	 * The backend's ordinal of this device.
	 * @return the ordinal {@link GpuRuntime#open(int)} was given
	 */
	int ordinal();

	/** Binds this device's context to the calling thread ({@code cuCtxSetCurrent}). */
	void makeCurrent();

	/**
	 * Creates a stream ({@code cuStreamCreate} with {@link #STREAM_NON_BLOCKING}).
	 * @return the {@code CUstream} handle, never 0
	 */
	long createStream();

	/**
	 * Destroys a stream this context created ({@code cuStreamDestroy_v2}); never called on a
	 * borrowed stream.
	 * @param stream a handle from {@link #createStream()}
	 */
	void destroyStream(long stream);

	/**
	 * Waits until every operation queued on the stream is done ({@code cuStreamSynchronize}).
	 * @param stream a stream handle
	 */
	void synchronize(long stream);

	/**
	 * Whether every operation queued on the stream is done, without waiting ({@code cuStreamQuery}).
	 * It sees work queued a moment ago too, so a wait with a deadline polls an event
	 * ({@link #eventDone(long)}) instead.
	 * @param stream a stream handle
	 * @return {@code true} when nothing queued is left
	 */
	boolean idle(long stream);

	/**
	 * Creates an event that only marks completion ({@code cuEventCreate} with
	 * {@code CU_EVENT_DISABLE_TIMING}); destroy it with {@link #destroyEvent(long)}.
	 * @return the {@code CUevent} handle, never 0
	 */
	long createEvent();

	/**
	 * Records the event on the stream ({@code cuEventRecord}): it completes once the work queued on the
	 * stream before this call is done, whatever other code queues on the stream afterwards.
	 * @param event a handle from {@link #createEvent()}
	 * @param stream a stream handle
	 */
	void recordEvent(long event, long stream);

	/**
	 * Whether the work the event was recorded after is done, without waiting ({@code cuEventQuery}):
	 * what a wait with a deadline polls.
	 * @param event a handle from {@link #createEvent()}
	 * @return {@code true} when that work is done (or the event was never recorded)
	 */
	boolean eventDone(long event);

	/**
	 * Destroys an event ({@code cuEventDestroy_v2}); one still pending is freed by the driver once its
	 * work is done.
	 * @param event a handle from {@link #createEvent()}
	 */
	void destroyEvent(long event);

	/**
	 * Allocates device memory ({@code cuMemAlloc_v2}).
	 * @param bytes at least 1
	 * @return the device address
	 */
	long allocate(long bytes);

	/**
	 * Frees device memory ({@code cuMemFree_v2}).
	 * @param address an address from {@link #allocate(long)}
	 */
	void free(long address);

	/**
	 * Free and total device memory ({@code cuMemGetInfo_v2}).
	 * @return the two figures
	 */
	MemoryInfo memoryInfo();

	/**
	 * Queues a host-to-device copy on the stream ({@code cuMemcpyHtoDAsync_v2}). The host memory
	 * must stay alive and unchanged until the stream is synchronised.
	 * @param device the destination device address
	 * @param host the source, native memory
	 * @param bytes how many bytes
	 * @param stream the stream
	 */
	void copyToDevice(long device, Pointer host, long bytes, long stream);

	/**
	 * Queues a device-to-host copy on the stream ({@code cuMemcpyDtoHAsync_v2}); the bytes are in
	 * {@code host} once the stream is synchronised.
	 * @param host the destination, native memory
	 * @param device the source device address
	 * @param bytes how many bytes
	 * @param stream the stream
	 */
	void copyToHost(Pointer host, long device, long bytes, long stream);

	/**
	 * Loads a PTX module ({@code cuModuleLoadDataEx}, with the JIT error log quoted on failure).
	 * @param ptx the module's text
	 * @return the {@code CUmodule} handle
	 */
	long loadModule(String ptx);

	/**
	 * Finds a kernel in a module ({@code cuModuleGetFunction}).
	 * @param module a handle from {@link #loadModule(String)}
	 * @param entry the kernel's name
	 * @return the {@code CUfunction} handle
	 */
	long function(long module, String entry);

	/**
	 * Unloads a module ({@code cuModuleUnload}).
	 * @param module a handle from {@link #loadModule(String)}
	 */
	void unloadModule(long module);

	/**
	 * Queues a kernel launch on the stream ({@code cuLaunchKernel}).
	 * @param function a handle from {@link #function(long, String)}
	 * @param grid blocks in x, y, z, each at least 1
	 * @param block threads per block in x, y, z, each at least 1
	 * @param sharedBytes dynamic shared memory per block
	 * @param stream the stream
	 * @param arguments the kernel's parameters, in order, by value
	 */
	void launch(long function, int[] grid, int[] block, int sharedBytes, long stream, KernelArgument[] arguments);

	/**
	 * Releases the device ({@code cuDevicePrimaryCtxRelease_v2}); nothing may be called after.
	 */
	@Override
	void close();

	/**
	 * Device memory figures.
	 * @param freeBytes memory free now
	 * @param totalBytes memory installed
	 */
	record MemoryInfo(long freeBytes, long totalBytes) {
	}

	/**
	 * One kernel parameter by value: 4 or 8 bytes, as the kernel declares it.
	 * @param bytes 4 or 8
	 * @param bits the value's bits, in the low {@code bytes} bytes (little-endian in memory)
	 */
	record KernelArgument(int bytes, long bits) {

		/** Checks the size. */
		public KernelArgument {
			if (bytes != 4 && bytes != 8) {
				throw new IllegalArgumentException("a kernel parameter is 4 or 8 bytes, not " + bytes);
			}
		}
	}
}
