package io.uform.gpu;

/**
 * The narrow slice of {@code libcuda.so.1} and {@code libnvidia-ml.so.1} that NVIDIA discovery
 * needs, one method per driver call, so that {@link NvidiaDiscovery} holds all the logic and tests
 * drive it with a fake. {@link JnaCudaDriver} is the real one.
 *
 * <p>Every method returns the call's result or throws {@link DriverCallException} carrying the
 * driver's status code and name; none returns a sentinel. Device handles are CUDA's own
 * {@code CUdevice} ints; NVML devices are named by their NVML index (the index {@code nvidia-smi}
 * shows), because NVML's handles never need to leave the implementation.
 *
 * <p>{@code CUDA_VISIBLE_DEVICES} and {@code CUDA_DEVICE_ORDER} are applied by the CUDA driver
 * itself to {@link #deviceCount()} and {@link #device(int)}; NVML ignores both and always lists
 * every GPU (native-interfaces.md 1.6, 2.6).
 */
public interface CudaDriver {

	/** {@code CUDA_ERROR_NO_DEVICE}: the driver works but this process sees no GPU. */
	int CUDA_ERROR_NO_DEVICE = 100;

	/** {@code CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT}. */
	int ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;

	/** {@code CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR}. */
	int ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;

	/** {@code CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR}. */
	int ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

	/** {@code CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED}: 1 where NVLink SHARP multicast and reductions work. */
	int ATTRIBUTE_MULTICAST_SUPPORTED = 132;

	/** {@code cuInit(0)}: must succeed before any other CUDA call. */
	void init();

	/**
	 * {@code cuDriverGetVersion}.
	 * @return 1000*major + 10*minor, like 12060
	 */
	int driverVersion();

	/**
	 * {@code cuDeviceGetCount}: the devices this process may see.
	 * @return the number of visible devices
	 */
	int deviceCount();

	/**
	 * {@code cuDeviceGet}.
	 * @param ordinal a CUDA ordinal, 0 to {@link #deviceCount()} - 1
	 * @return the {@code CUdevice}
	 */
	int device(int ordinal);

	/**
	 * {@code cuDeviceGetName}.
	 * @param device a {@code CUdevice}
	 * @return the product name
	 */
	String name(int device);

	/**
	 * {@code cuDeviceTotalMem_v2}.
	 * @param device a {@code CUdevice}
	 * @return device memory in bytes
	 */
	long totalMemory(int device);

	/**
	 * {@code cuDeviceGetAttribute}.
	 * @param device a {@code CUdevice}
	 * @param attribute a {@code CUdevice_attribute} value
	 * @return the attribute's value
	 */
	int attribute(int device, int attribute);

	/**
	 * {@code cuDeviceGetUuid_v2} (or {@code cuDeviceGetUuid} on drivers before 11.4).
	 * @param device a {@code CUdevice}
	 * @return 16 raw bytes
	 */
	byte[] uuid(int device);

	/**
	 * {@code cuDeviceGetPCIBusId}.
	 * @param device a {@code CUdevice}
	 * @return the address as CUDA spells it, like {@code 0000:1B:00.0}
	 */
	String pciBusId(int device);

	/** {@code nvmlInit_v2}; throws when NVML is missing or fails, which discovery survives. */
	void nvmlInit();

	/**
	 * {@code nvmlDeviceGetCount_v2}: every GPU on the machine, whatever {@code CUDA_VISIBLE_DEVICES} says.
	 * @return the number of NVML devices
	 */
	int nvmlDeviceCount();

	/**
	 * {@code nvmlDeviceGetPciInfo_v3}, the {@code busId} field.
	 * @param index an NVML index
	 * @return the address as NVML spells it, like {@code 00000000:1B:00.0}
	 */
	String nvmlPciBusId(int index);

	/**
	 * {@code nvmlDeviceGetUUID}.
	 * @param index an NVML index
	 * @return the UUID, like {@code GPU-…}
	 */
	String nvmlUuid(int index);

	/**
	 * {@code nvmlDeviceGetMemoryInfo}.
	 * @param index an NVML index
	 * @return total and used bytes
	 */
	NvmlMemory nvmlMemory(int index);

	/**
	 * {@code nvmlDeviceGetUtilizationRates}, the {@code gpu} field.
	 * @param index an NVML index
	 * @return percent of the last sample period a kernel ran
	 */
	int nvmlUtilizationPercent(int index);

	/**
	 * {@code nvmlDeviceGetPowerUsage}.
	 * @param index an NVML index
	 * @return board power in milliwatts
	 */
	long nvmlPowerMilliwatts(int index);

	/**
	 * {@code nvmlDeviceGetTemperature} for the GPU die sensor (or {@code nvmlDeviceGetTemperatureV}
	 * where the old symbol is gone).
	 * @param index an NVML index
	 * @return degrees Celsius
	 */
	int nvmlTemperatureCelsius(int index);

	/**
	 * NVML's memory figures.
	 * @param totalBytes installed memory
	 * @param usedBytes memory allocated, including what the driver reserves
	 */
	record NvmlMemory(long totalBytes, long usedBytes) {
	}
}
