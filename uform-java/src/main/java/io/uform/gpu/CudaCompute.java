package io.uform.gpu;

import com.sun.jna.Pointer;

/**
 * The narrow slice of {@code libcuda.so.1} that compute needs (contexts, streams, memory, modules,
 * launches), one method per driver call, so that {@link CudaRuntime} holds all the logic and tests
 * drive it with a recording fake. {@link JnaCudaCompute} is the real one. {@code cuInit} and
 * {@code cuDeviceGet} are on {@link CudaDriver}, which discovery shares.
 *
 * <p>Every method returns the call's result or throws {@link DriverCallException} carrying the
 * driver's status code and name; none returns a sentinel. Handles ({@code CUcontext},
 * {@code CUstream}, {@code CUmodule}, {@code CUfunction}) and device addresses ({@code CUdeviceptr})
 * are plain {@code long}s: the native pointer's value, never 0 for a live object.
 *
 * <p>Context binding is per host thread (native-interfaces.md 1.3): every method except
 * {@link #primaryContextRetain}, {@link #primaryContextRelease} and {@link #setCurrentContext} needs
 * the owning context current on the calling thread first.
 *
 * <p>Events ({@link #eventCreate}, {@link #eventRecord}, {@link #eventQuery}, {@link #eventDestroy})
 * are how a wait with a deadline asks "is the work queued so far done?" without also waiting for
 * work other code queues on the same stream afterwards, which {@link #streamQuery} would see.
 */
public interface CudaCompute {

	/** {@code CUDA_ERROR_INVALID_VALUE}. */
	int CUDA_ERROR_INVALID_VALUE = 1;

	/** {@code CUDA_ERROR_OUT_OF_MEMORY}. */
	int CUDA_ERROR_OUT_OF_MEMORY = 2;

	/** {@code CUDA_ERROR_STUB_LIBRARY}: the toolkit's stub {@code libcuda.so} was loaded, not the driver. */
	int CUDA_ERROR_STUB_LIBRARY = 34;

	/** {@code CUDA_ERROR_INVALID_IMAGE}: the module image is not one the driver can read. */
	int CUDA_ERROR_INVALID_IMAGE = 200;

	/** {@code CUDA_ERROR_INVALID_CONTEXT}: no (or a destroyed) context is current on the thread. */
	int CUDA_ERROR_INVALID_CONTEXT = 201;

	/** {@code CUDA_ERROR_INVALID_PTX}: the JIT compiler refused the PTX. */
	int CUDA_ERROR_INVALID_PTX = 218;

	/** {@code CUDA_ERROR_JIT_COMPILER_NOT_FOUND}: the driver's PTX JIT library is missing. */
	int CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221;

	/** {@code CUDA_ERROR_UNSUPPORTED_PTX_VERSION}: the driver is older than the PTX ISA. */
	int CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;

	/** {@code CUDA_ERROR_INVALID_HANDLE}. */
	int CUDA_ERROR_INVALID_HANDLE = 400;

	/** {@code CUDA_ERROR_NOT_FOUND}: for {@code cuModuleGetFunction}, no kernel of that name. */
	int CUDA_ERROR_NOT_FOUND = 500;

	/** {@code CUDA_ERROR_NOT_READY}: from a query, "still running"; not a failure. */
	int CUDA_ERROR_NOT_READY = 600;

	/** {@code CU_EVENT_DISABLE_TIMING}: an event that only marks completion, the cheapest kind to record and query. */
	int CU_EVENT_DISABLE_TIMING = 0x2;

	/** {@code CUDA_ERROR_LAUNCH_FAILED}: a kernel faulted; the context is unusable afterwards. */
	int CUDA_ERROR_LAUNCH_FAILED = 719;

	/** {@code CUDA_ERROR_ILLEGAL_ADDRESS}: a kernel touched memory outside its buffers. */
	int CUDA_ERROR_ILLEGAL_ADDRESS = 700;

	/**
	 * {@code cuDevicePrimaryCtxRetain}: the device's primary context, shared with every other user of
	 * the device in this process (the CUDA runtime, other libraries), reference counted by the driver.
	 * @param device a {@code CUdevice} from {@link CudaDriver#device(int)}
	 * @return the {@code CUcontext}
	 */
	long primaryContextRetain(int device);

	/**
	 * {@code cuDevicePrimaryCtxRelease_v2}: drops one retain; the last one destroys the context and
	 * everything in it.
	 * @param device the {@code CUdevice} that was retained
	 */
	void primaryContextRelease(int device);

	/**
	 * {@code cuCtxSetCurrent}: binds the context to the calling thread.
	 * @param context a {@code CUcontext}, or 0 to unbind
	 */
	void setCurrentContext(long context);

	/**
	 * {@code cuStreamCreate}.
	 * @param flags {@code CU_STREAM_DEFAULT} (0) or {@code CU_STREAM_NON_BLOCKING} (1)
	 * @return the {@code CUstream}
	 */
	long streamCreate(int flags);

	/**
	 * {@code cuStreamDestroy_v2}.
	 * @param stream a {@code CUstream} from {@link #streamCreate(int)}
	 */
	void streamDestroy(long stream);

	/**
	 * {@code cuStreamSynchronize}: waits for everything queued on the stream.
	 * @param stream a {@code CUstream}, or 0 for the legacy default stream
	 */
	void streamSynchronize(long stream);

	/**
	 * {@code cuStreamQuery}: whether everything queued on the stream is done, without waiting.
	 * @param stream a {@code CUstream}, or 0 for the legacy default stream
	 * @return {@code true} on {@code CUDA_SUCCESS}, {@code false} on {@code CUDA_ERROR_NOT_READY}
	 *         (600), which is no error; any other status throws
	 */
	boolean streamQuery(long stream);

	/**
	 * {@code cuEventCreate}.
	 * @param flags {@link #CU_EVENT_DISABLE_TIMING} for a completion marker
	 * @return the {@code CUevent}
	 */
	long eventCreate(int flags);

	/**
	 * {@code cuEventRecord}: the event completes once the work queued on the stream before this call
	 * is done, whatever is queued after it.
	 * @param event a {@code CUevent} from {@link #eventCreate(int)}
	 * @param stream a {@code CUstream}, or 0 for the legacy default stream
	 */
	void eventRecord(long event, long stream);

	/**
	 * {@code cuEventQuery}: whether the work the event was recorded after is done, without waiting.
	 * @param event a {@code CUevent}
	 * @return {@code true} on {@code CUDA_SUCCESS} (also for an event never recorded), {@code false}
	 *         on {@link #CUDA_ERROR_NOT_READY}, which is no error; any other status throws
	 */
	boolean eventQuery(long event);

	/**
	 * {@code cuEventDestroy_v2} (the header maps {@code cuEventDestroy} to it). An event recorded on
	 * work that is still running may be destroyed: the driver frees it once that work is done.
	 * @param event a {@code CUevent} from {@link #eventCreate(int)}
	 */
	void eventDestroy(long event);

	/**
	 * {@code cuMemAlloc_v2}.
	 * @param bytes at least 1
	 * @return the {@code CUdeviceptr}
	 */
	long memAlloc(long bytes);

	/**
	 * {@code cuMemFree_v2}.
	 * @param address a {@code CUdeviceptr} from {@link #memAlloc(long)}
	 */
	void memFree(long address);

	/**
	 * {@code cuMemGetInfo_v2} for the current context's device.
	 * @return free and total bytes
	 */
	DeviceContext.MemoryInfo memGetInfo();

	/**
	 * {@code cuMemcpyHtoDAsync_v2}.
	 * @param destination the device address
	 * @param source native host memory, alive and unchanged until the stream is synchronised
	 * @param bytes how many bytes
	 * @param stream the {@code CUstream}
	 */
	void memcpyHtoDAsync(long destination, Pointer source, long bytes, long stream);

	/**
	 * {@code cuMemcpyDtoHAsync_v2}.
	 * @param destination native host memory, alive until the stream is synchronised
	 * @param source the device address
	 * @param bytes how many bytes
	 * @param stream the {@code CUstream}
	 */
	void memcpyDtoHAsync(Pointer destination, long source, long bytes, long stream);

	/**
	 * {@code cuModuleLoadDataEx} with the JIT error log requested, so that a refused module says why.
	 * @param ptx the module's PTX text (passed to the driver NUL-terminated)
	 * @return the {@code CUmodule}
	 * @throws ModuleLoadException when the driver refuses the module, with the JIT error log
	 */
	long moduleLoadData(String ptx);

	/**
	 * {@code cuModuleGetFunction}.
	 * @param module a {@code CUmodule}
	 * @param name the kernel's {@code .entry} name
	 * @return the {@code CUfunction}
	 */
	long moduleGetFunction(long module, String name);

	/**
	 * {@code cuModuleUnload}.
	 * @param module a {@code CUmodule} from {@link #moduleLoadData(String)}
	 */
	void moduleUnload(long module);

	/**
	 * {@code cuLaunchKernel} with {@code kernelParams} (never {@code extra}): each argument goes in
	 * its own 4- or 8-byte slot; the driver copies the values at launch, so nothing need outlive the
	 * call.
	 * @param function the {@code CUfunction}
	 * @param gridX blocks in x
	 * @param gridY blocks in y
	 * @param gridZ blocks in z
	 * @param blockX threads per block in x
	 * @param blockY threads per block in y
	 * @param blockZ threads per block in z
	 * @param sharedBytes dynamic shared memory per block
	 * @param stream the {@code CUstream}
	 * @param arguments the kernel's parameters in order
	 */
	void launchKernel(long function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedBytes, long stream, DeviceContext.KernelArgument[] arguments);

	/**
	 * A module the driver refused, with the JIT compiler's error log (the line and reason a PTX file
	 * was refused), which the status name alone does not say.
	 */
	class ModuleLoadException extends DriverCallException {

		private static final long serialVersionUID = 1L;

		/** The JIT error log, possibly empty. */
		private final String jitLog;

		/**
		 * Makes the exception.
		 * @param call the exported symbol that failed, {@code cuModuleLoadDataEx}
		 * @param code the status it returned
		 * @param statusName the driver's name for the status
		 * @param jitLog the JIT error log, or empty
		 */
		public ModuleLoadException(String call, int code, String statusName, String jitLog) {
			super(call, code, statusName);
			this.jitLog = jitLog == null ? "" : jitLog.strip();
		}

		/**
		 * The JIT compiler's error log.
		 * @return the log text, empty when the driver wrote none
		 */
		public String jitLog() {
			return this.jitLog;
		}

		@Override
		public String getMessage() {
			return this.jitLog.isEmpty() ? super.getMessage() : super.getMessage() + "; JIT log: " + this.jitLog;
		}
	}
}
