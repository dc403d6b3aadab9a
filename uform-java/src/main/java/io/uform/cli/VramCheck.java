package io.uform.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.uform.DeviceBuffer;
import io.uform.DeviceLane;
import io.uform.Executor;
import io.uform.ExecutorForVramConfig;
import io.uform.GpuDevice;
import io.uform.HostBuffer;
import io.uform.Mood;
import io.uform.ScratchStatistics;
import io.uform.Uform;
import io.uform.UformException;

/**
 * The real-hardware check of a VRAM executor, run by {@code scripts/gpu-check.sh} on a machine with
 * a GPU (and by a test on simulated devices): make an executor on one device, grow its scratch to
 * 1 GiB, upload a matrix and queries, run the shipped dot-product kernel and compare its scores with
 * a host computation in double precision, run a deferred call, drain, drain with a deadline behind
 * queued kernels (the event path: {@code cuEventRecord}, {@code cuEventQuery}), free, and compare the
 * device's memory before and after. Each step prints {@code PASS}, {@code FAIL} or {@code SKIP} and a reason;
 * the exit status is the number of failures (capped at 1), or 2 when there is no device to check.
 *
 * <pre>
 * java -cp uform-java-&lt;version&gt;-cli.jar io.uform.cli.VramCheck [device-ordinal]
 * </pre>
 */
public final class VramCheck {

	/** Matrix rows uploaded: 100,000 x 256 floats, about 100 MB. */
	static final int ROWS = 100_000;

	static final int DIM = 256;

	static final int QUERIES = 16;

	/** Kernels queued ahead of the drain with a deadline, so that its event has work to wait for. */
	static final int TIMED_DRAIN_KERNELS = 20;

	/** Largest relative error accepted against the double-precision host scores. */
	static final double TOLERANCE = 1e-4;

	/** How much more device memory may be in use after free than before (driver caches, other processes). */
	static final long MEMORY_SLACK = 64L << 20;

	private final PrintStream out;

	private int failures;

	VramCheck(PrintStream out) {
		this.out = out;
	}

	/**
	 * Runs the check.
	 * @param args optional device ordinal (default 0)
	 */
	public static void main(String[] args) {
		int device = (args.length > 0) ? Integer.parseInt(args[0]) : 0;
		List<GpuDevice> devices = Uform.gpuDevices();
		if (devices.isEmpty() || device < 0 || device >= devices.size()) {
			System.out.println("vram-check: no device " + device + " (devices: " + devices.size()
					+ "); nothing to check. uform-info says why a GPU is missing");
			System.exit(2);
		}
		// 1 GiB, or half the device where it is smaller (a simulated device, a small GPU).
		long scratch = Math.min(1L << 30, devices.get(device).memoryBytes() / 2);
		int failed = new VramCheck(System.out).run(device, scratch);
		System.out.println((failed == 0) ? "vram-check: all checks passed" : "vram-check: " + failed + " check(s) FAILED");
		System.exit(Math.min(failed, 1));
	}

	/**
	 * Runs every step on one device.
	 * @param ordinal the device, a position in {@link Uform#gpuDevices()}
	 * @param scratchTarget how far to grow scratch (1 GiB on a real GPU)
	 * @return failed steps
	 */
	int run(int ordinal, long scratchTarget) {
		GpuDevice device = Uform.gpuDevices().get(ordinal);
		this.out.println("== VRAM executor on device " + ordinal + ": " + device.name() + " (" + device.vendor() + ", "
				+ device.gpuClass() + ", " + device.memoryBytes() / (1 << 20) + " MiB)");
		Long usedBefore = Uform.gpuReadings(ordinal).memoryUsedBytes();
		long start = System.nanoTime();
		Executor executor;
		try {
			executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(ordinal)));
		}
		catch (UformException ex) {
			fail("forVram", ex.toString());
			return this.failures;
		}
		pass("forVram", executor.toString() + ", stream 0x" + Long.toHexString(executor.lanes().get(0).streamAddress()));
		DeviceLane lane = executor.lanes().get(0);
		try {
			growScratch(executor, lane, scratchTarget);
			runKernel(lane);
			deferredCall(executor);
			long drainStart = System.nanoTime();
			executor.drain();
			pass("drain", "streams synchronised in " + micros(drainStart) + " us");
			timedDrain(executor, lane);
		}
		catch (UformException | AssertionError ex) {
			fail("unexpected", ex.toString());
		}
		finally {
			try {
				executor.free();
				pass("free", "context released; executor " + executor.statistics().state());
			}
			catch (UformException ex) {
				fail("free", ex.toString());
			}
		}
		compareMemory(ordinal, usedBefore);
		this.out.println("   total " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
		return this.failures;
	}

	@SuppressWarnings("try") // the reservation is held through the check, not used in it
	private void growScratch(Executor executor, DeviceLane lane, long target) {
		try (DeviceBuffer big = lane.reserve(target)) {
			ScratchStatistics scratch = executor.statistics().scratch().get(0);
			check("scratch to " + target / (1 << 20) + " MiB", scratch.reservedBytes() >= target,
					"reserved " + scratch.reservedBytes() + ", in use " + scratch.inUseBytes() + ", high-water "
							+ scratch.highWaterBytes() + " bytes");
		}
	}

	private void runKernel(DeviceLane lane) {
		Random random = new Random(42);
		float[] matrix = new float[ROWS * DIM];
		for (int i = 0; i < matrix.length; i++) {
			matrix[i] = random.nextFloat() * 2 - 1;
		}
		float[] queries = new float[QUERIES * DIM];
		for (int i = 0; i < queries.length; i++) {
			queries[i] = random.nextFloat() * 2 - 1;
		}
		float[] scores = new float[QUERIES * ROWS];
		try (HostBuffer hostMatrix = lane.hostBuffer((long) matrix.length * Float.BYTES);
				HostBuffer hostQueries = lane.hostBuffer((long) queries.length * Float.BYTES);
				HostBuffer hostScores = lane.hostBuffer((long) scores.length * Float.BYTES);
				DeviceBuffer deviceMatrix = lane.reserve(hostMatrix.bytes());
				DeviceBuffer deviceQueries = lane.reserve(hostQueries.bytes());
				DeviceBuffer deviceScores = lane.reserve(hostScores.bytes())) {
			hostMatrix.putFloats(0, matrix);
			hostQueries.putFloats(0, queries);
			long upload = System.nanoTime();
			lane.copyToDevice(hostMatrix, deviceMatrix);
			lane.copyToDevice(hostQueries, deviceQueries);
			lane.synchronize();
			pass("upload", hostMatrix.bytes() / (1 << 20) + " MiB in " + micros(upload) + " us");
			if (lane.simulated()) {
				// No kernels on a simulated device: check the copies round-trip instead.
				try {
					lane.dotProducts(deviceMatrix, deviceQueries, deviceScores, ROWS, DIM, QUERIES);
					fail("kernel", "a simulated device ran a kernel");
				}
				catch (UformException ex) {
					check("kernel refused on a simulated device", ex.status() == UformException.Status.UNSUPPORTED,
							ex.getMessage());
				}
				lane.copyToHost(deviceMatrix, hostMatrix);
				lane.synchronize();
				float[] back = hostMatrix.getFloats(0, new float[matrix.length]);
				check("download", java.util.Arrays.equals(back, matrix), "matrix came back bit for bit");
				return;
			}
			long kernel = System.nanoTime();
			lane.dotProducts(deviceMatrix, deviceQueries, deviceScores, ROWS, DIM, QUERIES);
			lane.copyToHost(deviceScores, hostScores);
			lane.synchronize();
			long kernelMicros = micros(kernel);
			hostScores.getFloats(0, scores);
			double worst = 0;
			for (int q = 0; q < QUERIES; q++) {
				for (int r = 0; r < ROWS; r++) {
					double expected = 0;
					double magnitude = 0;
					for (int i = 0; i < DIM; i++) {
						double product = (double) queries[q * DIM + i] * matrix[r * DIM + i];
						expected += product;
						magnitude += Math.abs(product);
					}
					worst = Math.max(worst, Math.abs(scores[q * ROWS + r] - expected) / Math.max(magnitude, 1e-30));
				}
			}
			check("uform_dot_f32 vs host", worst <= TOLERANCE, QUERIES + " x " + ROWS + " scores, worst relative error "
					+ String.format("%.2e", worst) + " (limit " + TOLERANCE + "), kernel + download " + kernelMicros + " us");
		}
	}

	/**
	 * A drain with a deadline right behind work still running: it records an event on the stream
	 * ({@code cuEventRecord}) and polls it ({@code cuEventQuery}) until the work queued before the
	 * event is done. A simulated device runs no kernels, so there the event has nothing to wait for.
	 */
	private void timedDrain(Executor executor, DeviceLane lane) {
		try (DeviceBuffer matrix = lane.reserve((long) ROWS * DIM * Float.BYTES);
				DeviceBuffer queries = lane.reserve((long) QUERIES * DIM * Float.BYTES);
				DeviceBuffer scores = lane.reserve((long) QUERIES * ROWS * Float.BYTES)) {
			String queued = "nothing queued (no kernels on a simulated device)";
			if (!lane.simulated()) {
				// The scores are not read: the kernels are there to keep the stream busy.
				for (int i = 0; i < TIMED_DRAIN_KERNELS; i++) {
					lane.dotProducts(matrix, queries, scores, ROWS, DIM, QUERIES);
				}
				queued = TIMED_DRAIN_KERNELS + " uform_dot_f32 kernels still queued";
			}
			long start = System.nanoTime();
			boolean drained = executor.drain(Mood.PARKED, Duration.ofSeconds(30));
			check("drain with a deadline", drained, "event recorded on the stream (cuEventRecord) behind " + queued
					+ ", polled with cuEventQuery, drained in " + micros(start) + " us");
			if (!drained) {
				// The buffers go back to scratch below: not while the kernels may still use them.
				lane.synchronize();
			}
		}
	}

	private void deferredCall(Executor executor) {
		try {
			long bytes = executor.defer(() -> {
				DeviceLane lane = executor.lanes().get(0);
				try (DeviceBuffer scratch = lane.reserve(1 << 20); HostBuffer host = lane.hostBuffer(1 << 20)) {
					lane.copyToDevice(host, scratch);
					lane.synchronize();
					return scratch.bytes();
				}
			}).get(60, TimeUnit.SECONDS);
			check("deferred call", bytes == 1 << 20, "copied " + bytes + " bytes on the device's context");
		}
		catch (Exception ex) {
			fail("deferred call", ex.toString());
		}
	}

	private void compareMemory(int ordinal, Long usedBefore) {
		Long usedAfter = Uform.gpuReadings(ordinal).memoryUsedBytes();
		if (usedBefore == null || usedAfter == null) {
			this.out.println("SKIP  device memory before/after: the vendor reports no memory use");
			return;
		}
		check("device memory back", usedAfter <= usedBefore + MEMORY_SLACK, "used " + usedBefore / (1 << 20)
				+ " MiB before, " + usedAfter / (1 << 20) + " MiB after free (slack " + MEMORY_SLACK / (1 << 20) + " MiB)");
	}

	private void check(String step, boolean ok, String detail) {
		if (ok) {
			pass(step, detail);
		}
		else {
			fail(step, detail);
		}
	}

	private void pass(String step, String detail) {
		this.out.printf("PASS  %-34s %s%n", step, detail);
	}

	private void fail(String step, String detail) {
		this.failures++;
		this.out.printf("FAIL  %-34s %s%n", step, detail);
	}

	private static long micros(long since) {
		return TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - since);
	}
}
