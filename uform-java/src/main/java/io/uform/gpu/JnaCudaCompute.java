package io.uform.gpu;

import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * {@link CudaCompute} over the real {@code libcuda.so.1} through JNA, in the same way as
 * {@link JnaCudaDriver}: the library is opened by SONAME and each symbol is resolved on its own with
 * {@link NativeLibrary#getFunction(String)}, by its exported name ({@code cuMemAlloc_v2}, not the
 * header's {@code cuMemAlloc}; native-interfaces.md 1.1 and 1.3a).
 *
 * <p>Opaque handles cross as {@link Pointer}s and come back as their {@code long} values;
 * {@code CUdeviceptr} and {@code size_t} are 64-bit on every platform CUDA supports, so they cross as
 * {@code long}.
 */
public final class JnaCudaCompute implements CudaCompute {

	/** {@code CU_JIT_ERROR_LOG_BUFFER}: option value is the log buffer's address. */
	static final int CU_JIT_ERROR_LOG_BUFFER = 5;

	/** {@code CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES}: option value is the buffer's size, in the pointer slot itself. */
	static final int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

	/** Room for the JIT error log: enough for the first errors of a refused module, which say why. */
	static final int JIT_LOG_BYTES = 8192;

	private final Function cuDevicePrimaryCtxRetain;

	private final Function cuDevicePrimaryCtxRelease;

	private final Function cuCtxSetCurrent;

	private final Function cuStreamCreate;

	private final Function cuStreamDestroy;

	private final Function cuStreamSynchronize;

	private final Function cuStreamQuery;

	private final Function cuEventCreate;

	private final Function cuEventRecord;

	private final Function cuEventQuery;

	private final Function cuEventDestroy;

	private final Function cuMemAlloc;

	private final Function cuMemFree;

	private final Function cuMemGetInfo;

	private final Function cuMemcpyHtoDAsync;

	private final Function cuMemcpyDtoHAsync;

	private final Function cuModuleLoadDataEx;

	private final Function cuModuleGetFunction;

	private final Function cuModuleUnload;

	private final Function cuLaunchKernel;

	/** The library, its symbol lookup and status names. */
	private final CudaLibrary cuda;

	private JnaCudaCompute(CudaLibrary cuda) {
		this.cuda = cuda;
		this.cuDevicePrimaryCtxRetain = cuda.required("cuDevicePrimaryCtxRetain");
		this.cuDevicePrimaryCtxRelease = cuda.required("cuDevicePrimaryCtxRelease_v2");
		this.cuCtxSetCurrent = cuda.required("cuCtxSetCurrent");
		this.cuStreamCreate = cuda.required("cuStreamCreate");
		this.cuStreamDestroy = cuda.required("cuStreamDestroy_v2");
		this.cuStreamSynchronize = cuda.required("cuStreamSynchronize");
		this.cuStreamQuery = cuda.required("cuStreamQuery");
		this.cuEventCreate = cuda.required("cuEventCreate");
		this.cuEventRecord = cuda.required("cuEventRecord");
		this.cuEventQuery = cuda.required("cuEventQuery");
		this.cuEventDestroy = cuda.required("cuEventDestroy_v2");
		this.cuMemAlloc = cuda.required("cuMemAlloc_v2");
		this.cuMemFree = cuda.required("cuMemFree_v2");
		this.cuMemGetInfo = cuda.required("cuMemGetInfo_v2");
		this.cuMemcpyHtoDAsync = cuda.required("cuMemcpyHtoDAsync_v2");
		this.cuMemcpyDtoHAsync = cuda.required("cuMemcpyDtoHAsync_v2");
		this.cuModuleLoadDataEx = cuda.required("cuModuleLoadDataEx");
		this.cuModuleGetFunction = cuda.required("cuModuleGetFunction");
		this.cuModuleUnload = cuda.required("cuModuleUnload");
		this.cuLaunchKernel = cuda.required("cuLaunchKernel");
	}

	/**
	 * Opens {@code libcuda.so.1} for compute.
	 * @return the binding, or empty when the library is not installed (no NVIDIA driver)
	 * @throws DriverCallException when JNA cannot load its own native part, or the library lacks a
	 *         symbol compute needs (a broken or ancient driver)
	 */
	public static Optional<CudaCompute> load() {
		return CudaLibrary.open().map(JnaCudaCompute::new);
	}

	private void check(String call, int result) {
		this.cuda.check(call, result);
	}

	/** An opaque handle as JNA passes it: {@code null} for 0 (the legacy stream, "no context"). */
	private static Pointer handle(long value) {
		return value == 0 ? null : new Pointer(value);
	}

	private static long value(PointerByReference handle) {
		return Pointer.nativeValue(handle.getValue());
	}

	@Override
	public long primaryContextRetain(int device) {
		PointerByReference context = new PointerByReference();
		check("cuDevicePrimaryCtxRetain", this.cuDevicePrimaryCtxRetain.invokeInt(new Object[] { context, device }));
		return value(context);
	}

	@Override
	public void primaryContextRelease(int device) {
		check("cuDevicePrimaryCtxRelease_v2", this.cuDevicePrimaryCtxRelease.invokeInt(new Object[] { device }));
	}

	@Override
	public void setCurrentContext(long context) {
		check("cuCtxSetCurrent", this.cuCtxSetCurrent.invokeInt(new Object[] { handle(context) }));
	}

	@Override
	public long streamCreate(int flags) {
		PointerByReference stream = new PointerByReference();
		check("cuStreamCreate", this.cuStreamCreate.invokeInt(new Object[] { stream, flags }));
		return value(stream);
	}

	@Override
	public void streamDestroy(long stream) {
		check("cuStreamDestroy_v2", this.cuStreamDestroy.invokeInt(new Object[] { handle(stream) }));
	}

	@Override
	public void streamSynchronize(long stream) {
		check("cuStreamSynchronize", this.cuStreamSynchronize.invokeInt(new Object[] { handle(stream) }));
	}

	@Override
	public boolean streamQuery(long stream) {
		int result = this.cuStreamQuery.invokeInt(new Object[] { handle(stream) });
		if (result == CUDA_ERROR_NOT_READY) {
			return false;
		}
		check("cuStreamQuery", result);
		return true;
	}

	@Override
	public long eventCreate(int flags) {
		PointerByReference event = new PointerByReference();
		check("cuEventCreate", this.cuEventCreate.invokeInt(new Object[] { event, flags }));
		return value(event);
	}

	@Override
	public void eventRecord(long event, long stream) {
		check("cuEventRecord", this.cuEventRecord.invokeInt(new Object[] { handle(event), handle(stream) }));
	}

	@Override
	public boolean eventQuery(long event) {
		int result = this.cuEventQuery.invokeInt(new Object[] { handle(event) });
		if (result == CUDA_ERROR_NOT_READY) {
			return false;
		}
		check("cuEventQuery", result);
		return true;
	}

	@Override
	public void eventDestroy(long event) {
		check("cuEventDestroy_v2", this.cuEventDestroy.invokeInt(new Object[] { handle(event) }));
	}

	@Override
	public long memAlloc(long bytes) {
		LongByReference address = new LongByReference();
		check("cuMemAlloc_v2", this.cuMemAlloc.invokeInt(new Object[] { address, bytes }));
		return address.getValue();
	}

	@Override
	public void memFree(long address) {
		check("cuMemFree_v2", this.cuMemFree.invokeInt(new Object[] { address }));
	}

	@Override
	public DeviceContext.MemoryInfo memGetInfo() {
		LongByReference free = new LongByReference();
		LongByReference total = new LongByReference();
		check("cuMemGetInfo_v2", this.cuMemGetInfo.invokeInt(new Object[] { free, total }));
		return new DeviceContext.MemoryInfo(free.getValue(), total.getValue());
	}

	@Override
	public void memcpyHtoDAsync(long destination, Pointer source, long bytes, long stream) {
		check("cuMemcpyHtoDAsync_v2",
				this.cuMemcpyHtoDAsync.invokeInt(new Object[] { destination, source, bytes, handle(stream) }));
	}

	@Override
	public void memcpyDtoHAsync(Pointer destination, long source, long bytes, long stream) {
		check("cuMemcpyDtoHAsync_v2",
				this.cuMemcpyDtoHAsync.invokeInt(new Object[] { destination, source, bytes, handle(stream) }));
	}

	@Override
	public long moduleLoadData(String ptx) {
		Memory image = image(ptx);
		Memory log = new Memory(JIT_LOG_BYTES);
		log.clear();
		Memory options = new Memory(2 * 4);
		Memory values = new Memory(2 * Native.POINTER_SIZE);
		jitOptions(options, values, log);
		PointerByReference module = new PointerByReference();
		int result;
		try {
			result = this.cuModuleLoadDataEx.invokeInt(new Object[] { module, image, 2, options, values });
		}
		finally {
			// The log buffer is reached only through values; keep it from being freed during the call.
			Reference.reachabilityFence(log);
		}
		if (result != 0) {
			throw new ModuleLoadException("cuModuleLoadDataEx", result, this.cuda.errorName(result), jitLog(log, values));
		}
		return value(module);
	}

	/**
	 * The PTX as the driver reads it: UTF-8 bytes and a terminating NUL, in native memory.
	 * @param ptx the module's text
	 * @return the image, {@code length + 1} bytes
	 */
	static Memory image(String ptx) {
		byte[] bytes = ptx.getBytes(StandardCharsets.UTF_8);
		Memory image = new Memory(bytes.length + 1L);
		image.write(0, bytes, 0, bytes.length);
		image.setByte(bytes.length, (byte) 0);
		return image;
	}

	/**
	 * Fills the option arrays of {@code cuModuleLoadDataEx}: the error log's buffer, then its size.
	 * A size option's value is the number itself stored in the {@code void*} slot, not a pointer to it.
	 * @param options room for two {@code CUjit_option}s (ints)
	 * @param values room for two {@code void*}
	 * @param log the error log buffer, {@link #JIT_LOG_BYTES} long
	 */
	static void jitOptions(Memory options, Memory values, Memory log) {
		options.setInt(0, CU_JIT_ERROR_LOG_BUFFER);
		options.setInt(4, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
		values.setPointer(0, log);
		values.setLong(Native.POINTER_SIZE, log.size());
	}

	private static String jitLog(Memory log, Memory values) {
		// On return the size slot holds how many bytes the driver wrote (an unsigned int in the low half).
		long written = Integer.toUnsignedLong(values.getInt(Native.POINTER_SIZE));
		long length = Math.min(written, log.size());
		byte[] bytes = log.getByteArray(0, (int) length);
		int end = 0;
		while (end < bytes.length && bytes[end] != 0) {
			end++;
		}
		return new String(bytes, 0, end, StandardCharsets.UTF_8).strip();
	}

	@Override
	public long moduleGetFunction(long module, String name) {
		PointerByReference function = new PointerByReference();
		check("cuModuleGetFunction",
				this.cuModuleGetFunction.invokeInt(new Object[] { function, handle(module), name }));
		return value(function);
	}

	@Override
	public void moduleUnload(long module) {
		check("cuModuleUnload", this.cuModuleUnload.invokeInt(new Object[] { handle(module) }));
	}

	@Override
	public void launchKernel(long function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedBytes, long stream, DeviceContext.KernelArgument[] arguments) {
		Memory[] slots = new Memory[arguments == null ? 0 : arguments.length];
		Memory parameters = kernelParameters(arguments, slots);
		int result;
		try {
			result = this.cuLaunchKernel.invokeInt(new Object[] { handle(function), gridX, gridY, gridZ, blockX,
					blockY, blockZ, sharedBytes, handle(stream), parameters, null });
		}
		finally {
			// The slots are reached only through the parameter array's addresses: a Memory that becomes
			// unreachable may be freed by its cleaner while the driver still reads it.
			Reference.reachabilityFence(slots);
			Reference.reachabilityFence(parameters);
		}
		check("cuLaunchKernel", result);
	}

	/**
	 * Packs kernel arguments as {@code cuLaunchKernel}'s {@code void** kernelParams}: each value in its
	 * own 4- or 8-byte native slot, and an array of the slots' addresses. The caller keeps
	 * {@code slots} and the result reachable until the launch returns.
	 * @param arguments the arguments, or {@code null} for none
	 * @param slots filled with one slot per argument, as long as {@code arguments}
	 * @return the address array, or {@code null} when there are no arguments
	 */
	static Memory kernelParameters(DeviceContext.KernelArgument[] arguments, Memory[] slots) {
		if (arguments == null || arguments.length == 0) {
			return null;
		}
		Memory parameters = new Memory((long) arguments.length * Native.POINTER_SIZE);
		for (int i = 0; i < arguments.length; i++) {
			DeviceContext.KernelArgument argument = arguments[i];
			Memory slot = new Memory(argument.bytes());
			if (argument.bytes() == 4) {
				slot.setInt(0, (int) argument.bits());
			}
			else {
				slot.setLong(0, argument.bits());
			}
			slots[i] = slot;
			parameters.setPointer((long) i * Native.POINTER_SIZE, slot);
		}
		return parameters;
	}
}
