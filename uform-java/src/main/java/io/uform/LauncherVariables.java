package io.uform;

import java.util.Map;

/**
 * Reads one launcher's environment variables into a {@link MeshLaunch}: which variables mean that
 * the launcher started this process, which give each value, and which combinations are half set.
 */
final class LauncherVariables {

	static final String SLURM_PROCID = "SLURM_PROCID";

	static final String SLURM_NTASKS = "SLURM_NTASKS";

	static final String SLURM_JOB_ID = "SLURM_JOB_ID";

	static final String SLURM_STEP_ID = "SLURM_STEP_ID";

	static final String JOB_COMPLETION_INDEX = "JOB_COMPLETION_INDEX";

	/** Not set by Kubernetes: the manifest copies the Job's completions into it. */
	static final String KUBERNETES_COUNT = "UFORM_MESH_HOST_DOMAIN_COUNT";

	/** Not set by Kubernetes: the manifest maps the pod's job-name label into it. */
	static final String KUBERNETES_JOB = "UFORM_MESH_JOB";

	static final String RANK = "RANK";

	static final String WORLD_SIZE = "WORLD_SIZE";

	private LauncherVariables() {
	}

	/** What the launcher says, or {@code null} where none of the variables that mark it is set. */
	static MeshLaunch read(MeshLauncher launcher, Map<String, String> environment) {
		return switch (launcher) {
			case SLURM -> slurm(environment);
			case KUBERNETES -> kubernetes(environment);
			case ENV -> env(environment);
			default -> throw new IllegalArgumentException(launcher.name());
		};
	}

	/** The variables whose presence means that the launcher started this process. */
	static String markers(MeshLauncher launcher) {
		return switch (launcher) {
			case SLURM -> SLURM_PROCID + ", " + SLURM_STEP_ID;
			case KUBERNETES -> JOB_COMPLETION_INDEX;
			case ENV -> RANK + ", " + WORLD_SIZE;
			default -> "none";
		};
	}

	/** How the launcher's processes are started, for messages. */
	static String starter(MeshLauncher launcher) {
		return switch (launcher) {
			case SLURM -> "srun (one task per host: --ntasks-per-node=1)";
			case KUBERNETES -> "an Indexed Job (completionMode: Indexed)";
			case ENV -> "a launcher that exports RANK and WORLD_SIZE (torchrun; mpirun told to export them)";
			default -> "a launcher";
		};
	}

	private static MeshLaunch slurm(Map<String, String> environment) {
		String procId = environment.get(SLURM_PROCID);
		String stepId = environment.get(SLURM_STEP_ID);
		if (procId == null && stepId == null) {
			return null;
		}
		// sbatch's batch script has SLURM_PROCID=0 and the job's SLURM_NTASKS but no step: a JVM started
		// there directly is not one of the tasks, and would wait for peers that never come.
		if (stepId == null) {
			throw halfSet("SLURM_PROCID = " + procId + " is set, and SLURM_STEP_ID is not: this process runs in a batch "
					+ "script (sbatch), not in a task of a job step. Start it with srun inside the script "
					+ "(srun --ntasks-per-node=1 java ...), one task per process of the mesh");
		}
		require(environment, SLURM_PROCID, SLURM_STEP_ID, "srun sets both in every task");
		require(environment, SLURM_NTASKS, SLURM_PROCID, "srun sets both in every task");
		require(environment, SLURM_JOB_ID, SLURM_STEP_ID, "srun sets both in every task");
		return new MeshLaunch(MeshLauncher.SLURM, number(environment, SLURM_PROCID), SLURM_PROCID,
				number(environment, SLURM_NTASKS), SLURM_NTASKS,
				"slurm-" + environment.get(SLURM_JOB_ID) + "." + stepId, SLURM_JOB_ID + ", " + SLURM_STEP_ID);
	}

	private static MeshLaunch kubernetes(Map<String, String> environment) {
		if (environment.get(JOB_COMPLETION_INDEX) == null) {
			return null;
		}
		// The count and the job name are the manifest's own (Kubernetes gives a pod neither); each may
		// also be set in the options, so their absence here is reported only where nothing sets them.
		String job = environment.get(KUBERNETES_JOB);
		return new MeshLaunch(MeshLauncher.KUBERNETES, number(environment, JOB_COMPLETION_INDEX), JOB_COMPLETION_INDEX,
				environment.containsKey(KUBERNETES_COUNT) ? number(environment, KUBERNETES_COUNT) : null,
				KUBERNETES_COUNT, (job == null || job.isBlank()) ? null : job, KUBERNETES_JOB);
	}

	private static MeshLaunch env(Map<String, String> environment) {
		if (environment.get(RANK) == null && environment.get(WORLD_SIZE) == null) {
			return null;
		}
		require(environment, RANK, WORLD_SIZE, "a launcher sets both");
		require(environment, WORLD_SIZE, RANK, "a launcher sets both");
		return new MeshLaunch(MeshLauncher.ENV, number(environment, RANK), RANK, number(environment, WORLD_SIZE),
				WORLD_SIZE, null, null);
	}

	private static void require(Map<String, String> environment, String name, String because, String why) {
		if (environment.get(name) == null) {
			throw halfSet(because + " = " + environment.get(because) + " is set, and " + name + " is not (" + why
					+ "): this process's environment was changed or copied from another. Start the process with the "
					+ "launcher itself, or set both (or neither)");
		}
	}

	private static Integer number(Map<String, String> environment, String name) {
		String value = environment.get(name);
		try {
			return Integer.valueOf(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new UformException(UformException.Status.INVALID_ARGUMENT,
					"Mesh launcher variable " + name + " = '" + UformException.printable(value)
							+ "' is not a whole number; it must hold this process's place in the run as the launcher "
							+ "sets it (a number from 0)");
		}
	}

	private static UformException halfSet(String message) {
		return new UformException(UformException.Status.INVALID_ARGUMENT, "Mesh launcher variables half set: " + message);
	}
}
