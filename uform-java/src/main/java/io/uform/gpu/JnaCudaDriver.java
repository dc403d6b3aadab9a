package io.uform.gpu;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * {@link CudaDriver} over the real {@code libcuda.so.1} and {@code libnvidia-ml.so.1} through JNA.
 *
 * <p>Libraries are opened by SONAME, so no development package ({@code libcuda.so}) is needed.
 * Symbols are resolved one by one with {@link NativeLibrary#getFunction(String)} rather than through
 * a mapped interface, because the header names differ from the exported ones
 * ({@code cuDeviceTotalMem} is exported as {@code cuDeviceTotalMem_v2}, {@code nvmlInit} as
 * {@code nvmlInit_v2}, native-interfaces.md 1.1 and 2.1) and because some exist only on some
 * drivers: a missing optional symbol falls back to its older form instead of failing the load.
 *
 * <p>NVML is opened lazily by {@link #nvmlInit()} and never shut down: its init is reference counted
 * and the handles it gives stay valid for the life of the process, which is how long discovery caches
 * them.
 */
public final class JnaCudaDriver implements CudaDriver {

	/** The CUDA driver library, by SONAME. */
	public static final String CUDA_LIBRARY = "libcuda.so.1";

	/** The NVML library, by SONAME. */
	public static final String NVML_LIBRARY = "libnvidia-ml.so.1";

	/** NVML status names (native-interfaces.md 2.4); others are spelled with {@code nvmlErrorString}. */
	private static final Map<Integer, String> NVML_ERRORS = Map.ofEntries(Map.entry(1, "NVML_ERROR_UNINITIALIZED"),
			Map.entry(2, "NVML_ERROR_INVALID_ARGUMENT"), Map.entry(3, "NVML_ERROR_NOT_SUPPORTED"),
			Map.entry(4, "NVML_ERROR_NO_PERMISSION"), Map.entry(6, "NVML_ERROR_NOT_FOUND"),
			Map.entry(7, "NVML_ERROR_INSUFFICIENT_SIZE"), Map.entry(9, "NVML_ERROR_DRIVER_NOT_LOADED"),
			Map.entry(12, "NVML_ERROR_LIBRARY_NOT_FOUND"), Map.entry(13, "NVML_ERROR_FUNCTION_NOT_FOUND"),
			Map.entry(15, "NVML_ERROR_GPU_IS_LOST"), Map.entry(25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH"),
			Map.entry(999, "NVML_ERROR_UNKNOWN"));

	/** {@code nvmlTemperature_v1}: sizeof 12 | version 1 << 24, for {@code nvmlDeviceGetTemperatureV}. */
	private static final int NVML_TEMPERATURE_V1 = 0x0100000C;

	private final Function cuInit;

	private final Function cuDriverGetVersion;

	private final Function cuDeviceGetCount;

	private final Function cuDeviceGet;

	private final Function cuDeviceGetName;

	private final Function cuDeviceTotalMem;

	private final Function cuDeviceGetAttribute;

	private final Function cuDeviceGetUuid;

	private final String cuDeviceGetUuidName;

	private final Function cuDeviceGetPciBusId;

	/** The library, its symbol lookup and status names. */
	private final CudaLibrary cuda;

	private volatile NativeLibrary nvml;

	private final Map<Integer, Pointer> nvmlHandles = new ConcurrentHashMap<>();

	private JnaCudaDriver(CudaLibrary cuda) {
		this.cuda = cuda;
		this.cuInit = cuda.required("cuInit");
		this.cuDriverGetVersion = cuda.required("cuDriverGetVersion");
		this.cuDeviceGetCount = cuda.required("cuDeviceGetCount");
		this.cuDeviceGet = cuda.required("cuDeviceGet");
		this.cuDeviceGetName = cuda.required("cuDeviceGetName");
		this.cuDeviceTotalMem = cuda.required("cuDeviceTotalMem_v2");
		this.cuDeviceGetAttribute = cuda.required("cuDeviceGetAttribute");
		this.cuDeviceGetPciBusId = cuda.required("cuDeviceGetPCIBusId");
		// _v2 exists from CUDA 11.4; outside MIG mode both give the same GPU UUID.
		Function uuid = cuda.optional("cuDeviceGetUuid_v2");
		this.cuDeviceGetUuidName = uuid != null ? "cuDeviceGetUuid_v2" : "cuDeviceGetUuid";
		this.cuDeviceGetUuid = uuid != null ? uuid : cuda.required("cuDeviceGetUuid");
	}

	/**
	 * Opens {@code libcuda.so.1}.
	 * @return the driver, or empty when the library is not installed (no NVIDIA driver)
	 * @throws DriverCallException when JNA cannot load its own native part, or the library lacks a
	 *         symbol discovery needs (a broken or ancient driver)
	 */
	public static Optional<CudaDriver> load() {
		return CudaLibrary.open().map(JnaCudaDriver::new);
	}

	private void check(String call, int result) {
		this.cuda.check(call, result);
	}

	@Override
	public void init() {
		check("cuInit", this.cuInit.invokeInt(new Object[] { 0 }));
	}

	@Override
	public int driverVersion() {
		IntByReference version = new IntByReference();
		check("cuDriverGetVersion", this.cuDriverGetVersion.invokeInt(new Object[] { version }));
		return version.getValue();
	}

	@Override
	public int deviceCount() {
		IntByReference count = new IntByReference();
		check("cuDeviceGetCount", this.cuDeviceGetCount.invokeInt(new Object[] { count }));
		return count.getValue();
	}

	@Override
	public int device(int ordinal) {
		IntByReference device = new IntByReference();
		check("cuDeviceGet", this.cuDeviceGet.invokeInt(new Object[] { device, ordinal }));
		return device.getValue();
	}

	@Override
	public String name(int device) {
		Memory buffer = cleared(256);
		check("cuDeviceGetName", this.cuDeviceGetName.invokeInt(new Object[] { buffer, 256, device }));
		return buffer.getString(0, StandardCharsets.UTF_8.name()).trim();
	}

	@Override
	public long totalMemory(int device) {
		LongByReference bytes = new LongByReference();
		check("cuDeviceTotalMem_v2", this.cuDeviceTotalMem.invokeInt(new Object[] { bytes, device }));
		return bytes.getValue();
	}

	@Override
	public int attribute(int device, int attribute) {
		IntByReference value = new IntByReference();
		check("cuDeviceGetAttribute", this.cuDeviceGetAttribute.invokeInt(new Object[] { value, attribute, device }));
		return value.getValue();
	}

	@Override
	public byte[] uuid(int device) {
		Memory uuid = cleared(16);
		check(this.cuDeviceGetUuidName, this.cuDeviceGetUuid.invokeInt(new Object[] { uuid, device }));
		return uuid.getByteArray(0, 16);
	}

	@Override
	public String pciBusId(int device) {
		Memory buffer = cleared(64);
		check("cuDeviceGetPCIBusId", this.cuDeviceGetPciBusId.invokeInt(new Object[] { buffer, 64, device }));
		return buffer.getString(0, StandardCharsets.US_ASCII.name());
	}

	@Override
	public synchronized void nvmlInit() {
		if (this.nvml != null) {
			return;
		}
		NativeLibrary library;
		try {
			library = NativeLibrary.getInstance(NVML_LIBRARY);
		}
		catch (UnsatisfiedLinkError ex) {
			throw new DriverCallException("dlopen " + NVML_LIBRARY, 12, "NVML_ERROR_LIBRARY_NOT_FOUND");
		}
		nvmlCheck(library, "nvmlInit_v2", nvmlFunction(library, "nvmlInit_v2").invokeInt(new Object[0]));
		this.nvml = library;
	}

	private NativeLibrary nvml() {
		NativeLibrary library = this.nvml;
		if (library == null) {
			throw new DriverCallException("nvml", 1, "NVML_ERROR_UNINITIALIZED");
		}
		return library;
	}

	private static Function nvmlFunction(NativeLibrary library, String symbol) {
		Function function = CudaLibrary.optional(library, symbol);
		if (function == null) {
			throw new DriverCallException(symbol, 13, "NVML_ERROR_FUNCTION_NOT_FOUND");
		}
		return function;
	}

	private static void nvmlCheck(NativeLibrary library, String call, int result) {
		if (result == 0) {
			return;
		}
		String name = NVML_ERRORS.get(result);
		if (name == null) {
			Function errorString = CudaLibrary.optional(library, "nvmlErrorString");
			name = "NVML error" + (errorString == null ? "" : " '" + errorString.invokeString(new Object[] { result }, false) + "'");
		}
		throw new DriverCallException(call, result, name);
	}

	private int nvmlCall(String call, Object... arguments) {
		NativeLibrary library = nvml();
		int result = nvmlFunction(library, call).invokeInt(arguments);
		nvmlCheck(library, call, result);
		return result;
	}

	private Pointer handle(int index) {
		Pointer cached = this.nvmlHandles.get(index);
		if (cached != null) {
			return cached;
		}
		PointerByReference handle = new PointerByReference();
		nvmlCall("nvmlDeviceGetHandleByIndex_v2", index, handle);
		this.nvmlHandles.put(index, handle.getValue());
		return handle.getValue();
	}

	@Override
	public int nvmlDeviceCount() {
		IntByReference count = new IntByReference();
		nvmlCall("nvmlDeviceGetCount_v2", count);
		return count.getValue();
	}

	@Override
	public String nvmlPciBusId(int index) {
		// nvmlPciInfo_t is 68 bytes; busId (char[32]) sits at offset 36.
		Memory pci = cleared(68);
		nvmlCall("nvmlDeviceGetPciInfo_v3", handle(index), pci);
		return pci.getString(36, StandardCharsets.US_ASCII.name());
	}

	@Override
	public String nvmlUuid(int index) {
		Memory buffer = cleared(96);
		nvmlCall("nvmlDeviceGetUUID", handle(index), buffer, 96);
		return buffer.getString(0, StandardCharsets.US_ASCII.name());
	}

	@Override
	public NvmlMemory nvmlMemory(int index) {
		// nvmlMemory_t: total @0, free @8, used @16 (unsigned long long each).
		Memory memory = cleared(24);
		nvmlCall("nvmlDeviceGetMemoryInfo", handle(index), memory);
		return new NvmlMemory(memory.getLong(0), memory.getLong(16));
	}

	@Override
	public int nvmlUtilizationPercent(int index) {
		// nvmlUtilization_t: gpu @0, memory @4.
		Memory utilisation = cleared(8);
		nvmlCall("nvmlDeviceGetUtilizationRates", handle(index), utilisation);
		return utilisation.getInt(0);
	}

	@Override
	public long nvmlPowerMilliwatts(int index) {
		IntByReference milliwatts = new IntByReference();
		nvmlCall("nvmlDeviceGetPowerUsage", handle(index), milliwatts);
		return Integer.toUnsignedLong(milliwatts.getValue());
	}

	@Override
	public int nvmlTemperatureCelsius(int index) {
		// The plain call is deprecated in NVML 13 but still exported; the V form is absent before 13.
		if (CudaLibrary.optional(nvml(), "nvmlDeviceGetTemperature") != null) {
			IntByReference celsius = new IntByReference();
			nvmlCall("nvmlDeviceGetTemperature", handle(index), 0, celsius);
			return celsius.getValue();
		}
		// nvmlTemperature_v1_t: version @0, sensorType @4 (0 = GPU die), temperature @8.
		Memory temperature = cleared(12);
		temperature.setInt(0, NVML_TEMPERATURE_V1);
		nvmlCall("nvmlDeviceGetTemperatureV", handle(index), temperature);
		return temperature.getInt(8);
	}

	private static Memory cleared(int size) {
		Memory memory = new Memory(size);
		memory.clear();
		return memory;
	}
}
