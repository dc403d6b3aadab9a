package io.uform.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link CudaDriver} over an imagined machine, the only fake in GPU discovery. Physical GPUs are
 * added with {@link #gpu}; {@link #visible(int...)} plays {@code CUDA_VISIBLE_DEVICES} (the CUDA
 * driver, not discovery, applies it); NVML always lists every GPU, in {@link #nvmlOrder(int...)}.
 * {@link #fail(String, int, String)} makes one call return a driver status.
 */
final class FakeCudaDriver implements CudaDriver {

	/** One imagined GPU. */
	static final class Gpu {

		String name;

		long memory;

		int sms;

		int major;

		int minor;

		String cudaPciBusId;

		String nvmlPciBusId;

		byte[] uuidBytes;

		String nvmlUuid;

		NvmlMemory nvmlMemory;

		Integer utilisation;

		Long milliwatts;

		Integer celsius;

		/** {@code CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED}; {@code null} plays a driver that does not know it. */
		Integer multicast;
	}

	private final List<Gpu> gpus = new ArrayList<>();

	private List<Integer> visible;

	private List<Integer> nvmlOrder;

	private final Map<String, DriverCallException> failures = new HashMap<>();

	final List<String> calls = new ArrayList<>();

	Gpu gpu(String name, int major, int minor, int sms, long memory, int bus) {
		Gpu gpu = new Gpu();
		gpu.name = name;
		gpu.major = major;
		gpu.minor = minor;
		gpu.sms = sms;
		gpu.memory = memory;
		// CUDA and NVML spell one address differently: width of the domain and case both differ.
		gpu.cudaPciBusId = String.format("0000:%02X:00.0", bus);
		gpu.nvmlPciBusId = String.format("00000000:%02X:00.0", bus);
		gpu.uuidBytes = new byte[16];
		for (int i = 0; i < 16; i++) {
			gpu.uuidBytes[i] = (byte) (0xA0 + bus + i);
		}
		gpu.nvmlUuid = NvidiaDiscovery.formatUuid(gpu.uuidBytes);
		gpu.nvmlMemory = new NvmlMemory(memory, memory / 4);
		gpu.utilisation = 42;
		gpu.milliwatts = 350_500L;
		gpu.celsius = 37;
		this.gpus.add(gpu);
		return gpu;
	}

	FakeCudaDriver visible(int... physical) {
		this.visible = new ArrayList<>();
		for (int gpu : physical) {
			this.visible.add(gpu);
		}
		return this;
	}

	FakeCudaDriver nvmlOrder(int... physical) {
		this.nvmlOrder = new ArrayList<>();
		for (int gpu : physical) {
			this.nvmlOrder.add(gpu);
		}
		return this;
	}

	FakeCudaDriver fail(String call, int code, String name) {
		this.failures.put(call, new DriverCallException(call, code, name));
		return this;
	}

	private void call(String name) {
		this.calls.add(name);
		DriverCallException failure = this.failures.get(name);
		if (failure != null) {
			throw failure;
		}
	}

	private List<Integer> visibleList() {
		return this.visible != null ? this.visible : range();
	}

	private List<Integer> nvmlList() {
		return this.nvmlOrder != null ? this.nvmlOrder : range();
	}

	private List<Integer> range() {
		List<Integer> all = new ArrayList<>();
		for (int i = 0; i < this.gpus.size(); i++) {
			all.add(i);
		}
		return all;
	}

	/** CUdevice values are the physical index plus 100, so that mixing them up with ordinals shows. */
	private Gpu byDevice(int device) {
		return this.gpus.get(device - 100);
	}

	private Gpu byNvml(int index) {
		return this.gpus.get(nvmlList().get(index));
	}

	@Override
	public void init() {
		call("cuInit");
	}

	@Override
	public int driverVersion() {
		call("cuDriverGetVersion");
		return 12060;
	}

	@Override
	public int deviceCount() {
		call("cuDeviceGetCount");
		return visibleList().size();
	}

	@Override
	public int device(int ordinal) {
		call("cuDeviceGet");
		return visibleList().get(ordinal) + 100;
	}

	@Override
	public String name(int device) {
		call("cuDeviceGetName");
		return byDevice(device).name;
	}

	@Override
	public long totalMemory(int device) {
		call("cuDeviceTotalMem_v2");
		return byDevice(device).memory;
	}

	@Override
	public int attribute(int device, int attribute) {
		call("cuDeviceGetAttribute");
		Gpu gpu = byDevice(device);
		return switch (attribute) {
			case ATTRIBUTE_MULTIPROCESSOR_COUNT -> gpu.sms;
			case ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR -> gpu.major;
			case ATTRIBUTE_COMPUTE_CAPABILITY_MINOR -> gpu.minor;
			case ATTRIBUTE_MULTICAST_SUPPORTED -> {
				if (gpu.multicast == null) {
					throw new DriverCallException("cuDeviceGetAttribute", 1, "CUDA_ERROR_INVALID_VALUE");
				}
				yield gpu.multicast;
			}
			default -> throw new DriverCallException("cuDeviceGetAttribute", 1, "CUDA_ERROR_INVALID_VALUE");
		};
	}

	@Override
	public byte[] uuid(int device) {
		call("cuDeviceGetUuid_v2");
		return byDevice(device).uuidBytes.clone();
	}

	@Override
	public String pciBusId(int device) {
		call("cuDeviceGetPCIBusId");
		return byDevice(device).cudaPciBusId;
	}

	@Override
	public void nvmlInit() {
		call("nvmlInit_v2");
	}

	@Override
	public int nvmlDeviceCount() {
		call("nvmlDeviceGetCount_v2");
		return nvmlList().size();
	}

	@Override
	public String nvmlPciBusId(int index) {
		call("nvmlDeviceGetPciInfo_v3");
		return byNvml(index).nvmlPciBusId;
	}

	@Override
	public String nvmlUuid(int index) {
		call("nvmlDeviceGetUUID");
		return byNvml(index).nvmlUuid;
	}

	@Override
	public NvmlMemory nvmlMemory(int index) {
		call("nvmlDeviceGetMemoryInfo");
		return orNotSupported("nvmlDeviceGetMemoryInfo", byNvml(index).nvmlMemory);
	}

	@Override
	public int nvmlUtilizationPercent(int index) {
		call("nvmlDeviceGetUtilizationRates");
		return orNotSupported("nvmlDeviceGetUtilizationRates", byNvml(index).utilisation);
	}

	@Override
	public long nvmlPowerMilliwatts(int index) {
		call("nvmlDeviceGetPowerUsage");
		return orNotSupported("nvmlDeviceGetPowerUsage", byNvml(index).milliwatts);
	}

	@Override
	public int nvmlTemperatureCelsius(int index) {
		call("nvmlDeviceGetTemperature");
		return orNotSupported("nvmlDeviceGetTemperature", byNvml(index).celsius);
	}

	private static <T> T orNotSupported(String call, T value) {
		if (value == null) {
			throw new DriverCallException(call, 3, "NVML_ERROR_NOT_SUPPORTED");
		}
		return value;
	}
}
