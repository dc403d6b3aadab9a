package io.uform.gpu;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import io.uform.failure.Failures;

/**
 * The GPUs of this process: NVIDIA devices (CUDA order) first, then AMD devices (ROCm order), then,
 * only when the process opted in, simulated devices ({@link SimulatedRuntime}, host memory), found
 * once and cached, since the device set of a process does not change while it runs. This is what
 * {@link io.uform.Uform#gpuDevices()} returns; {@link #readings(int)} reads a device live.
 *
 * <h2>Simulated devices</h2>
 * They come after every real device, so that they never take a real GPU's ordinal, and only when
 * {@link SimulatedDevices} says so; a note says they are host memory, and a setting that cannot be
 * used is one of the {@link #problems()}, leaving them off.
 *
 * <h2>Failures never escape</h2>
 * Discovery never throws and never prints: no driver means no devices. A driver that is present but
 * failing (say {@code cuInit} returns {@code CUDA_ERROR_SYSTEM_DRIVER_MISMATCH}) also gives no devices
 * of that vendor, so that an application without GPU work still starts, and the reason is kept in
 * {@link #problems()} for the {@code uform-info} command, health checks and error messages. What was
 * looked at and found absent is in {@link #notes()}. At most one line is logged, at DEBUG, through
 * {@link System.Logger} {@code io.uform.gpu}.
 */
public final class GpuDiscovery {

	private static final System.Logger LOG = System.getLogger("io.uform.gpu");

	private static volatile GpuDiscovery system;

	private final List<FoundGpu> gpus;

	private final List<DeviceFacts> devices;

	private final List<String> problems;

	private final List<String> notes;

	private GpuDiscovery(List<FoundGpu> gpus, List<String> problems, List<String> notes) {
		this.gpus = List.copyOf(gpus);
		this.devices = gpus.stream().map(FoundGpu::device).toList();
		this.problems = List.copyOf(problems);
		this.notes = List.copyOf(notes);
	}

	/**
	 * The GPUs of this machine and process, discovered on first use with the real drivers, the real
	 * sysfs and the process environment.
	 * @return the discovery, the same one on every call
	 */
	public static GpuDiscovery system() {
		GpuDiscovery discovery = system;
		if (discovery == null) {
			synchronized (GpuDiscovery.class) {
				discovery = system;
				if (discovery == null) {
					GpuDiscovery found = discover(JnaCudaDriver::load, Path.of("/"), System.getenv(),
							SimulatedRuntime::system);
					LOG.log(Level.DEBUG, () -> "GPU discovery: " + found.devices.size() + " device(s); "
							+ String.join("; ", found.problems.isEmpty() ? found.notes : found.problems));
					system = found;
					discovery = found;
				}
			}
		}
		return discovery;
	}

	/**
	 * Discovers with the given sources; for tests and for diagnosing another machine's sysfs copy.
	 * @param cuda opens the CUDA driver: empty when it is not installed, {@link DriverCallException}
	 *        when it is installed but unusable
	 * @param root the directory that holds the {@code sys/} tree to read AMD devices from
	 * @param environment the variables to honour ({@code ROCR_VISIBLE_DEVICES}, {@code HIP_VISIBLE_DEVICES};
	 *        {@code CUDA_VISIBLE_DEVICES} is applied by the CUDA driver itself, from the real environment)
	 * @return the discovery, without simulated devices whatever the process opted in to
	 */
	public static GpuDiscovery discover(Supplier<Optional<CudaDriver>> cuda, Path root,
			Map<String, String> environment) {
		return discover(cuda, root, environment, () -> new SimulatedRuntime(SimulatedDevices.none()));
	}

	/**
	 * Discovers with the given sources, simulated devices included; for tests.
	 * @param cuda opens the CUDA driver, as for {@link #discover(Supplier, Path, Map)}
	 * @param root the directory that holds the {@code sys/} tree to read AMD devices from
	 * @param environment the variables to honour for AMD devices
	 * @param simulated gives the simulated devices to list after the real ones (none when its opt-in is
	 *        off), whose readings come from it; a supplier, so that even its failure stays a problem
	 * @return the discovery
	 */
	public static GpuDiscovery discover(Supplier<Optional<CudaDriver>> cuda, Path root,
			Map<String, String> environment, Supplier<SimulatedRuntime> simulated) {
		List<FoundGpu> gpus = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		List<String> notes = new ArrayList<>();
		collect("NVIDIA", () -> new NvidiaDiscovery(cuda).scan(), gpus, problems, notes);
		collect("AMD", () -> new AmdKfdDiscovery(root, environment).scan(), gpus, problems, notes);
		// Last, so that a simulated device never takes the ordinal of a real one.
		collect("Simulated device", () -> simulated.get().scan(), gpus, problems, notes);
		return new GpuDiscovery(gpus, problems, notes);
	}

	private static void collect(String vendor, Supplier<GpuScan> scanner, List<FoundGpu> gpus, List<String> problems,
			List<String> notes) {
		try {
			GpuScan scan = scanner.get();
			gpus.addAll(scan.gpus());
			problems.addAll(scan.problems());
			notes.addAll(scan.notes());
		}
		catch (RuntimeException | LinkageError ex) {
			// uform's own failure already says what was wrong; anything else is named with its type. A
			// native library that loads but misbehaves must not take the application down with it.
			boolean uforms = Failures.factory().kindOf(ex) != null;
			problems.add(uforms ? ex.getMessage() : vendor + " discovery failed: " + ex);
		}
	}

	/**
	 * The devices, NVIDIA first, then AMD, then simulated ones; a device's position is its uform ordinal.
	 * @return the devices, possibly empty
	 */
	public List<DeviceFacts> devices() {
		return this.devices;
	}

	/**
	 * Reads a device now: memory, utilisation, power and temperature where its vendor reports them.
	 * @param ordinal a position in {@link #devices()}
	 * @return the readings; fields the vendor does not report are {@code null}
	 * @throws RuntimeException {@code NO_DEVICE} when no device has that ordinal, or when its driver says
	 *         the device is gone (NVML's {@code NVML_ERROR_GPU_IS_LOST}, an amdgpu device directory
	 *         removed since discovery): the device stays listed, since the list is made once per process
	 */
	public Readings readings(int ordinal) {
		if (ordinal < 0 || ordinal >= this.gpus.size()) {
			throw Failures.factory().noDevice("No GPU with ordinal " + ordinal + ": "
					+ (this.gpus.isEmpty() ? "this process sees no GPU" : "ordinals run from 0 to " + (this.gpus.size() - 1))
					+ "; list them with Uform.gpuDevices() or the uform-info command", null);
		}
		FoundGpu gpu = this.gpus.get(ordinal);
		try {
			return gpu.readings().get();
		}
		catch (DeviceLostException ex) {
			DeviceFacts device = gpu.device();
			throw Failures.factory().noDevice("GPU " + ordinal + " (" + device.name()
					+ ((device.uuid() != null) ? ", " + device.uuid() : "") + ") is lost: " + ex.getMessage()
					+ ". Work on it fails until the machine is fixed and this process restarted", ex);
		}
	}

	/**
	 * Why a vendor's devices may be missing or incomplete: a driver present but failing, NVML absent,
	 * an unreadable KFD node.
	 * @return messages a person can act on; empty when discovery went cleanly
	 */
	public List<String> problems() {
		return this.problems;
	}

	/**
	 * What discovery looked at: which drivers answered, or that none is installed.
	 * @return one line per observation
	 */
	public List<String> notes() {
		return this.notes;
	}
}
