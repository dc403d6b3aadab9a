package io.uform;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where this process sits among the processes training one model, and how they meet: through
 * {@code directory/job/}, a directory every host sees. Passed to
 * {@link Mesh#bootstrap(Executor, MeshOptions)}.
 *
 * <p>Mirrors {@code uform_mesh_options_t}; every field is optional ({@code null} = absent).
 *
 * @param hostDomainIndex this process's index among {@code hostDomainCount}; absent derives 0
 * @param hostDomainCount processes in the run, one per host; absent derives one, a run with no peers
 * @param gpusPerMultimemDomain GPUs one NVLink multicast domain spans; absent derives the host
 * @param directory the directory every host sees; required with peers
 * @param job the run's unique name, naming one directory inside {@code directory}; required with peers
 * @param timeout how long any wait for a peer lasts before the call fails; absent derives
 *        {@link #DEFAULT_TIMEOUT}
 * @param livenessTimeout how long a process's proof of life may stand still before the others count it
 *        dead (the join fails, a joined mesh breaks); absent derives {@link #DEFAULT_LIVENESS_TIMEOUT}.
 *        Java's addition to the seed's options, set with {@link #withLivenessTimeout}
 */
public record MeshOptions(Integer hostDomainIndex, Integer hostDomainCount, Integer gpusPerMultimemDomain,
		Path directory, String job, Duration timeout, Duration livenessTimeout) {

	/** How long a wait for a peer lasts when {@link #timeout()} is absent (uform's 120 seconds). */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

	/**
	 * How long a process's proof of life may stand still when {@link #livenessTimeout()} is absent: ten
	 * seconds, ten refreshes of one second (see {@code docs/mesh.md}, <em>Liveness</em>).
	 */
	public static final Duration DEFAULT_LIVENESS_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * The seed's options, with the liveness timeout absent.
	 * @param hostDomainIndex this process's index among {@code hostDomainCount}; absent derives 0
	 * @param hostDomainCount processes in the run, one per host; absent derives one
	 * @param gpusPerMultimemDomain GPUs one NVLink multicast domain spans; absent derives the host
	 * @param directory the directory every host sees; required with peers
	 * @param job the run's unique name; required with peers
	 * @param timeout how long any wait for a peer lasts; absent derives {@link #DEFAULT_TIMEOUT}
	 */
	public MeshOptions(Integer hostDomainIndex, Integer hostDomainCount, Integer gpusPerMultimemDomain, Path directory,
			String job, Duration timeout) {
		this(hostDomainIndex, hostDomainCount, gpusPerMultimemDomain, directory, job, timeout, null);
	}

	/**
	 * Options with every field absent: a mesh of one process, with no peers.
	 * @return the all-defaults options
	 */
	public static MeshOptions defaults() {
		return new MeshOptions(null, null, null, null, null, null);
	}

	/**
	 * Options from the launcher that started this process ({@link MeshLauncher#AUTO}: Slurm's
	 * {@code srun}, a Kubernetes Indexed Job, or {@code RANK}/{@code WORLD_SIZE}), read from this
	 * process's environment; the directory is never among them: add it with {@link #withDirectory}.
	 * With no launcher's variables set, every field is absent (a mesh of one process).
	 * @return the options the launcher gives
	 * @throws UformException {@link UformException.Status#INVALID_ARGUMENT} where the launcher's variables
	 *         are half set or disagree
	 */
	public static MeshOptions fromLauncher() {
		return defaults().withLauncher(MeshLauncher.AUTO);
	}

	/**
	 * These options with their absent index, count and job read from a launcher's variables in this
	 * process's environment. A field set here always wins over the launcher.
	 * @param launcher which launcher's variables to read; {@link MeshLauncher#AUTO} finds it
	 * @return the options with the launcher's values filled in
	 * @throws UformException {@link UformException.Status#INVALID_ARGUMENT} where the launcher's variables
	 *         are half set or disagree, or a chosen launcher's are not set at all
	 * @see MeshLauncher#read(java.util.Map)
	 * @see MeshLaunch#fill(MeshOptions)
	 */
	public MeshOptions withLauncher(MeshLauncher launcher) {
		return launcher.read(System.getenv()).fill(this);
	}

	/**
	 * These options with another index.
	 * @param hostDomainIndex this process's index among {@code hostDomainCount}, or {@code null}
	 * @return the changed copy
	 */
	public MeshOptions withHostDomainIndex(Integer hostDomainIndex) {
		return new MeshOptions(hostDomainIndex, this.hostDomainCount, this.gpusPerMultimemDomain, this.directory,
				this.job, this.timeout, this.livenessTimeout);
	}

	/**
	 * These options with another count.
	 * @param hostDomainCount processes in the run, or {@code null}
	 * @return the changed copy
	 */
	public MeshOptions withHostDomainCount(Integer hostDomainCount) {
		return new MeshOptions(this.hostDomainIndex, hostDomainCount, this.gpusPerMultimemDomain, this.directory,
				this.job, this.timeout, this.livenessTimeout);
	}

	/**
	 * These options with another multicast domain size.
	 * @param gpusPerMultimemDomain GPUs one NVLink multicast domain spans, or {@code null}
	 * @return the changed copy
	 */
	public MeshOptions withGpusPerMultimemDomain(Integer gpusPerMultimemDomain) {
		return new MeshOptions(this.hostDomainIndex, this.hostDomainCount, gpusPerMultimemDomain, this.directory,
				this.job, this.timeout, this.livenessTimeout);
	}

	/**
	 * These options with another directory.
	 * @param directory the directory every host sees, or {@code null}
	 * @return the changed copy
	 */
	public MeshOptions withDirectory(Path directory) {
		return new MeshOptions(this.hostDomainIndex, this.hostDomainCount, this.gpusPerMultimemDomain, directory,
				this.job, this.timeout, this.livenessTimeout);
	}

	/**
	 * These options with another job.
	 * @param job the run's unique name, or {@code null}
	 * @return the changed copy
	 */
	public MeshOptions withJob(String job) {
		return new MeshOptions(this.hostDomainIndex, this.hostDomainCount, this.gpusPerMultimemDomain, this.directory,
				job, this.timeout, this.livenessTimeout);
	}

	/**
	 * These options with another timeout.
	 * @param timeout how long any wait for a peer lasts, or {@code null}
	 * @return the changed copy
	 */
	public MeshOptions withTimeout(Duration timeout) {
		return new MeshOptions(this.hostDomainIndex, this.hostDomainCount, this.gpusPerMultimemDomain, this.directory,
				this.job, timeout, this.livenessTimeout);
	}

	/**
	 * These options with another liveness timeout.
	 * @param livenessTimeout how long a process's proof of life may stand still before the others count
	 *        it dead, or {@code null}
	 * @return the changed copy
	 */
	public MeshOptions withLivenessTimeout(Duration livenessTimeout) {
		return new MeshOptions(this.hostDomainIndex, this.hostDomainCount, this.gpusPerMultimemDomain, this.directory,
				this.job, this.timeout, livenessTimeout);
	}
}
