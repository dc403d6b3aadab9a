package io.uform;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import io.uform.UformException.Status;
import io.uform.gpu.CudaRuntime;
import io.uform.gpu.GpuClasses;
import io.uform.gpu.GpuRuntime;
import io.uform.gpu.SimulatedRuntime;
import io.uform.host.NearestNames;
import io.uform.host.NumaTopology;

/**
 * What {@link Executor#forVram(ExecutorForVramConfig)} decides before it opens anything: which
 * devices (validated, or chosen), each one's backend and backend ordinal, the GPU class, the
 * borrowed streams, the scratch limit, and the host-thread placement (one host thread per device,
 * near the devices' NUMA nodes). Every bad field fails here with {@link Status#INVALID_ARGUMENT}
 * naming it, its value and the fix, before any context or thread exists.
 *
 * <h2>Choosing a device</h2>
 * With {@code devices} absent the executor takes one device: the lowest ordinal that no other VRAM
 * executor of this process holds; when every device is held, the one held by the fewest executors
 * (lowest ordinal on a tie). Simulated devices count only where there is no real GPU: one is never
 * chosen in place of a real one. {@link #hold} and {@link #letGo} keep the count.
 */
final class VramPlan {

	/** How many live VRAM executors hold each device, by ordinal in {@link Uform#gpuDevices()}. */
	private static final ConcurrentHashMap<Integer, AtomicInteger> HOLDERS = new ConcurrentHashMap<>();

	final List<Integer> ordinals;

	final List<GpuDevice> devices;

	final List<GpuRuntime> runtimes;

	final List<Integer> runtimeOrdinals;

	final List<Long> streams;

	final String gpuClass;

	final long scratchLimit;

	final ExecutorForRamConfig hostConfig;

	private VramPlan(List<Integer> ordinals, List<GpuDevice> devices, List<GpuRuntime> runtimes,
			List<Integer> runtimeOrdinals, List<Long> streams, String gpuClass, long scratchLimit,
			ExecutorForRamConfig hostConfig) {
		this.ordinals = ordinals;
		this.devices = devices;
		this.runtimes = runtimes;
		this.runtimeOrdinals = runtimeOrdinals;
		this.streams = streams;
		this.gpuClass = gpuClass;
		this.scratchLimit = scratchLimit;
		this.hostConfig = hostConfig;
	}

	/**
	 * Validates a config against the devices this process sees.
	 * @param config the config
	 * @param all every device, as {@link Uform#gpuDevices()} lists them
	 * @param sysfs the root to read PCI NUMA nodes under ({@code /} outside tests)
	 * @param runtimes the backend of a device ({@link #systemRuntime} outside tests)
	 * @return the plan
	 */
	static VramPlan of(ExecutorForVramConfig config, List<GpuDevice> all, Path sysfs,
			BiFunction<GpuDevice, Integer, GpuRuntime> runtimes) {
		List<Integer> ordinals = chooseDevices(config.devices(), all);
		List<GpuDevice> devices = ordinals.stream().map(all::get).toList();
		String gpuClass = checkGpuClass(config.gpuClass(), devices, ordinals);
		List<Long> streams = checkStreams(config.streams(), ordinals);
		if (config.scratchLimit() != null && config.scratchLimit() < 1) {
			throw UformException.invalid("scratchLimit", config.scratchLimit(),
					"must be at least 1 byte, or absent to let scratch grow until the device is full");
		}
		if (config.scratchLimit() != null) {
			// A limit no device can reach is a typo (a unit off), not a ceiling: refuse it rather than let
			// it read as a promise of scratch the device cannot give.
			for (GpuDevice device : devices) {
				if (config.scratchLimit() > device.memoryBytes()) {
					throw UformException.invalid("scratchLimit", config.scratchLimit(), "device "
							+ all.indexOf(device) + " (" + device.name() + ") has " + device.memoryBytes()
							+ " bytes (" + (device.memoryBytes() >> 20) + " MiB); use at most that, or leave it "
							+ "absent to let scratch grow until the device is full");
				}
			}
		}
		long scratchLimit = (config.scratchLimit() == null) ? Long.MAX_VALUE : config.scratchLimit();
		List<GpuRuntime> backends = new ArrayList<>();
		List<Integer> runtimeOrdinals = new ArrayList<>();
		for (int ordinal : ordinals) {
			GpuDevice device = all.get(ordinal);
			backends.add(runtimes.apply(device, ordinal));
			// A backend numbers its devices in the order uform lists them (CUDA order for NVIDIA).
			int before = 0;
			for (int o = 0; o < ordinal; o++) {
				if (all.get(o).vendor() == device.vendor()) {
					before++;
				}
			}
			runtimeOrdinals.add(before);
		}
		List<Integer> domains = (config.memoryDomains() != null) ? config.memoryDomains() : nearestDomains(devices, sysfs);
		ExecutorForRamConfig hostConfig = new ExecutorForRamConfig(domains, config.cpuClass(), devices.size(),
				config.deferredLimit());
		return new VramPlan(List.copyOf(ordinals), devices, List.copyOf(backends), List.copyOf(runtimeOrdinals), streams,
				gpuClass, scratchLimit, hostConfig);
	}

	/** Counts this plan's devices as held by one more executor. */
	void hold() {
		for (int ordinal : this.ordinals) {
			HOLDERS.computeIfAbsent(ordinal, (key) -> new AtomicInteger()).incrementAndGet();
		}
	}

	/** Counts this plan's devices as held by one executor fewer. */
	void letGo() {
		for (int ordinal : this.ordinals) {
			HOLDERS.computeIfAbsent(ordinal, (key) -> new AtomicInteger()).decrementAndGet();
		}
	}

	private static List<Integer> chooseDevices(List<Integer> asked, List<GpuDevice> all) {
		if (asked == null) {
			// A simulated device is never chosen in place of a real GPU a VRAM executor runs on, nor a GPU
			// it does not run on yet (AMD) in place of one it does: the first kind where there is one, else
			// the second, else whatever there is (which then says it is unsupported).
			int rank = all.stream().mapToInt(VramPlan::preference).min().orElse(0);
			int best = 0;
			int bestHolders = Integer.MAX_VALUE;
			for (int ordinal = 0; ordinal < all.size(); ordinal++) {
				if (preference(all.get(ordinal)) != rank) {
					continue;
				}
				AtomicInteger holders = HOLDERS.get(ordinal);
				int held = (holders == null) ? 0 : holders.get();
				if (held < bestHolders) {
					best = ordinal;
					bestHolders = held;
				}
			}
			return List.of(best);
		}
		if (asked.isEmpty()) {
			throw UformException.invalid("devices", asked, "name at least one device, or leave it absent for one free device; "
					+ "devices here: " + GpuDevice.listed(all));
		}
		Set<Integer> seen = new LinkedHashSet<>();
		for (Integer ordinal : asked) {
			if (ordinal == null || ordinal < 0 || ordinal >= all.size()) {
				throw UformException.invalid("devices", asked, "device " + ordinal + " does not exist; devices here: "
						+ GpuDevice.listed(all));
			}
			if (!seen.add(ordinal)) {
				throw UformException.invalid("devices", asked, "device " + ordinal + " is named twice; name each device once");
			}
		}
		return List.copyOf(seen);
	}

	/** How much an absent {@code devices} prefers a device: 0 a real GPU it runs on, 1 simulated, 2 other. */
	private static int preference(GpuDevice device) {
		if (!device.vendor().runsVramExecutors()) {
			return 2;
		}
		return (device.vendor() == GpuVendor.SIMULATED) ? 1 : 0;
	}

	private static String checkGpuClass(String asked, List<GpuDevice> devices, List<Integer> ordinals) {
		if (asked == null) {
			return null;
		}
		List<String> known = new ArrayList<>(GpuClasses.known());
		known.add("simulated");
		if (!known.contains(asked)) {
			// The classes every chosen device runs come first, as suggestions and as the list.
			List<String> here = new ArrayList<>();
			for (String name : known) {
				if (devices.stream().allMatch((device) -> runsOn(name, device.gpuClass()))) {
					here.add(name);
				}
			}
			List<String> candidates = new ArrayList<>(here);
			known.stream().filter((name) -> !here.contains(name)).forEach(candidates::add);
			List<String> near = NearestNames.nearest(asked, candidates);
			String classes = here.isEmpty() ? "the known classes are " + String.join(", ", known)
					: "the classes " + ((ordinals.size() == 1) ? "device " + ordinals.get(0) : "devices " + ordinals)
							+ " can run are " + String.join(", ", here) + " (or leave it absent for each device's own class)";
			throw UformException.invalid("gpuClass", "'" + asked + "'", near.isEmpty()
					? "not a GPU class uform knows, nor close to one; " + classes
					: "not a GPU class uform knows; did you mean " + NearestNames.either(near) + "? "
							+ Character.toUpperCase(classes.charAt(0)) + classes.substring(1));
		}
		for (int i = 0; i < devices.size(); i++) {
			GpuDevice device = devices.get(i);
			if (!runsOn(asked, device.gpuClass())) {
				throw UformException.invalid("gpuClass", "'" + asked + "'", "device " + ordinals.get(i) + " (" + device.name()
						+ ") is " + device.gpuClass() + ", which cannot run " + asked
						+ " kernels; leave it absent to use each device's own class");
			}
		}
		return asked;
	}

	/** Whether kernels built for class {@code asked} run on a device of class {@code device}. */
	static boolean runsOn(String asked, String device) {
		if (asked.equals(device)) {
			return true;
		}
		if (device == null) {
			return false;
		}
		// Within one vendor's line, PTX for an older architecture JIT-compiles on a newer one.
		List<String> known = GpuClasses.known();
		int a = known.indexOf(asked);
		int d = known.indexOf(device);
		return a >= 0 && d >= 0 && asked.startsWith("nvidia-") && device.startsWith("nvidia-") && a <= d;
	}

	private static List<Long> checkStreams(List<Long> streams, List<Integer> ordinals) {
		if (streams == null) {
			return null;
		}
		if (streams.size() != ordinals.size()) {
			throw UformException.invalid("streams", streams, "give one CUstream address per device (" + ordinals.size()
					+ " for devices " + ordinals + "), in the same order, or leave it absent to create them");
		}
		for (Long stream : streams) {
			if (stream == null || stream < 0) {
				throw UformException.invalid("streams", streams, "a stream address is a CUstream pointer, 0 or more");
			}
		}
		return List.copyOf(streams);
	}

	/**
	 * The backend that drives a device of this process.
	 * @param device the device
	 * @param ordinal its position in {@link Uform#gpuDevices()}
	 * @return CUDA for NVIDIA devices, the simulated runtime for simulated ones
	 * @throws UformException {@link Status#UNSUPPORTED} for any other vendor
	 */
	static GpuRuntime systemRuntime(GpuDevice device, Integer ordinal) {
		return switch (device.vendor()) {
			case NVIDIA -> CudaRuntime.system();
			case SIMULATED -> SimulatedRuntime.system();
			default -> throw new UformException(Status.UNSUPPORTED, "Device " + ordinal + " (" + device.name() + ") is "
					+ device.vendor().name().toLowerCase() + ": this version runs VRAM executors on NVIDIA GPUs (CUDA) and "
					+ "simulated devices only; a HIP binding for AMD GPUs is not built yet. Run the model on Executor.forRam()");
		};
	}

	/**
	 * The NUMA nodes nearest the devices, from {@code /sys/bus/pci/devices/<address>/numa_node}, where
	 * the system says and the node has CPUs this process may use; {@code null} (every node) otherwise.
	 */
	private static List<Integer> nearestDomains(List<GpuDevice> devices, Path sysfs) {
		Set<Integer> nodes = new LinkedHashSet<>();
		NumaTopology topology = NumaTopology.system();
		for (GpuDevice device : devices) {
			if (device.pciBusId() == null) {
				return null;
			}
			try {
				Path file = sysfs.resolve("sys/bus/pci/devices").resolve(device.pciBusId()).resolve("numa_node");
				int node = Integer.parseInt(Files.readString(file).trim());
				if (node < 0 || topology.domain(node).isEmpty()) {
					return null;
				}
				nodes.add(node);
			}
			catch (java.io.IOException | NumberFormatException ex) {
				return null;
			}
		}
		return List.copyOf(nodes);
	}
}
