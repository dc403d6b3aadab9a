package io.uform.gpu;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.ptr.PointerByReference;

/**
 * {@code libcuda.so.1} opened through JNA, with what both CUDA bindings ({@link JnaCudaDriver} for
 * discovery, {@link JnaCudaCompute} for compute) need from it: symbols resolved one by one (a
 * missing optional one is {@code null}, a missing required one a {@link DriverCallException}), and
 * failed calls turned into {@link DriverCallException}s named by {@code cuGetErrorName}.
 */
final class CudaLibrary {

	private final NativeLibrary library;

	private final Function cuGetErrorName;

	private CudaLibrary(NativeLibrary library) {
		this.library = library;
		this.cuGetErrorName = optional(library, "cuGetErrorName");
	}

	/**
	 * Opens {@code libcuda.so.1} by SONAME.
	 * @return the library, or empty when it is not installed (no NVIDIA driver)
	 * @throws DriverCallException when JNA cannot load its own native part
	 */
	static Optional<CudaLibrary> open() {
		// Without any sign of a driver, JNA (costly to load in a cold JVM) is not loaded to look for one.
		if (!NvidiaDriverFiles.mayBePresent()) {
			return Optional.empty();
		}
		try {
			// Touch JNA's native dispatch first, so that a JNA that cannot load (noexec temp dir,
			// unsupported platform) is reported as such and not mistaken for "no NVIDIA driver".
			if (Native.POINTER_SIZE != 8) {
				return Optional.empty(); // CUDA drivers are 64-bit only
			}
		}
		catch (LinkageError ex) {
			throw new DriverCallException("JNA native support", DriverCallException.NOT_LOADED,
					"JNA could not load its native library: " + ex.getMessage());
		}
		try {
			return Optional.of(new CudaLibrary(NativeLibrary.getInstance(JnaCudaDriver.CUDA_LIBRARY)));
		}
		catch (UnsatisfiedLinkError ex) {
			return Optional.empty();
		}
	}

	/**
	 * A symbol the binding cannot work without.
	 * @param symbol the exported name
	 * @return the function
	 * @throws DriverCallException when the library lacks it (a broken or ancient driver)
	 */
	Function required(String symbol) {
		return required(this.library, symbol);
	}

	/**
	 * A symbol only some drivers export.
	 * @param symbol the exported name
	 * @return the function, or {@code null}
	 */
	Function optional(String symbol) {
		return optional(this.library, symbol);
	}

	static Function required(NativeLibrary library, String symbol) {
		Function function = optional(library, symbol);
		if (function == null) {
			throw new DriverCallException(symbol, DriverCallException.NOT_LOADED,
					"symbol missing from " + library.getName() + " (driver too old or damaged)");
		}
		return function;
	}

	static Function optional(NativeLibrary library, String symbol) {
		try {
			return library.getFunction(symbol);
		}
		catch (UnsatisfiedLinkError ex) {
			return null;
		}
	}

	/**
	 * Throws unless a call returned {@code CUDA_SUCCESS}.
	 * @param call the exported symbol that was called
	 * @param result its {@code CUresult}
	 * @throws DriverCallException naming the call and the status
	 */
	void check(String call, int result) {
		if (result != 0) {
			throw new DriverCallException(call, result, errorName(result));
		}
	}

	/**
	 * The driver's name for a status, like {@code CUDA_ERROR_OUT_OF_MEMORY}.
	 * @param result a {@code CUresult}
	 * @return its name, or {@code CUresult <n>} where the driver cannot say
	 */
	String errorName(int result) {
		if (this.cuGetErrorName != null) {
			PointerByReference name = new PointerByReference();
			if (this.cuGetErrorName.invokeInt(new Object[] { result, name }) == 0 && name.getValue() != null) {
				return name.getValue().getString(0, StandardCharsets.US_ASCII.name());
			}
		}
		return "CUresult " + result;
	}
}
