package io.uform;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;

import io.uform.UformException.Status;
import io.uform.gpu.NvlinkMulticast;
import io.uform.host.ExitHooks;
import io.uform.mesh.FileRendezvous;
import io.uform.mesh.MemberRecord;
import io.uform.mesh.MemberRecord.MemberDevice;

/**
 * One process's place among the processes of a multi-host run, made once and borrowed by every
 * trainer. Processes meet through {@code directory/job/}, a directory every host sees; the protocol
 * and its files are described in the package {@code io.uform.mesh}.
 *
 * <h2>Joining</h2>
 * {@link #bootstrap(Executor, MeshOptions)} returns once all {@code hostDomainCount} processes have
 * announced themselves and agree (same count, same {@code gpusPerMultimemDomain}, same protocol), or
 * fails in every process: {@link Status#TIMEOUT} naming the indices that never arrived,
 * {@link Status#INVALID_ARGUMENT} naming who disagrees on what, both processes that claim one index,
 * or the files an earlier run of the same job left behind (with the fix). A failing process leaves
 * no record of its own behind. With {@code hostDomainCount} absent or 1 the run has no peers: the
 * call returns at once and never touches a directory.
 *
 * <h2>Lifecycle and threads</h2>
 * The mesh borrows its VRAM executor: {@link Executor#free()} is refused while the mesh is live, so
 * free the mesh first (trainers borrowing the mesh go before it; this version has none).
 * {@link #describe()} answers from any thread until {@link #free()}, then reports
 * {@link Status#FREED}. {@code free} from several threads at once leaves once; the others wait for it
 * and return. A process that exits without {@code free} (returning from {@code main},
 * {@code System.exit}, a SIGTERM such as Kubernetes sends) leaves through a shutdown hook, and one
 * that exits while it still waits in {@code bootstrap} gives up for every process there (its peers
 * fail at once, naming it); one that is killed (SIGKILL, a crash, the OOM killer) leaves its record,
 * which the next run of the same job reports.
 */
public final class Mesh implements AutoCloseable {

	private final Executor executor;

	/** How the executor's refusal names this mesh: {@code job 'run-42'}. */
	private final String lent;

	private final MeshDescription description;

	/** {@code null} for a run with no peers. */
	private final FileRendezvous rendezvous;

	/** Time {@link #bootstrap} took, from its call to its return; set once, before the mesh is published. */
	private final Duration bootstrapDuration;

	/** Serialises {@link #free()}: one caller leaves, the others wait for it. */
	private final Object freeing = new Object();

	/** Set first thing in {@link #free()}, so {@link #describe()} refuses from then on; written under {@link #freeing}. */
	private volatile boolean freed;

	/** Meshes with peers not yet freed, which the shutdown hook leaves (see the class comment). */
	private static final Set<Mesh> LIVE = ConcurrentHashMap.newKeySet();

	private Mesh(Executor executor, String lent, MeshDescription description, FileRendezvous rendezvous,
			long startNanos) {
		this.executor = executor;
		this.lent = lent;
		this.description = description;
		this.rendezvous = rendezvous;
		this.bootstrapDuration = Duration.ofNanos(System.nanoTime() - startNanos);
	}

	/**
	 * Joins this process to the run's mesh, once every process has joined.
	 * @param executor a VRAM executor whose devices are this process's members of the mesh
	 * @param options where this process sits and how the processes meet
	 * @return the mesh; free it before the executor
	 * @throws UformException {@link Status#INVALID_ARGUMENT} naming a bad option, a RAM executor, a
	 *         disagreement between processes, two processes with one index, or files left by an earlier
	 *         run; {@link Status#TIMEOUT} naming the indices that did not join in time;
	 *         {@link Status#FREED} for a freed executor; {@link Status#INTERRUPTED} when interrupted
	 *         while waiting (every process then gives up)
	 */
	public static Mesh bootstrap(Executor executor, MeshOptions options) {
		return bootstrap(executor, options, SystemMulticast.PROBE);
	}

	/**
	 * Joins a run with no peers on the given executor: {@link MeshOptions#defaults()}.
	 * @param executor a VRAM executor
	 * @return the mesh of this process alone
	 */
	public static Mesh bootstrap(Executor executor) {
		return bootstrap(executor, MeshOptions.defaults());
	}

	/**
	 * {@link #bootstrap(Executor, MeshOptions)} asking a given probe whether a device reduces in the
	 * NVLink switch, for tests.
	 * @param multicast gets each device and its backend ordinal
	 */
	static Mesh bootstrap(Executor executor, MeshOptions options, BiPredicate<GpuDevice, Integer> multicast) {
		long start = System.nanoTime();
		UformException.requireArgument(executor, "executor", "pass the VRAM executor whose devices join the mesh");
		UformException.requireArgument(options, "options", "pass MeshOptions.defaults() for a mesh of one process");
		Settings settings = Settings.of(options);
		if (executor.isFreed()) {
			throw new UformException(Status.FREED, "Executor '" + executor.name() + "' was freed; make a new VRAM "
					+ "executor (Executor.forVram()) and bootstrap the mesh on it");
		}
		if (executor.kind() != Executor.Kind.VRAM) {
			throw new UformException(Status.INVALID_ARGUMENT, "Executor '" + executor.name() + "' is a "
					+ executor.kind() + " executor, and a mesh joins the GPUs of a VRAM executor: make one with "
					+ "Executor.forVram() (on a machine without GPUs, opt in to simulated devices with "
					+ "-Duform.devices.simulated=1)");
		}
		List<GpuDevice> devices = executor.devices();
		List<Integer> ordinals = executor.runtimeOrdinals();
		List<MemberDevice> announced = new ArrayList<>();
		for (int i = 0; i < devices.size(); i++) {
			GpuDevice device = devices.get(i);
			announced.add(new MemberDevice(device.vendor().name(), device.name(), device.uuid(), device.gpuClass(),
					device.memoryBytes(), multicast.test(device, ordinals.get(i))));
		}
		int gpus = (settings.gpusPerMultimemDomain != null) ? settings.gpusPerMultimemDomain : devices.size();
		String lent = (settings.job != null) ? "job '" + settings.job + "'" : "a run with no peers";
		executor.lendToMesh(lent);
		try {
			if (!settings.peers()) {
				List<Boolean> flags = multicastFlags(announced);
				MeshDescription alone = new MeshDescription(0, 1, devices.size(), gpus, domains(devices.size(), gpus),
						tier(List.of(flags), 0, gpus), settings.job, devices, List.of(FileRendezvous.hostName()));
				return new Mesh(executor, lent, alone, null, start);
			}
			MemberRecord self = FileRendezvous.announce(settings.job, settings.index, settings.count, gpus,
					settings.gpusPerMultimemDomain == null, settings.timeout, announced);
			FileRendezvous rendezvous = FileRendezvous.join(settings.directory, self);
			List<List<Boolean>> flags = new ArrayList<>();
			List<String> hosts = new ArrayList<>();
			int total = 0;
			for (MemberRecord member : rendezvous.members()) {
				flags.add(multicastFlags(member.devices()));
				hosts.add(member.host());
				total += member.devices().size();
			}
			MeshDescription joined = new MeshDescription(settings.index, settings.count, devices.size(), gpus,
					domains(total, gpus), tier(flags, settings.index, gpus), settings.job, devices, hosts);
			Mesh mesh = new Mesh(executor, lent, joined, rendezvous, start);
			leaveAtExit(mesh);
			return mesh;
		}
		catch (RuntimeException | Error ex) {
			executor.returnFromMesh(lent);
			throw ex;
		}
	}

	/**
	 * How many multicast domains {@code total} GPUs form, {@code perDomain} to a domain (the last one
	 * holds the rest).
	 */
	static int domains(int total, int perDomain) {
		return Math.max(1, (int) ((total + (long) perDomain - 1) / perDomain));
	}

	/**
	 * The tier of the domains holding one process's GPUs: switch-reduced only when every GPU of
	 * those domains (on any host) reports multicast support.
	 * @param multicast each process's devices' answers, by index
	 * @param index the process
	 * @param perDomain GPUs to a domain
	 */
	static MultimemTier tier(List<List<Boolean>> multicast, int index, int perDomain) {
		List<Boolean> all = new ArrayList<>();
		int first = 0;
		for (int member = 0; member < multicast.size(); member++) {
			if (member == index) {
				first = all.size();
			}
			all.addAll(multicast.get(member));
		}
		int mine = multicast.get(index).size();
		if (mine == 0) {
			return MultimemTier.PEER_READ;
		}
		int from = (first / perDomain) * perDomain;
		long to = Math.min(all.size(), ((first + mine - 1) / perDomain + 1L) * perDomain);
		for (int gpu = from; gpu < to; gpu++) {
			if (!all.get(gpu)) {
				return MultimemTier.PEER_READ;
			}
		}
		return MultimemTier.SWITCH_REDUCED;
	}

	/**
	 * Reports the mesh's shape and this process's place in it.
	 * @return the description
	 * @throws UformException {@link Status#FREED} after {@link #free()}
	 */
	public MeshDescription describe() {
		if (this.freed) {
			throw new UformException(Status.FREED, "The mesh of " + this.lent + " was freed; bootstrap a new one "
					+ "(Mesh.bootstrap) to describe it");
		}
		return this.description;
	}

	/**
	 * How long {@link #bootstrap} took to return this mesh: checking the options, announcing this
	 * process, waiting for every other process to join and agree, and reading their records. For a
	 * run with no peers, the checks and the devices' multicast probes alone. With peers it is mostly
	 * the wait for the last process to arrive, so it says more about when the processes started than
	 * about the file system; the process that arrived last measures the rendezvous itself. Answers
	 * after {@link #free()} too: it is a fact about the join, which does not change.
	 * @return the time spent in {@code bootstrap}, at least zero
	 */
	public Duration bootstrapDuration() {
		return this.bootstrapDuration;
	}

	/**
	 * Leaves the mesh: removes this process's record, and the last process out removes the job's
	 * directory; then the executor can be freed. Every trainer borrowing the mesh must be freed first.
	 * A second call does nothing; a call from another thread at the same time waits for the first.
	 * It does not wait for the peers, and files it cannot remove are logged, never thrown.
	 */
	public void free() {
		synchronized (this.freeing) {
			if (this.freed) {
				return;
			}
			this.freed = true;
			LIVE.remove(this);
			try {
				if (this.rendezvous != null) {
					this.rendezvous.leave();
				}
			}
			finally {
				this.executor.returnFromMesh(this.lent);
			}
		}
	}

	/**
	 * Registers a joined mesh with the shutdown hook, installing the hook the first time. A JVM that
	 * exits normally then leaves the run instead of leaving its record for the next run to report as
	 * stale; the peers that are still running are not waited for.
	 */
	private static void leaveAtExit(Mesh mesh) {
		LIVE.add(mesh);
		ExitHooks.once("uform-mesh-exit", LeaveAtExit.HOOK);
	}

	/**
	 * Whether each device reduces in the NVLink switch, in the devices' order. A loop, as the rest of
	 * the bootstrap's code is plain classes rather than lambdas and streams: a JVM links a lambda's call
	 * site when it first runs, which the last process to arrive pays on the critical path of the join.
	 */
	private static List<Boolean> multicastFlags(List<MemberDevice> devices) {
		List<Boolean> flags = new ArrayList<>(devices.size());
		for (MemberDevice device : devices) {
			flags.add(device.multicast());
		}
		return Collections.unmodifiableList(flags);
	}

	/** Asks this machine's driver ({@link NvlinkMulticast#system()}); a class, see {@link #multicastFlags}. */
	private static final class SystemMulticast implements BiPredicate<GpuDevice, Integer> {

		static final BiPredicate<GpuDevice, Integer> PROBE = new SystemMulticast();

		@Override
		public boolean test(GpuDevice device, Integer ordinal) {
			// Only NVIDIA devices reduce in the switch; the others need no probe, nor the runtime's facts.
			return device.vendor() == GpuVendor.NVIDIA && NvlinkMulticast.system().supported(Gpus.facts(device), ordinal);
		}
	}

	/** Frees every live mesh at JVM exit ({@link #leaveAtExit}); a class, see {@link #multicastFlags}. */
	private static final class LeaveAtExit implements Runnable {

		static final Runnable HOOK = new LeaveAtExit();

		@Override
		public void run() {
			for (Mesh live : LIVE) {
				live.free();
			}
		}
	}

	/** Same as {@link #free()}, for try-with-resources. */
	@Override
	public void close() {
		free();
	}

	@Override
	public String toString() {
		MeshDescription shape = this.description;
		return "Mesh[" + this.lent + ", index " + shape.hostDomainIndex() + " of " + shape.hostDomainCount() + ", "
				+ shape.gpusPerHost() + " GPU(s) here, " + shape.multimemDomains() + " multimem domain(s), "
				+ shape.multimemTier().label() + ((this.freed) ? ", freed" : "") + "]";
	}

	/** The options, checked, with their derived values. */
	private static final class Settings {

		final int index;

		final int count;

		final Integer gpusPerMultimemDomain;

		final Path directory;

		final String job;

		final Duration timeout;

		private Settings(int index, int count, Integer gpusPerMultimemDomain, Path directory, String job,
				Duration timeout) {
			this.index = index;
			this.count = count;
			this.gpusPerMultimemDomain = gpusPerMultimemDomain;
			this.directory = directory;
			this.job = job;
			this.timeout = timeout;
		}

		boolean peers() {
			return this.count > 1;
		}

		static Settings of(MeshOptions options) {
			Integer count = options.hostDomainCount();
			if (count != null && count < 1) {
				throw UformException.invalid("hostDomainCount", count, "must be at least 1 (the processes of the run, "
						+ "one per host), or absent for a run with no peers");
			}
			int processes = (count == null) ? 1 : count;
			Integer index = options.hostDomainIndex();
			if (index != null && (index < 0 || index >= processes)) {
				throw UformException.invalid("hostDomainIndex", index, (count == null)
						? "must be 0 or absent when hostDomainCount is absent (a run with no peers); set hostDomainCount "
								+ "to the number of processes in the run"
						: "must be in [0, " + processes + ") for hostDomainCount = " + processes + ", one index per "
								+ "process (in Kubernetes, from JOB_COMPLETION_INDEX)");
			}
			Integer gpus = options.gpusPerMultimemDomain();
			if (gpus != null && gpus < 1) {
				throw UformException.invalid("gpusPerMultimemDomain", gpus, "must be at least 1 (the GPUs one NVLink "
						+ "multicast domain spans), or absent to derive this host's GPU count");
			}
			Duration timeout = options.timeout();
			if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
				throw UformException.invalid("timeout", timeout, "must be positive, e.g. Duration.ofSeconds(120), or absent "
						+ "for MeshOptions.DEFAULT_TIMEOUT (" + MeshOptions.DEFAULT_TIMEOUT.toSeconds() + " s)");
			}
			String job = options.job();
			if (job != null) {
				String problem = FileRendezvous.jobNameProblem(job, options.directory());
				if (problem != null) {
					throw UformException.invalid("job", job, "it " + problem + "; a job names one directory inside "
							+ "directory: use letters, digits, '-', '_' and '.', e.g. run-42");
				}
			}
			Path directory = options.directory();
			if (processes > 1) {
				if (directory == null) {
					throw UformException.invalid("directory", null, "a run with peers (hostDomainCount = " + processes
							+ ") meets in a directory every host sees; set it, e.g. /shared/uform");
				}
				if (job == null) {
					throw UformException.invalid("job", null, "a run with peers (hostDomainCount = " + processes + ") "
							+ "needs a name unique to the run, naming its directory inside " + directory + ", e.g. run-42");
				}
				if (!Files.isDirectory(directory)) {
					throw UformException.invalid("directory", directory, Files.exists(directory)
							? "is not a directory; name the directory every host sees"
							: "does not exist; create it, or mount the directory every host shares there (a directory "
									+ "missing on one host would leave its process waiting alone)");
				}
			}
			return new Settings((index == null) ? 0 : index, processes, gpus, directory, job,
					(timeout == null) ? MeshOptions.DEFAULT_TIMEOUT : timeout);
		}
	}
}
