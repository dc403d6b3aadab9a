package io.uform.spring.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.Mesh;
import io.uform.MeshLiveness;
import io.uform.Uform;
import io.uform.UformException;

/**
 * {@link HealthIndicator} for uform, contributed as {@code uform}: whether the executor beans can
 * still run work and the mesh is still joined.
 *
 * <ul>
 * <li><b>UP</b>: every executor bean is running (or draining, which a caller of {@code drain} asked
 * for and which ends by itself), every device a running executor holds is still listed at its
 * ordinal and can be read, and the mesh, if there is one, is joined.</li>
 * <li><b>DOWN</b>, with a {@code reason} naming what: an executor bean was freed, or refuses new
 * deferred calls, while the application runs (its state is {@code FREED} or {@code CLOSING} and the
 * context has not begun closing or stopping: someone called {@code free()} or
 * {@code refuseDeferred()} on it, and it serves no more deferred calls until the application restarts); a device
 * an executor holds is no longer listed at its ordinal, or reading it ({@link Uform#gpuReadings(int)})
 * fails; the mesh was freed while the application runs; the mesh is broken (a process of the run died)
 * or this process was expelled from it (the reason names the dead process and says the run must be
 * restarted; DOWN even while the context closes).</li>
 * <li><b>OUT_OF_SERVICE</b>, with a {@code reason}: the context is closing (or was stopped) and has
 * already closed an executor to new deferred calls, freed one, or left the mesh, as it does on
 * purpose.</li>
 * </ul>
 * Details: {@code executors} (bean name → state), {@code devices} (how many GPUs this process sees)
 * and, where a mesh bean exists, {@code mesh} (bean name → {@code joined}, {@code broken},
 * {@code expelled} or {@code freed}).
 *
 * <h2>What a lost GPU looks like</h2>
 * uform lists the GPUs once per process, so a device that falls off the bus stays listed; its live
 * readings throw instead ({@code NO_DEVICE}: NVML's {@code NVML_ERROR_GPU_IS_LOST}, or an amdgpu
 * device directory removed since discovery), and this indicator reports that. Other reading errors
 * leave a field missing, as a device without that sensor does, and are not faults.
 */
public class UformHealthIndicator extends AbstractHealthIndicator {

	private final ApplicationContext context;

	private final Supplier<List<GpuDevice>> devices;

	private final IntFunction<GpuReadings> readings;

	/**
	 * Makes the indicator over the executor and mesh beans of an application context and the GPUs of
	 * this process.
	 * @param context the application context whose beans it checks and whose close and stop it reads
	 */
	public UformHealthIndicator(ApplicationContext context) {
		this(context, Uform::gpuDevices, Uform::gpuReadings);
	}

	/**
	 * Makes the indicator over given device sources, for tests.
	 * @param context the application context
	 * @param devices lists the GPUs, as {@link Uform#gpuDevices()}
	 * @param readings reads one, as {@link Uform#gpuReadings(int)}
	 */
	UformHealthIndicator(ApplicationContext context, Supplier<List<GpuDevice>> devices,
			IntFunction<GpuReadings> readings) {
		super("uform health check failed");
		this.context = context;
		this.devices = devices;
		this.readings = readings;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<GpuDevice> listed = this.devices.get();
		Map<String, Executor> executorBeans = UformFacts.existing(this.context, Executor.class);
		Map<String, ExecutorStatistics> snapshots = new LinkedHashMap<>();
		executorBeans.forEach((name, executor) -> snapshots.put(name, executor.statistics()));
		Map<String, MeshLiveness> meshBeans = new LinkedHashMap<>();
		UformFacts.existing(this.context, Mesh.class).forEach((name, mesh) -> meshBeans.put(name, mesh.liveness()));
		// Read after the states, never before: a close is marked closed before it stops or frees anything,
		// so what was seen freed above because the context closes is seen closing here. Read first, a close
		// that began between the two reads would turn its own, planned, free into a DOWN.
		ConfigurableApplicationContext context = (this.context instanceof ConfigurableApplicationContext configurable)
				? configurable : null;
		boolean closing = context != null && context.isClosed();
		boolean windingDown = closing || (context != null && !context.isRunning());
		List<String> faults = new ArrayList<>();
		List<String> ended = new ArrayList<>();
		Map<String, String> executors = new LinkedHashMap<>();
		snapshots.forEach((name, statistics) -> {
			Executor.State state = statistics.state();
			executors.put(name, state.name());
			if (state != Executor.State.FREED && state != Executor.State.CLOSING) {
				checkDevices(name, executorBeans.get(name), statistics, listed, faults);
				return;
			}
			boolean freed = state == Executor.State.FREED;
			String what = freed ? "was freed" : "refuses new deferred calls";
			if (windingDown) {
				ended.add("executor '" + name + "' " + what);
			}
			else {
				faults.add("executor '" + name + "' (" + statistics.name() + ") " + what + " while the application runs"
						+ (freed ? ": no work can run on it until the application restarts"
								: " (refuseDeferred() was called, or a free() is under way): it is on its way to being freed"));
			}
		});
		Map<String, String> meshes = new LinkedHashMap<>();
		meshBeans.forEach((name, liveness) -> {
			String state = UformEndpoint.MeshDescriptor.state(liveness);
			meshes.put(name, state);
			if (liveness.state() == MeshLiveness.State.BROKEN || liveness.state() == MeshLiveness.State.EXPELLED) {
				// A fault even while the context closes: the run needs restarting, whoever stops this process.
				faults.add("mesh '" + name + "' is " + state + ": " + liveness.describe() + "; the run must be restarted");
			}
			else if (liveness.state() == MeshLiveness.State.FREED && windingDown) {
				ended.add("mesh '" + name + "' left its run");
			}
			else if (liveness.state() == MeshLiveness.State.FREED) {
				faults.add("mesh '" + name + "' was freed while the application runs: this process left its run");
			}
		});
		if (!faults.isEmpty()) {
			builder.down().withDetail("reason", String.join("; ", faults));
		}
		else if (!ended.isEmpty()) {
			builder.outOfService()
				.withDetail("reason", "the application context is " + (closing ? "closing" : "stopped") + ": "
						+ String.join("; ", ended));
		}
		else {
			builder.up();
		}
		builder.withDetail("executors", executors).withDetail("devices", listed.size());
		if (!meshes.isEmpty()) {
			builder.withDetail("mesh", meshes);
		}
	}

	private void checkDevices(String name, Executor executor, ExecutorStatistics statistics, List<GpuDevice> listed,
			List<String> faults) {
		List<GpuDevice> held = executor.devices();
		for (int index = 0; index < statistics.devices().size(); index++) {
			int ordinal = statistics.devices().get(index);
			GpuDevice device = (index < held.size()) ? held.get(index) : null;
			String fault = deviceFault(ordinal, device, listed);
			if (fault != null) {
				faults.add("device " + ordinal + ((device != null) ? " (" + describe(device) + ")" : "")
						+ " held by executor '" + name + "' " + fault);
			}
		}
	}

	private @Nullable String deviceFault(int ordinal, @Nullable GpuDevice held, List<GpuDevice> listed) {
		if (ordinal < 0 || ordinal >= listed.size()) {
			int count = listed.size();
			return "is no longer listed (this process sees " + count + ((count == 1) ? " GPU)" : " GPUs)");
		}
		if (held != null && !held.equals(listed.get(ordinal))) {
			return "is no longer listed at that ordinal (it now lists " + describe(listed.get(ordinal)) + ")";
		}
		try {
			this.readings.apply(ordinal);
			return null;
		}
		catch (RuntimeException ex) {
			return "cannot be read: " + ex.getMessage();
		}
	}

	private static String describe(GpuDevice device) {
		return device.name() + ((device.uuid() != null) ? ", " + device.uuid() : "");
	}
}
