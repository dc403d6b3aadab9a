package io.uform.gpu;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;


/**
 * A CUDA machine for tests outside this package: H100s of a {@link FakeCudaDriver}, a
 * {@link RecordingCudaCompute} behind a real {@link CudaRuntime}, and the devices discovery finds on
 * it. Tests of VRAM executors drive the real runtime code over it and read back what reached the
 * driver: streams created and destroyed, allocations, modules, launches, retains.
 */
public final class RecordingCuda {

	private final FakeCudaDriver driver = new FakeCudaDriver();

	private final RecordingCudaCompute compute = new RecordingCudaCompute();

	private final PausingCudaCompute pausing = new PausingCudaCompute(this.compute);

	private final CudaRuntime runtime;

	private final List<DeviceFacts> devices;

	/**
	 * A machine with {@code count} H100s.
	 * @param count GPUs
	 */
	public RecordingCuda(int count) {
		for (int i = 0; i < count; i++) {
			this.driver.gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, 80L << 30, 0x1B + 0x10 * i);
		}
		this.runtime = new CudaRuntime(this.driver, this.pausing);
		this.devices = GpuDiscovery.discover(() -> Optional.of(this.driver), Path.of("/nonexistent"), Map.of()).devices();
	}

	/**
	 * The runtime over the recording driver.
	 * @return the runtime
	 */
	public GpuRuntime runtime() {
		return this.runtime;
	}

	/**
	 * The devices, as discovery lists them.
	 * @return NVIDIA devices
	 */
	public List<DeviceFacts> devices() {
		return this.devices;
	}

	/**
	 * Every driver call so far, as {@code "cuStreamCreate 1 -> 0x1000"}.
	 * @return the calls in order
	 */
	public List<String> calls() {
		return this.compute.calls();
	}

	/**
	 * Streams created and not destroyed.
	 * @return their handles
	 */
	public Set<Long> liveStreams() {
		return this.compute.liveStreams();
	}

	/**
	 * Events created and not destroyed.
	 * @return their handles
	 */
	public Set<Long> liveEvents() {
		return this.compute.liveEvents();
	}

	/**
	 * Device memory allocated and not freed.
	 * @return the addresses
	 */
	public Set<Long> liveAllocations() {
		return this.compute.liveAllocations();
	}

	/**
	 * Modules loaded and not unloaded.
	 * @return their handles
	 */
	public Set<Long> liveModules() {
		return this.compute.liveModules();
	}

	/**
	 * Primary-context retains outstanding on a device.
	 * @param ordinal the CUDA ordinal
	 * @return retains minus releases
	 */
	public int retains(int ordinal) {
		return this.compute.retainCount(this.driver.device(ordinal));
	}

	/**
	 * The context current on the calling thread.
	 * @return the handle, 0 when none
	 */
	public long currentContext() {
		return this.compute.currentContext();
	}

	/**
	 * Launches so far: grid, block, and the arguments' sizes and bits.
	 * @return one line per launch, like {@code grid [2, 1, 1] block [256, 1, 1] args [8:0x7f.., 4:0x10]}
	 */
	public List<String> launches() {
		return this.compute.launches.stream().map((launch) -> "grid " + java.util.Arrays.toString(launch.grid()) + " block "
				+ java.util.Arrays.toString(launch.block()) + " shared " + launch.sharedBytes() + " args "
				+ launch.arguments().stream().map((arg) -> arg.bytes() + ":0x" + Long.toHexString(arg.bits())).toList())
			.toList();
	}

	/**
	 * Makes the next call of that name fail.
	 * @param call the exported symbol, like {@code cuMemAlloc_v2}
	 * @param code the CUresult
	 * @param name its name
	 */
	public void failNext(String call, int code, String name) {
		this.compute.failNext(call, code, name);
	}

	/**
	 * Holds the next driver call of that name inside the driver until the pause is resumed, so that a
	 * test can race it against another thread.
	 * @param call the exported symbol, like {@code cuMemcpyHtoDAsync_v2}
	 * @return the pause
	 */
	public PausingCudaCompute.Pause pauseNext(String call) {
		return this.pausing.pauseNext(call);
	}

	/**
	 * Makes the next {@code queries} {@code cuStreamQuery} calls on a stream, or {@code cuEventQuery}
	 * calls of an event recorded on it, answer "not ready", as while a long kernel runs on it.
	 * @param stream the stream
	 * @param queries how many
	 */
	public void busyFor(long stream, int queries) {
		this.compute.busyFor(stream, queries);
	}

	/**
	 * Makes the next module load fail with a JIT log.
	 * @param code the CUresult
	 * @param name its name
	 * @param jitLog what the JIT says
	 */
	public void failNextModuleLoad(int code, String name, String jitLog) {
		this.compute.failNextModuleLoad(code, name, jitLog);
	}
}
