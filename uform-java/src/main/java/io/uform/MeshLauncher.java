package io.uform;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The program that started the processes of a mesh, whose environment variables say where each
 * process sits: its index, the count and the run's name. {@link MeshOptions#withLauncher} reads
 * them into the options it does not set itself.
 *
 * <table>
 * <caption>What each launcher sets</caption>
 * <tr><th>launcher</th><th>index</th><th>count</th><th>job</th></tr>
 * <tr><td>{@link #SLURM}: {@code srun}</td><td>{@code SLURM_PROCID}</td><td>{@code SLURM_NTASKS}</td>
 * <td>{@code slurm-<SLURM_JOB_ID>.<SLURM_STEP_ID>}</td></tr>
 * <tr><td>{@link #KUBERNETES}: an Indexed Job</td><td>{@code JOB_COMPLETION_INDEX}</td>
 * <td>{@code UFORM_MESH_HOST_DOMAIN_COUNT}, which the manifest sets to the Job's {@code completions}
 * (Kubernetes does not tell a pod)</td><td>{@code UFORM_MESH_JOB}, which the manifest maps from the
 * pod's label {@code batch.kubernetes.io/job-name}</td></tr>
 * <tr><td>{@link #ENV}: torchrun, or an MPI launcher told to export them</td><td>{@code RANK}</td>
 * <td>{@code WORLD_SIZE}</td><td>none: set it</td></tr>
 * </table>
 * The directory is never taken from a launcher: it is where the run's hosts share a volume, which no
 * launcher knows.
 */
public enum MeshLauncher {

	/** The launcher whose variables are set ({@link #SLURM}, {@link #KUBERNETES}, then {@link #ENV}); none if none is. */
	AUTO,

	/** Slurm's {@code srun}: one task of a job step is one process of the mesh. */
	SLURM,

	/** A Kubernetes Indexed Job: one pod is one process of the mesh. */
	KUBERNETES,

	/** The generic {@code RANK} and {@code WORLD_SIZE} pair. */
	ENV,

	/** No launcher: every value comes from the options. */
	NONE;

	/**
	 * Reads what this launcher says about the process from an environment.
	 * @param environment the variables, as {@link System#getenv()} gives them
	 * @return where the process sits, as far as the launcher says; {@link MeshLaunch#none()} for
	 *         {@link #NONE}, and for {@link #AUTO} where no launcher's variables are set
	 * @throws UformException {@link UformException.Status#INVALID_ARGUMENT} where the launcher's variables
	 *         are half set or not numbers, where a chosen launcher's are not set at all, or where
	 *         {@link #AUTO} finds two launchers that disagree
	 */
	public MeshLaunch read(Map<String, String> environment) {
		Objects.requireNonNull(environment, "environment");
		return switch (this) {
			case NONE -> MeshLaunch.none();
			case SLURM, KUBERNETES, ENV -> {
				MeshLaunch launch = LauncherVariables.read(this, environment);
				if (launch == null) {
					throw new UformException(UformException.Status.INVALID_ARGUMENT, "The mesh launcher is "
							+ label() + ", and none of its variables (" + LauncherVariables.markers(this)
							+ ") is set in this process: start the processes with " + LauncherVariables.starter(this)
							+ ", or choose the launcher that starts them (auto finds it)");
				}
				yield launch;
			}
			case AUTO -> auto(environment);
		};
	}

	/**
	 * The name used in properties and messages: {@code slurm}, {@code kubernetes}, ...
	 * @return the lower-case name
	 */
	public String label() {
		return name().toLowerCase(Locale.ROOT);
	}

	private static MeshLaunch auto(Map<String, String> environment) {
		List<MeshLaunch> found = new ArrayList<>();
		for (MeshLauncher launcher : List.of(SLURM, KUBERNETES, ENV)) {
			MeshLaunch launch = LauncherVariables.read(launcher, environment);
			if (launch != null) {
				found.add(launch);
			}
		}
		if (found.isEmpty()) {
			return MeshLaunch.none();
		}
		MeshLaunch first = found.get(0);
		for (MeshLaunch other : found.subList(1, found.size())) {
			if (disagree(first.hostDomainIndex(), other.hostDomainIndex())
					|| disagree(first.hostDomainCount(), other.hostDomainCount())) {
				throw new UformException(UformException.Status.INVALID_ARGUMENT, "Two launchers set this process's "
						+ "place in the mesh, and they disagree: " + first.launcher().label() + " says index "
						+ first.hostDomainIndex() + " of " + first.hostDomainCount() + " (" + first.indexVariable() + ", "
						+ first.countVariable() + "), " + other.launcher().label() + " says index "
						+ other.hostDomainIndex() + " of " + other.hostDomainCount() + " (" + other.indexVariable()
						+ ", " + other.countVariable() + "). Choose the launcher whose processes are the mesh's "
						+ "(uform.mesh.launcher, or MeshOptions.withLauncher), or set the index and count");
			}
		}
		return first;
	}

	private static boolean disagree(Integer one, Integer other) {
		return one != null && other != null && !one.equals(other);
	}
}
