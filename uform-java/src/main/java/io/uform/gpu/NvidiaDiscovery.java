package io.uform.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import io.uform.failure.Failures;
import io.uform.gpu.DeviceFacts.Vendor;

/**
 * Lists NVIDIA GPUs through a {@link CudaDriver}: CUDA for what the process can use, NVML for what
 * {@code nvidia-smi} calls the device and for live readings.
 *
 * <h2>Order and ordinals</h2>
 * Devices come in CUDA ordinal order, so list position {@code i} is CUDA device {@code i}; the CUDA
 * driver has already applied {@code CUDA_VISIBLE_DEVICES} (which devices, in which order) and
 * {@code CUDA_DEVICE_ORDER}. NVML ignores those variables, so each CUDA device is matched to its
 * NVML device by PCI address, compared as numbers, never by position: with
 * {@code CUDA_VISIBLE_DEVICES=2,3} the two devices have CUDA ordinals 0 and 1 and vendor ordinals 2
 * and 3, as {@code nvidia-smi} shows them.
 *
 * <h2>MIG slices</h2>
 * A MIG slice has its parent GPU's PCI address, so the match above finds the parent's NVML device,
 * whose UUID and readings are the whole GPU's. {@code cuDeviceGetUuid_v2} gives the slice's own UUID:
 * where it differs from NVML's (or, without NVML, where the name says {@code MIG}), the device is a
 * slice. It is then spelled {@code MIG-} 8-4-4-4-12, as {@code nvidia-smi -L} and
 * {@code CUDA_VISIBLE_DEVICES} spell it, keeps the parent's vendor ordinal, and its readings carry
 * only the slice's total memory (NVML's are the parent's, other tenants' slices included).
 *
 * <h2>Without NVML</h2>
 * The UUID is formatted from {@code cuDeviceGetUuid} as {@code GPU-} 8-4-4-4-12 lower-case hex (the
 * spelling NVML uses), the vendor ordinal is {@code -1} (unknown: only NVML knows
 * {@code nvidia-smi}'s numbering) and readings carry only the total memory CUDA reported.
 *
 * <h2>Failures</h2>
 * No {@code libcuda.so.1}, or {@code CUDA_ERROR_NO_DEVICE}: no devices and no problem. Any other
 * driver error: {@code DEVICE_ERROR} naming the call and the driver's status
 * name. An NVML failure is survived and reported as a problem of the scan.
 */
final class NvidiaDiscovery {

	/** {@code nvmlReturn_t} for a device that fell off the bus or stopped answering. */
	static final int NVML_ERROR_GPU_IS_LOST = 15;

	/** {@code NVML_ERROR_NO_PERMISSION}: a device this process (or container) may not open. */
	private static final int NVML_ERROR_NO_PERMISSION = 4;

	private final Supplier<Optional<CudaDriver>> loader;

	/**
	 * Makes a discovery.
	 * @param loader opens the driver: empty when {@code libcuda.so.1} is not installed; throws
	 *        {@link DriverCallException} when it is installed but unusable
	 */
	NvidiaDiscovery(Supplier<Optional<CudaDriver>> loader) {
		this.loader = loader;
	}

	/**
	 * Lists the devices.
	 * @return devices in CUDA order, with NVML problems if any
	 * @throws RuntimeException {@code DEVICE_ERROR} when the driver is present but fails
	 */
	GpuScan scan() {
		Optional<CudaDriver> loaded;
		try {
			loaded = this.loader.get();
		}
		catch (DriverCallException ex) {
			throw failed(ex);
		}
		if (loaded.isEmpty()) {
			return GpuScan.none("NVIDIA: " + JnaCudaDriver.CUDA_LIBRARY + " not found (no NVIDIA driver installed)");
		}
		CudaDriver driver = loaded.get();
		try {
			driver.init();
			int count = driver.deviceCount();
			List<String> notes = new ArrayList<>();
			notes.add("NVIDIA: CUDA driver " + version(driver) + ", " + count + " device(s) visible");
			if (count == 0) {
				return new GpuScan(List.of(), List.of(), notes);
			}
			List<String> problems = new ArrayList<>();
			Map<PciAddress, Integer> nvml = nvmlIndices(driver, problems, notes);
			List<FoundGpu> gpus = new ArrayList<>(count);
			for (int ordinal = 0; ordinal < count; ordinal++) {
				gpus.add(describe(driver, ordinal, nvml));
			}
			return new GpuScan(gpus, problems, notes);
		}
		catch (DriverCallException ex) {
			if (ex.code() == CudaDriver.CUDA_ERROR_NO_DEVICE) {
				return GpuScan.none("NVIDIA: driver loaded, no device visible (" + ex.statusName()
						+ "; check CUDA_VISIBLE_DEVICES)");
			}
			throw failed(ex);
		}
	}

	private static RuntimeException failed(DriverCallException ex) {
		return Failures.factory().deviceError("NVIDIA driver error: " + ex.getMessage()
				+ ". libcuda.so.1 is installed but not usable; check that nvidia-smi works and that the driver "
				+ "and kernel module versions match (dmesg), or hide the GPUs with CUDA_VISIBLE_DEVICES=\"\"", ex);
	}

	private static String version(CudaDriver driver) {
		try {
			int version = driver.driverVersion();
			return (version / 1000) + "." + (version % 1000) / 10;
		}
		catch (DriverCallException ex) {
			return "of unknown version";
		}
	}

	/**
	 * NVML index of every NVML device this process may query, keyed by PCI address. NVML devices
	 * that fail (no permission, lost) are skipped: they cannot be matched, and CUDA cannot use them.
	 */
	private static Map<PciAddress, Integer> nvmlIndices(CudaDriver driver, List<String> problems, List<String> notes) {
		Map<PciAddress, Integer> indices = new HashMap<>();
		try {
			driver.nvmlInit();
			int count = driver.nvmlDeviceCount();
			for (int index = 0; index < count; index++) {
				try {
					indices.put(PciAddress.parse(driver.nvmlPciBusId(index)), index);
				}
				catch (DriverCallException ex) {
					// The _v2 count includes GPUs a container may not open; those are no fault.
					(ex.code() == NVML_ERROR_NO_PERMISSION ? notes : problems)
						.add("NVIDIA: NVML device " + index + " skipped: " + ex.getMessage());
				}
				catch (IllegalArgumentException ex) {
					problems.add("NVIDIA: NVML device " + index + " skipped: " + ex.getMessage());
				}
			}
			notes.add("NVIDIA: NVML lists " + count + " device(s)");
		}
		catch (DriverCallException ex) {
			problems.add("NVIDIA: NVML unavailable (" + ex.getMessage() + "); UUIDs come from CUDA, vendor ordinals "
					+ "are unknown (-1) and live readings hold only total memory");
		}
		return indices;
	}

	private static FoundGpu describe(CudaDriver driver, int ordinal, Map<PciAddress, Integer> nvml) {
		int device = driver.device(ordinal);
		String name = driver.name(device);
		long total = driver.totalMemory(device);
		int sms = driver.attribute(device, CudaDriver.ATTRIBUTE_MULTIPROCESSOR_COUNT);
		int major = driver.attribute(device, CudaDriver.ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
		int minor = driver.attribute(device, CudaDriver.ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
		PciAddress pci = pciAddress(driver.pciBusId(device));
		int nvmlIndex = pci == null ? -1 : nvml.getOrDefault(pci, -1);
		String parentUuid = nvmlIndex >= 0 ? nvmlUuid(driver, nvmlIndex) : null;
		String cudaUuid = cudaUuid(driver, device, parentUuid);
		boolean migSlice = (parentUuid != null) ? !parentUuid.equalsIgnoreCase(cudaUuid) : name.contains(" MIG ");
		String uuid = (migSlice) ? "MIG-" + cudaUuid.substring("GPU-".length())
				: (parentUuid != null) ? parentUuid : cudaUuid;
		// A slice's NVML readings would be its parent's: it reports its own total memory only.
		int readFrom = (migSlice) ? -1 : nvmlIndex;
		DeviceFacts described = new DeviceFacts(Vendor.NVIDIA, nvmlIndex, GpuClasses.nvidia(major, minor), sms, total,
				name, uuid, pci == null ? null : pci.toString());
		return new FoundGpu(described, () -> readings(driver, readFrom, total));
	}

	/**
	 * CUDA's UUID of the device. Where NVML gave one, a failing CUDA call falls back to it (the device
	 * is then taken for a whole GPU): before MIG was checked this call was not needed there.
	 */
	private static String cudaUuid(CudaDriver driver, int device, String nvmlUuid) {
		try {
			return formatUuid(driver.uuid(device));
		}
		catch (DriverCallException ex) {
			if (nvmlUuid == null) {
				throw ex;
			}
			return nvmlUuid;
		}
	}

	private static PciAddress pciAddress(String busId) {
		try {
			return PciAddress.parse(busId);
		}
		catch (IllegalArgumentException ex) {
			// A bus id CUDA cannot spell is a device we cannot match with NVML, not a reason to fail.
			return null;
		}
	}

	private static String nvmlUuid(CudaDriver driver, int index) {
		try {
			return driver.nvmlUuid(index);
		}
		catch (DriverCallException ex) {
			return null;
		}
	}

	/**
	 * Spells 16 UUID bytes as NVML does: {@code GPU-} and 8-4-4-4-12 lower-case hex.
	 * @param bytes the {@code CUuuid} bytes
	 * @return the UUID
	 */
	static String formatUuid(byte[] bytes) {
		if (bytes.length != 16) {
			throw new IllegalArgumentException("A CUDA UUID has 16 bytes, got " + bytes.length);
		}
		StringBuilder text = new StringBuilder("GPU-");
		for (int i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10) {
				text.append('-');
			}
			text.append(String.format(Locale.ROOT, "%02x", bytes[i] & 0xff));
		}
		return text.toString();
	}

	/** Reads one device now; any NVML call that fails leaves its field empty. */
	static Readings readings(CudaDriver driver, int nvmlIndex, long discoveredTotal) {
		if (nvmlIndex < 0) {
			return new Readings(null, discoveredTotal, null, null, null);
		}
		CudaDriver.NvmlMemory memory = orNull(() -> driver.nvmlMemory(nvmlIndex));
		Integer utilisation = orNull(() -> driver.nvmlUtilizationPercent(nvmlIndex));
		Long milliwatts = orNull(() -> driver.nvmlPowerMilliwatts(nvmlIndex));
		Integer celsius = orNull(() -> driver.nvmlTemperatureCelsius(nvmlIndex));
		return new Readings(memory == null ? null : memory.usedBytes(),
				memory == null ? discoveredTotal : memory.totalBytes(), utilisation,
				milliwatts == null ? null : milliwatts / 1000.0, celsius == null ? null : celsius.doubleValue());
	}

	private static <T> T orNull(Supplier<T> call) {
		try {
			return call.get();
		}
		catch (DriverCallException ex) {
			if (ex.code() == NVML_ERROR_GPU_IS_LOST) {
				throw new DeviceLostException(ex.call() + " returned NVML_ERROR_GPU_IS_LOST: the driver reports that the "
						+ "GPU fell off the bus or stopped answering (look for Xid 79 in the kernel log)");
			}
			// NOT_SUPPORTED is common (no power sensor on some boards); a gap is reported as a gap.
			return null;
		}
	}
}
