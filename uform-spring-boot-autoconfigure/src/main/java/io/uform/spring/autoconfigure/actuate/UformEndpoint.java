package io.uform.spring.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import com.fasterxml.jackson.annotation.JsonValue;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.GpuVendor;
import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshLiveness;
import io.uform.MeshOptions;
import io.uform.Mood;
import io.uform.ScratchStatistics;
import io.uform.Uform;
import io.uform.UformException;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.UformMeshSources;
import io.uform.spring.autoconfigure.models.ModelReport;
import io.uform.spring.autoconfigure.models.ModelReports;

/**
 * {@link Endpoint @Endpoint} that shows what uform runs on and with: its version, its capability
 * tokens, the GPUs this process sees (with live readings where the vendor reports them), every
 * executor bean with its effective configuration and counters, and the mesh.
 *
 * <p>Read-only ({@link Access#READ_ONLY}, and no write or delete operation): it describes state and
 * configuration; time series (utilisation, scratch in use over time) belong to the Micrometer meters.
 * Paths, under the actuator base path:
 * <ul>
 * <li>{@code uform}: everything, as a {@link UformDescriptor};</li>
 * <li>{@code uform/devices}, {@code uform/capabilities}, {@code uform/executors}, {@code uform/mesh}:
 * one section of it, as the whole shows it ({@code mesh} answers 404 where there is none);</li>
 * <li>{@code uform/executors/{name}}: one executor bean by name (404 for a name that is not an
 * existing executor bean; looking never makes one);</li>
 * <li>{@code uform/models}, {@code uform/models/{name}}: the models of {@code uform.models}, all or one
 * (404 where there is none of that name).</li>
 * </ul>
 * Nothing is cached: every read takes a fresh {@link Executor#statistics()} snapshot and fresh device
 * readings.
 */
@Endpoint(id = "uform", defaultAccess = Access.READ_ONLY)
public class UformEndpoint {

	/** The {@code part} selector of the devices section. */
	public static final String DEVICES = "devices";

	/** The {@code part} selector of the capabilities section. */
	public static final String CAPABILITIES = "capabilities";

	/** The {@code part} selector of the executors section, and the first selector of one executor. */
	public static final String EXECUTORS = "executors";

	/** The {@code part} selector of the models section, and the first selector of one model. */
	public static final String MODELS = "models";

	/** The {@code part} selector of the mesh section. */
	public static final String MESH = "mesh";

	private final ListableBeanFactory beans;

	private final Supplier<List<GpuDevice>> devices;

	private final IntFunction<GpuReadings> readings;

	/**
	 * Makes the endpoint over the executor and mesh beans of a bean factory and the GPUs of this
	 * process.
	 * @param beans where the executor and mesh beans are looked up (existing beans only)
	 */
	public UformEndpoint(ListableBeanFactory beans) {
		this(beans, Uform::gpuDevices, Uform::gpuReadings);
	}

	/**
	 * Makes the endpoint over given device sources, for tests.
	 * @param beans where the executor and mesh beans are looked up
	 * @param devices lists the GPUs, as {@link Uform#gpuDevices()}
	 * @param readings reads one, as {@link Uform#gpuReadings(int)}
	 */
	UformEndpoint(ListableBeanFactory beans, Supplier<List<GpuDevice>> devices, IntFunction<GpuReadings> readings) {
		this.beans = beans;
		this.devices = devices;
		this.readings = readings;
	}

	/**
	 * Everything: version, capabilities, devices, executors and, where a mesh bean exists, the mesh.
	 * @return the description
	 */
	@ReadOperation
	public UformDescriptor uform() {
		List<GpuDevice> listed = this.devices.get();
		return new UformDescriptor(UformFacts.version(), capabilities(), devices(listed), executors(), models(),
				mesh(listed));
	}

	/**
	 * One section of {@link #uform()}, shown as the whole shows it.
	 * @param part {@value #DEVICES}, {@value #CAPABILITIES}, {@value #EXECUTORS}, {@value #MODELS} or
	 *        {@value #MESH}
	 * @return the section, or {@code null} (404) for another part, or for {@value #MESH} where no mesh
	 *         bean exists, or {@value #MODELS} where no model is configured
	 */
	@ReadOperation
	// Declared as Object, so Boot's hints for read operations (their declared return types) miss what it
	// returns: Jackson serialises these reflectively, in a native image too.
	@RegisterReflectionForBinding({ DevicesDescriptor.class, CapabilitiesDescriptor.class, MeshDescriptor.class,
			DeadDescriptor.class })
	public @Nullable Object part(@Selector String part) {
		return switch (part) {
			case DEVICES -> new DevicesDescriptor(devices(this.devices.get()));
			case CAPABILITIES -> capabilities();
			case EXECUTORS -> OperationResponseBody.of(executors());
			case MODELS -> {
				Map<String, ModelReport> models = models();
				yield (models != null) ? OperationResponseBody.of(models) : null;
			}
			case MESH -> mesh(this.devices.get());
			default -> null;
		};
	}

	/**
	 * One executor bean or one model.
	 * @param part {@value #EXECUTORS} or {@value #MODELS}
	 * @param name the executor's bean name, like {@code uformRamExecutor}, or the model's name in
	 *        {@code uform.models}
	 * @return the executor or the model, or {@code null} (404) where there is none of that name
	 */
	@ReadOperation
	@RegisterReflectionForBinding({ ExecutorDescriptor.class, ModelReport.class })
	public @Nullable Object selected(@Selector String part, @Selector String name) {
		if (MODELS.equals(part)) {
			Map<String, ModelReport> models = models();
			return (models != null) ? models.get(name) : null;
		}
		return executor(part, name);
	}

	/**
	 * One executor bean.
	 * @param part must be {@value #EXECUTORS}
	 * @param name the executor's bean name, like {@code uformRamExecutor}
	 * @return the executor, or {@code null} when no executor bean has that name
	 */
	public @Nullable ExecutorDescriptor executor(String part, String name) {
		if (!EXECUTORS.equals(part)) {
			return null;
		}
		Executor executor = UformFacts.existing(this.beans, Executor.class).get(name);
		return (executor != null) ? ExecutorDescriptor.of(executor.statistics()) : null;
	}

	private CapabilitiesDescriptor capabilities() {
		return new CapabilitiesDescriptor(UformFacts.compiled(), UformFacts.available());
	}

	private List<DeviceDescriptor> devices(List<GpuDevice> listed) {
		List<DeviceDescriptor> described = new ArrayList<>(listed.size());
		for (int ordinal = 0; ordinal < listed.size(); ordinal++) {
			described.add(DeviceDescriptor.of(ordinal, listed.get(ordinal), readings(ordinal)));
		}
		return described;
	}

	private @Nullable Map<String, Object> readings(int ordinal) {
		GpuReadings now;
		try {
			now = this.readings.apply(ordinal);
		}
		catch (RuntimeException ex) {
			// The health indicator reports a device that cannot be read; here it has no readings.
			return null;
		}
		Map<String, Object> reported = new LinkedHashMap<>();
		putIfReported(reported, "memoryUsedBytes", now.memoryUsedBytes());
		putIfReported(reported, "memoryTotalBytes", now.memoryTotalBytes());
		putIfReported(reported, "utilizationPercent", now.utilizationPercent());
		putIfReported(reported, "powerWatts", now.powerWatts());
		putIfReported(reported, "temperatureCelsius", now.temperatureCelsius());
		return reported;
	}

	private static void putIfReported(Map<String, Object> reported, String key, @Nullable Object value) {
		if (value != null) {
			reported.put(key, value);
		}
	}

	private Map<String, ExecutorDescriptor> executors() {
		Map<String, ExecutorDescriptor> described = new LinkedHashMap<>();
		UformFacts.existing(this.beans, Executor.class)
			.forEach((name, executor) -> described.put(name, ExecutorDescriptor.of(executor.statistics())));
		return described;
	}

	/** The configured models, or {@code null} (left out) where there is none. */
	private @Nullable Map<String, ModelReport> models() {
		ModelReports reports = this.beans.getBeanProvider(ModelReports.class).getIfAvailable();
		Map<String, ModelReport> models = (reports != null) ? reports.reports() : Map.of();
		return models.isEmpty() ? null : models;
	}

	private @Nullable MeshDescriptor mesh(List<GpuDevice> listed) {
		Map<String, Mesh> meshes = UformFacts.existing(this.beans, Mesh.class);
		if (meshes.isEmpty()) {
			return null;
		}
		// One process joins one run; the auto-configured bean comes first where a user added another.
		String name = meshes.containsKey(UformAutoConfiguration.MESH_BEAN_NAME) ? UformAutoConfiguration.MESH_BEAN_NAME
				: meshes.keySet().iterator().next();
		return MeshDescriptor.of(name, meshes.get(name), listed, origins(name));
	}

	/** Where the auto-configured mesh's values came from; {@code null} for a mesh the starter did not make. */
	private @Nullable Map<String, String> origins(String meshBean) {
		if (!UformAutoConfiguration.MESH_BEAN_NAME.equals(meshBean)) {
			return null;
		}
		UformMeshSources sources = this.beans.getBeanProvider(UformMeshSources.class).getIfAvailable();
		MeshOptions options = this.beans.getBeanProvider(MeshOptions.class).getIfAvailable();
		return (sources != null && options != null) ? sources.origins(options) : null;
	}

	/**
	 * Everything the endpoint shows.
	 *
	 * @param version the version of the uform-java library (its jar's {@code Implementation-Version} or
	 *        Maven {@code pom.properties}), {@code unknown} when run from classes without either
	 * @param capabilities the capability tokens compiled into uform and available here
	 * @param devices the GPUs this process sees, in ordinal order
	 * @param executors the executor beans, by bean name
	 * @param models the models of {@code uform.models}, by name, or {@code null} (left out) where there is none
	 * @param mesh the mesh, or {@code null} (left out) where no mesh bean exists
	 */
	public record UformDescriptor(String version, CapabilitiesDescriptor capabilities, List<DeviceDescriptor> devices,
			Map<String, ExecutorDescriptor> executors, @Nullable Map<String, ModelReport> models,
			@Nullable MeshDescriptor mesh) implements OperationResponseBody {
	}

	/**
	 * uform's capability tokens ({@code serial}, {@code intel-haswell}, …, {@code numa}, {@code cuda},
	 * {@code rocm}, GPU classes), as lists rather than uform's comma-separated strings.
	 *
	 * @param compiled every token this build knows ({@link Uform#capabilitiesCompiled()})
	 * @param available the tokens this machine offers now ({@link Uform#capabilitiesAvailable()}), a
	 *        subset of {@code compiled} in the same order
	 */
	public record CapabilitiesDescriptor(List<String> compiled, List<String> available)
			implements OperationResponseBody {
	}

	/**
	 * The {@code devices} section on its own: serialised as the list itself, as the whole shows it.
	 *
	 * @param devices the devices, in ordinal order
	 */
	public record DevicesDescriptor(@JsonValue List<DeviceDescriptor> devices) implements OperationResponseBody {
	}

	/**
	 * One GPU: every field of {@link GpuDevice}, whether it is simulated, and what its vendor reports now
	 * (each reading left out where it is not reported; {@code readings} left out when the device could
	 * not be read). The table of {@code docs/actuator.md}, section {@code devices}, says what each
	 * component holds.
	 */
	public record DeviceDescriptor(int ordinal, GpuVendor vendor, int vendorOrdinal, @Nullable String gpuClass,
			int computeUnits, long memoryBytes, String name, @Nullable String uuid, @Nullable String pciBusId,
			boolean simulated, @Nullable Map<String, Object> readings) {

		static DeviceDescriptor of(int ordinal, GpuDevice device, @Nullable Map<String, Object> readings) {
			return new DeviceDescriptor(ordinal, device.vendor(), device.vendorOrdinal(), device.gpuClass(),
					device.computeUnits(), device.memoryBytes(), device.name(), device.uuid(), device.pciBusId(),
					device.vendor() == GpuVendor.SIMULATED, readings);
		}
	}

	/**
	 * One executor bean, from a {@link Executor#statistics()} snapshot; {@code scratch} has an entry per
	 * device of a VRAM executor, none for a RAM executor. The table of {@code docs/actuator.md}, section
	 * {@code executors}, says what each component holds.
	 */
	public record ExecutorDescriptor(String name, Executor.Kind kind, Executor.State state, Mood mood,
			ExecutorConfigDescriptor config, int colocations, String pinning, long forks, DeferredDescriptor deferred,
			List<ScratchStatistics> scratch) implements OperationResponseBody {

		static ExecutorDescriptor of(ExecutorStatistics statistics) {
			Long scratchLimit = statistics.scratch().isEmpty() ? null : statistics.scratch().get(0).limitBytes();
			String streams = (statistics.kind() != Executor.Kind.VRAM) ? null
					: statistics.borrowedStreams() ? "borrowed" : "own";
			ExecutorConfigDescriptor config = new ExecutorConfigDescriptor(statistics.threads(),
					statistics.memoryDomains(), statistics.cpuClass(), statistics.deferredLimit(), statistics.devices(),
					statistics.gpuClasses(), streams, scratchLimit);
			DeferredDescriptor deferred = new DeferredDescriptor(statistics.deferredInFlight(),
					statistics.deferredLimit(), statistics.deferredCompleted(), statistics.deferredFailed(),
					statistics.deferredCancelled(), statistics.deferredRejected());
			return new ExecutorDescriptor(statistics.name(), statistics.kind(), statistics.state(), statistics.mood(),
					config, statistics.colocations(), statistics.pinning(), statistics.forks(), deferred,
					statistics.scratch());
		}
	}

	/**
	 * The configuration an executor runs with: what was set, and what was derived from the machine
	 * where it was not.
	 *
	 * @param threads threads taking part in a fork, the caller included
	 * @param memoryDomains NUMA node ids the threads are spread over
	 * @param cpuClass the CPU class it dispatches as
	 * @param deferredLimit deferred calls tracked at once
	 * @param devices a VRAM executor's devices, as ordinals in {@link Uform#gpuDevices()}; empty for a
	 *        RAM executor
	 * @param gpuClasses the GPU class each device dispatches as, in {@code devices} order: the
	 *        configured {@code gpu-class}, else the device's own; empty for a RAM executor
	 * @param streams a VRAM executor's CUDA streams: {@code own}, or {@code borrowed} from its config;
	 *        left out for a RAM executor
	 * @param scratchLimitBytes a VRAM executor's ceiling on scratch per device; left out where scratch may
	 *        grow until the device is full, and for a RAM executor
	 */
	public record ExecutorConfigDescriptor(int threads, List<Integer> memoryDomains, String cpuClass,
			int deferredLimit, List<Integer> devices, List<String> gpuClasses, @Nullable String streams,
			@Nullable Long scratchLimitBytes) {
	}

	/**
	 * An executor's deferred calls. Every accepted call ends as exactly one of completed, failed or
	 * cancelled, so completed + failed + cancelled + in flight = accepted.
	 *
	 * @param inFlight queued or running now
	 * @param limit tracked at once; a {@code defer} beyond it waits for a slot
	 * @param completed returned normally
	 * @param failed threw
	 * @param cancelled accepted but never ran (cancelled before they started, or given up by a bounded
	 *        free)
	 * @param rejected submissions refused: no slot in time, interrupted while waiting, or after
	 *        {@code refuseDeferred} (a closing context) or free
	 */
	public record DeferredDescriptor(int inFlight, int limit, long completed, long failed, long cancelled,
			long rejected) {
	}

	/**
	 * The mesh: its bean name and state ({@link MeshLiveness.State}'s name in lower case), and
	 * {@link Mesh#describe()} while this process is part of it ({@code devices} as ordinals in
	 * {@link Uform#gpuDevices()}, {@code -1} for one no longer listed); only {@code bean}, {@code state}
	 * and {@code dead} once it was freed. {@code origins} (where each option the mesh was made from came
	 * from, by {@code MeshOptions} field) is left out for a mesh bean the starter did not make. The table
	 * of {@code docs/actuator.md}, section {@code mesh}, says what each component holds.
	 */
	public record MeshDescriptor(String bean, String state, @Nullable Integer hostDomainIndex,
			@Nullable Integer hostDomainCount, @Nullable Integer gpusPerHost, @Nullable Integer gpusPerMultimemDomain,
			@Nullable Integer multimemDomains, @Nullable String multimemTier, @Nullable String job,
			@Nullable List<Integer> devices, @Nullable List<String> peerHosts,
			@Nullable Map<String, String> origins, @Nullable DeadDescriptor dead) implements OperationResponseBody {

		static MeshDescriptor of(String bean, Mesh mesh, List<GpuDevice> listed, @Nullable Map<String, String> origins) {
			MeshLiveness liveness = mesh.liveness();
			DeadDescriptor dead = DeadDescriptor.of(liveness);
			MeshDescription description;
			try {
				description = mesh.describe();
			}
			catch (UformException ex) {
				if (ex.status() != UformException.Status.FREED) {
					throw ex;
				}
				return new MeshDescriptor(bean, state(liveness), null, null, null, null, null, null, null, null, null, null,
						dead);
			}
			List<Integer> ordinals = description.devices().stream().map(listed::indexOf).toList();
			return new MeshDescriptor(bean, state(liveness), description.hostDomainIndex(),
					description.hostDomainCount(), description.gpusPerHost(), description.gpusPerMultimemDomain(),
					description.multimemDomains(), description.multimemTier().label(), description.job(), ordinals,
					description.peerHosts(), origins, dead);
		}

		/**
		 * The state as the endpoint and the health name it: {@code joined}, {@code broken},
		 * {@code expelled} or {@code freed}.
		 * @param liveness the mesh's liveness
		 * @return the state's name in lower case
		 */
		public static String state(MeshLiveness liveness) {
			return liveness.state().name().toLowerCase(Locale.ROOT);
		}
	}

	/**
	 * The process whose death broke the mesh.
	 * @param index its index in the run
	 * @param host its host
	 * @param pid its pid
	 * @param reason why it counts as dead, and who found it
	 */
	public record DeadDescriptor(int index, String host, long pid, String reason) {

		static @Nullable DeadDescriptor of(MeshLiveness liveness) {
			if (liveness.deadIndex() == null || liveness.deadHost() == null || liveness.deadPid() == null
					|| liveness.reason() == null) {
				return null;
			}
			return new DeadDescriptor(liveness.deadIndex(), liveness.deadHost(), liveness.deadPid(), liveness.reason());
		}
	}
}
