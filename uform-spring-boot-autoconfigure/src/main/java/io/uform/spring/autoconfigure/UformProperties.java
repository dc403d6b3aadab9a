package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import io.uform.MeshLauncher;
import io.uform.UformException;
import io.uform.spring.autoconfigure.models.UformModelProperties;

/**
 * The {@code uform.*} properties: how the application's executors are made. Every field is optional;
 * an absent one is derived from the machine when the executor is made, as in uform itself.
 *
 * <p>What can be checked without the machine fails while Boot binds, so that the report names the
 * property, its value as written, where it was set and the reason: a setter refuses a value that is
 * wrong on its own ({@code threads: 0}, a negative period); this class, a {@link Validator} Boot
 * applies as it binds (no Bean Validation needed), refuses mesh properties that are wrong together. What
 * depends on the machine (a device or NUMA node that does not exist) fails when the executor is made.
 */
@ConfigurationProperties("uform")
public class UformProperties implements Validator {

	private final Ram ram = new Ram();

	private final Vram vram = new Vram();

	private final Mesh mesh = new Mesh();

	private final Shutdown shutdown = new Shutdown();

	/**
	 * Text embedding models served on the executors, by name: each becomes a '<name>EmbeddingModel'
	 * bean, and a Spring AI or langchain4j EmbeddingModel bean where those are on the class path. Needs
	 * io.uform:uform-onnxruntime on the class path.
	 */
	private final Map<String, UformModelProperties> models = new LinkedHashMap<>();

	/**
	 * The RAM executor's properties, {@code uform.ram.*}.
	 * @return the RAM executor's properties
	 */
	public Ram getRam() {
		return this.ram;
	}

	/**
	 * The VRAM executor's properties, {@code uform.vram.*}.
	 * @return the VRAM executor's properties
	 */
	public Vram getVram() {
		return this.vram;
	}

	/**
	 * The mesh's properties, {@code uform.mesh.*}.
	 * @return the mesh's properties
	 */
	public Mesh getMesh() {
		return this.mesh;
	}

	/**
	 * How executors are freed when the context closes, {@code uform.shutdown.*}.
	 * @return the shutdown properties
	 */
	public Shutdown getShutdown() {
		return this.shutdown;
	}

	/**
	 * The models' properties, {@code uform.models.<name>.*}.
	 * @return the models by name
	 */
	public Map<String, UformModelProperties> getModels() {
		return this.models;
	}

	@Override
	public boolean supports(Class<?> type) {
		return Mesh.class == type;
	}

	@Override
	public void validate(Object target, Errors errors) {
		((Mesh) target).validate(errors);
	}

	private static @Nullable Integer atLeastOne(@Nullable Integer value, String what) {
		if (value != null && value < 1) {
			throw new IllegalArgumentException("must be at least 1 " + what);
		}
		return value;
	}

	/**
	 * Refuses text holding control or format characters: a report prints a value as it is (Boot's
	 * too), and a terminal escape sequence in a job name would run on the console it is printed to.
	 */
	private static @Nullable String printable(@Nullable String value) {
		if (value != null && !UformException.printable(value).equals(value)) {
			throw new IllegalArgumentException("holds control or format characters (shown escaped); write it "
					+ "without them");
		}
		return value;
	}

	/** When to make the VRAM executor: {@code auto}, {@code true} or {@code false}. */
	public enum VramEnabled {

		/** Only where this process sees a GPU. */
		AUTO,

		/** Always: startup fails without a GPU, saying what discovery found. */
		TRUE,

		/** Never. */
		FALSE
	}

	/**
	 * What every executor has on the host, RAM and VRAM alike: where its threads run, the CPU class
	 * they dispatch as, and how many deferred calls it tracks.
	 */
	public abstract static class Host {

		/**
		 * NUMA node ids the executor's host threads run on. Unset takes every node for the RAM
		 * executor, the nodes nearest the devices for the VRAM executor.
		 */
		private @Nullable List<Integer> memoryDomains;

		/**
		 * CPU class the host threads dispatch as, like 'intel-haswell'. Unset takes the CPU's best
		 * class.
		 */
		private @Nullable String cpuClass;

		/**
		 * Deferred calls tracked at once (queued plus running), at least 1. Unset takes 64.
		 */
		private @Nullable Integer deferredLimit;

		/**
		 * Whether each fork restores the forking thread's context (trace, MDC, security) on the
		 * executor's threads around their part of the fork, so that fork bodies log with the
		 * request's trace id. Needs io.micrometer:context-propagation on the class path.
		 */
		private boolean forkContextPropagation;

		/**
		 * Whether to register a java.util.concurrent view of the executor as an AsyncTaskExecutor bean
		 * that @Async("<executor bean name>") and CompletableFuture run on: tasks run as deferred calls,
		 * in order, one at a time, each free to fork on every thread. Not a default candidate, so plain
		 * @Async stays on Spring Boot's applicationTaskExecutor.
		 */
		private boolean asyncExecutor;

		/**
		 * Longest wait of a task handed to the async executor for a deferred-call slot, after which it
		 * is rejected (TaskRejectedException); 0 rejects at once. Unset waits as long as it takes.
		 */
		private @Nullable Duration asyncExecutorMaxWait;

		public @Nullable List<Integer> getMemoryDomains() {
			return this.memoryDomains;
		}

		public void setMemoryDomains(@Nullable List<Integer> memoryDomains) {
			this.memoryDomains = memoryDomains;
		}

		public @Nullable String getCpuClass() {
			return this.cpuClass;
		}

		public void setCpuClass(@Nullable String cpuClass) {
			this.cpuClass = printable(cpuClass);
		}

		public @Nullable Integer getDeferredLimit() {
			return this.deferredLimit;
		}

		public void setDeferredLimit(@Nullable Integer deferredLimit) {
			this.deferredLimit = atLeastOne(deferredLimit, "deferred call in flight; remove it for 64");
		}

		public boolean isForkContextPropagation() {
			return this.forkContextPropagation;
		}

		public void setForkContextPropagation(boolean forkContextPropagation) {
			this.forkContextPropagation = forkContextPropagation;
		}

		public boolean isAsyncExecutor() {
			return this.asyncExecutor;
		}

		public void setAsyncExecutor(boolean asyncExecutor) {
			this.asyncExecutor = asyncExecutor;
		}

		public @Nullable Duration getAsyncExecutorMaxWait() {
			return this.asyncExecutorMaxWait;
		}

		public void setAsyncExecutorMaxWait(@Nullable Duration asyncExecutorMaxWait) {
			if (asyncExecutorMaxWait != null && asyncExecutorMaxWait.isNegative()) {
				throw new IllegalArgumentException("must be 0 (reject at once) or positive; remove it to wait as long as "
						+ "it takes");
			}
			this.asyncExecutorMaxWait = asyncExecutorMaxWait;
		}
	}

	/**
	 * Properties of the RAM executor (host threads), mapped onto {@code io.uform.ExecutorForRamConfig}.
	 */
	public static class Ram extends Host {

		/**
		 * Whether to make the RAM executor bean.
		 */
		private boolean enabled = true;

		/**
		 * Threads taking part in a fork, its caller included, at least 1. Unset takes 7/8 of the cores
		 * the memory domains carry (all of them below 8 cores).
		 */
		private @Nullable Integer threads;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Integer getThreads() {
			return this.threads;
		}

		public void setThreads(@Nullable Integer threads) {
			this.threads = atLeastOne(threads,
					"(it counts the thread that calls a fork); remove it to take 7/8 of the cores");
		}
	}

	/**
	 * Properties of the VRAM executor (GPU streams and scratch, and its host threads), mapped onto
	 * {@code io.uform.ExecutorForVramConfig}.
	 */
	public static class Vram extends Host {

		/**
		 * Whether to make the VRAM executor bean: 'auto' only where this process sees a GPU, 'true'
		 * always (startup fails without one), 'false' never.
		 */
		private VramEnabled enabled = VramEnabled.AUTO;

		/**
		 * Device ordinals, positions in Uform.gpuDevices(). Unset takes one device no other VRAM
		 * executor of the process holds.
		 */
		private @Nullable List<Integer> devices;

		/**
		 * GPU class every device dispatches as, like 'nvidia-hopper'. Unset takes each device's own.
		 */
		private @Nullable String gpuClass;

		/**
		 * Ceiling on activation scratch per device, at least 1B and at most the device's memory. Unset
		 * lets scratch grow until the device is full.
		 */
		private @Nullable DataSize scratchLimit;

		public VramEnabled getEnabled() {
			return this.enabled;
		}

		public void setEnabled(VramEnabled enabled) {
			this.enabled = enabled;
		}

		public @Nullable List<Integer> getDevices() {
			return this.devices;
		}

		public void setDevices(@Nullable List<Integer> devices) {
			this.devices = devices;
		}

		public @Nullable String getGpuClass() {
			return this.gpuClass;
		}

		public void setGpuClass(@Nullable String gpuClass) {
			this.gpuClass = printable(gpuClass);
		}

		public @Nullable DataSize getScratchLimit() {
			return this.scratchLimit;
		}

		public void setScratchLimit(@Nullable DataSize scratchLimit) {
			if (scratchLimit != null && scratchLimit.toBytes() < 1) {
				throw new IllegalArgumentException(
						"must be at least 1B; remove it to let scratch grow until the device is full");
			}
			this.scratchLimit = scratchLimit;
		}
	}

	/**
	 * Properties of the mesh (the processes of one multi-host run meeting through a shared directory),
	 * mapped onto {@code io.uform.MeshOptions}. The mesh is made when {@code host-domain-count} is set,
	 * or when {@code directory} is set and the launcher gives the count, and joins the GPUs of the VRAM
	 * executor.
	 */
	public static class Mesh {

		/**
		 * Launcher whose environment variables give this process's index, the count and the job where
		 * those properties are unset: auto (the one whose variables are set), slurm (SLURM_PROCID,
		 * SLURM_NTASKS, SLURM_JOB_ID and SLURM_STEP_ID), kubernetes (an Indexed Job's
		 * JOB_COMPLETION_INDEX), env (RANK and WORLD_SIZE) or none. The directory always comes from
		 * 'directory'.
		 */
		private MeshLauncher launcher = MeshLauncher.AUTO;

		/**
		 * This process's index among host-domain-count, from 0 to host-domain-count - 1. Unset takes the
		 * launcher's (such as SLURM_PROCID or JOB_COMPLETION_INDEX), else 0.
		 */
		private @Nullable Integer hostDomainIndex;

		/**
		 * Processes in the run, one per host, at least 1. Setting it makes the uformMesh bean; 1 is a run
		 * with no peers. Unset takes the launcher's (such as SLURM_NTASKS), which makes the mesh together
		 * with 'directory'.
		 */
		private @Nullable Integer hostDomainCount;

		/**
		 * GPUs one NVLink multicast domain spans, at least 1. Unset takes this host's GPU count.
		 */
		private @Nullable Integer gpusPerMultimemDomain;

		/**
		 * Directory every host of the run sees (a shared volume), where the processes meet. Required
		 * when host-domain-count is above 1.
		 */
		private @Nullable String directory;

		/**
		 * Name unique to the run, naming its directory inside 'directory': letters, digits, '-', '_'
		 * and '.'. Required when host-domain-count is above 1.
		 */
		private @Nullable String job;

		/**
		 * Longest wait for the other processes to join before startup fails, naming the ones missing;
		 * positive. A number without a unit is seconds, as MeshOptions counts it. Unset takes 120s.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration timeout;

		/**
		 * How long a process's proof of life (a heartbeat in the mesh directory, refreshed every tenth of
		 * it, at most every second) may stand still before the others count it dead: the join fails, a
		 * joined mesh breaks. At least 100ms. A number without a unit is seconds. Unset takes 10s.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private @Nullable Duration livenessTimeout;

		/**
		 * Whether to close the application context when the mesh breaks (a process of the run died, or
		 * this one was expelled). Off: the uform health goes DOWN and a UformMeshBrokenEvent is published,
		 * and the application decides (a service may still answer what needs no mesh).
		 */
		private boolean closeContextWhenBroken;

		public MeshLauncher getLauncher() {
			return this.launcher;
		}

		public void setLauncher(MeshLauncher launcher) {
			this.launcher = launcher;
		}

		public @Nullable Integer getHostDomainIndex() {
			return this.hostDomainIndex;
		}

		public void setHostDomainIndex(@Nullable Integer hostDomainIndex) {
			if (hostDomainIndex != null && hostDomainIndex < 0) {
				throw new IllegalArgumentException("must be 0 or more, one index per process");
			}
			this.hostDomainIndex = hostDomainIndex;
		}

		public @Nullable Integer getHostDomainCount() {
			return this.hostDomainCount;
		}

		public void setHostDomainCount(@Nullable Integer hostDomainCount) {
			this.hostDomainCount = atLeastOne(hostDomainCount, "(the processes of the run, one per host); 1 is a run "
					+ "with no peers");
		}

		public @Nullable Integer getGpusPerMultimemDomain() {
			return this.gpusPerMultimemDomain;
		}

		public void setGpusPerMultimemDomain(@Nullable Integer gpusPerMultimemDomain) {
			this.gpusPerMultimemDomain = atLeastOne(gpusPerMultimemDomain, "(the GPUs one NVLink multicast domain "
					+ "spans); remove it for this host's GPU count");
		}

		public @Nullable String getDirectory() {
			return this.directory;
		}

		public void setDirectory(@Nullable String directory) {
			this.directory = printable(directory);
		}

		public @Nullable String getJob() {
			return this.job;
		}

		public void setJob(@Nullable String job) {
			this.job = printable(job);
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
				throw new IllegalArgumentException("must be positive, e.g. 120s, or unset for the default (120s)");
			}
			this.timeout = timeout;
		}

		public @Nullable Duration getLivenessTimeout() {
			return this.livenessTimeout;
		}

		public void setLivenessTimeout(@Nullable Duration livenessTimeout) {
			if (livenessTimeout != null && livenessTimeout.toMillis() < 100) {
				throw new IllegalArgumentException("must be at least 100ms (a process proves its life ten times in it), "
						+ "e.g. 10s, or unset for the default (10s)");
			}
			this.livenessTimeout = livenessTimeout;
		}

		public boolean isCloseContextWhenBroken() {
			return this.closeContextWhenBroken;
		}

		public void setCloseContextWhenBroken(boolean closeContextWhenBroken) {
			this.closeContextWhenBroken = closeContextWhenBroken;
		}

		/** What the mesh's properties must hold together, whatever the machine. */
		private void validate(Errors errors) {
			if (this.hostDomainCount == null) {
				// No mesh is made.
				return;
			}
			int count = this.hostDomainCount;
			if (this.hostDomainIndex != null && this.hostDomainIndex >= count) {
				errors.rejectValue("hostDomainIndex", "range", "must be from 0 to host-domain-count - 1 ("
						+ (count - 1) + " here), one index per process (in a Kubernetes Indexed Job, "
						+ "${JOB_COMPLETION_INDEX})");
			}
			String peers = "a run with peers (uform.mesh.host-domain-count = " + count + ") ";
			if (count > 1 && !StringUtils.hasText(this.directory)) {
				errors.rejectValue("directory", "required", ((this.directory == null) ? "not set: " : "blank: ")
						+ peers + "meets in a directory every host sees; set it, e.g. /shared/uform");
			}
			if (count > 1 && this.job == null) {
				errors.rejectValue("job", "required", "not set: " + peers + "needs a name unique to the run, naming "
						+ "its directory inside uform.mesh.directory, e.g. run-42");
			}
		}
	}

	/**
	 * How executors are freed when the application context closes, named and meant as Spring Boot's
	 * {@code spring.task.execution.shutdown.*}: whether to wait for work already submitted, and for
	 * how long at most, so that a call that never returns cannot hold up the close.
	 */
	public static class Shutdown {

		/**
		 * Whether to wait for the deferred calls already submitted (queued ones run, the running one
		 * finishes) when the context closes. When false, queued calls are dropped (their futures
		 * complete with FREED) and the executor is freed at once.
		 */
		private boolean awaitTermination = true;

		/**
		 * Longest wait for submitted work when the context closes, zero or more. A call still
		 * running after it is reported by name in a WARN log and the executor is freed anyway.
		 */
		private Duration awaitTerminationPeriod = Duration.ofSeconds(30);

		public boolean isAwaitTermination() {
			return this.awaitTermination;
		}

		public void setAwaitTermination(boolean awaitTermination) {
			this.awaitTermination = awaitTermination;
		}

		public Duration getAwaitTerminationPeriod() {
			return this.awaitTerminationPeriod;
		}

		public void setAwaitTerminationPeriod(Duration awaitTerminationPeriod) {
			if (awaitTerminationPeriod != null && awaitTerminationPeriod.isNegative()) {
				throw new IllegalArgumentException("must be zero (free at once) or positive");
			}
			this.awaitTerminationPeriod = awaitTerminationPeriod;
		}
	}
}
