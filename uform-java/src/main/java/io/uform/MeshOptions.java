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
 */
public record MeshOptions(Integer hostDomainIndex, Integer hostDomainCount, Integer gpusPerMultimemDomain,
		Path directory, String job, Duration timeout) {

	/** How long a wait for a peer lasts when {@link #timeout()} is absent (uform's 120 seconds). */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

	/**
	 * Options with every field absent: a mesh of one process, with no peers.
	 * @return the all-defaults options
	 */
	public static MeshOptions defaults() {
		return new MeshOptions(null, null, null, null, null, null);
	}
}
