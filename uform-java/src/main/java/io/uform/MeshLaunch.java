package io.uform;

/**
 * What a launcher's environment variables say about this process's place in a mesh, and which
 * variable said each value, so that a log or a report can name it. Made by
 * {@link MeshLauncher#read(java.util.Map)}; {@link #fill(MeshOptions)} puts it under a program's own
 * options.
 *
 * @param launcher the launcher whose variables were read; {@link MeshLauncher#NONE} where none was
 * @param hostDomainIndex this process's index, or {@code null} where the launcher does not say
 * @param indexVariable the variable the index comes from, or {@code null}
 * @param hostDomainCount processes in the run, or {@code null} where the launcher does not say
 * @param countVariable the variable the count comes from (or would, where it is not set), or {@code null}
 * @param job the run's name, or {@code null} where the launcher does not say
 * @param jobVariable the variable (or variables, comma-separated) the name comes from (or would), or {@code null}
 */
public record MeshLaunch(MeshLauncher launcher, Integer hostDomainIndex, String indexVariable,
		Integer hostDomainCount, String countVariable, String job, String jobVariable) {

	/**
	 * No launcher: nothing said.
	 * @return a launch of {@link MeshLauncher#NONE} with every value absent
	 */
	public static MeshLaunch none() {
		return new MeshLaunch(MeshLauncher.NONE, null, null, null, null, null, null);
	}

	/**
	 * The options with their absent index, count and job taken from the launcher: a value the options
	 * set always wins. Where the result is half set (an index without a count, a count without an
	 * index, a run with peers but no job name) and the launcher gave a part of it, it fails naming the
	 * variables and the fix, rather than letting the process wait alone.
	 * @param options the program's own options
	 * @return the options with the launcher's values filled in
	 * @throws UformException {@link UformException.Status#INVALID_ARGUMENT} where the result is half set
	 */
	public MeshOptions fill(MeshOptions options) {
		Integer index = (options.hostDomainIndex() != null) ? options.hostDomainIndex() : this.hostDomainIndex;
		Integer count = (options.hostDomainCount() != null) ? options.hostDomainCount() : this.hostDomainCount;
		String job = (options.job() != null) ? options.job() : this.job;
		boolean indexFromHere = options.hostDomainIndex() == null && this.hostDomainIndex != null;
		boolean countFromHere = options.hostDomainCount() == null && this.hostDomainCount != null;
		if (indexFromHere && count == null) {
			throw halfSet(this.indexVariable + " = " + index + " gives this process's index, and nothing gives the count: "
					+ countFix());
		}
		if (countFromHere && index == null) {
			throw halfSet(this.countVariable + " = " + count + " gives the count, and nothing gives this process's index: "
					+ "set " + this.indexVariable + " as the launcher does, or hostDomainIndex (uform.mesh.host-domain-index)");
		}
		if ((indexFromHere || countFromHere) && count > 1 && job == null) {
			throw halfSet((indexFromHere ? this.indexVariable + " = " + index : this.countVariable + " = " + count)
					+ " puts this process in a run of " + count + ", and nothing names the run: " + jobFix());
		}
		if ((indexFromHere || countFromHere) && index != null && count != null && (index < 0 || index >= count)) {
			String indexFrom = indexFromHere ? " (" + this.indexVariable + ")" : "";
			String countFrom = countFromHere ? " (" + this.countVariable + ")" : "";
			throw new UformException(UformException.Status.INVALID_ARGUMENT, "Mesh launcher: index " + index + indexFrom
					+ " is not in [0, " + count + ") for the count " + count + countFrom
					+ ": every process of the run must be given the same count and its own index");
		}
		return new MeshOptions(index, count, options.gpusPerMultimemDomain(), options.directory(), job,
				options.timeout(), options.livenessTimeout());
	}

	private String countFix() {
		if (this.launcher == MeshLauncher.KUBERNETES) {
			return "Kubernetes does not tell a pod its Job's completions. Set " + this.countVariable + " in the manifest "
					+ "to the Job's completions (value: \"4\"), or set hostDomainCount (uform.mesh.host-domain-count)";
		}
		return "set " + this.countVariable + " as the launcher does, or hostDomainCount (uform.mesh.host-domain-count)";
	}

	private String jobFix() {
		if (this.launcher == MeshLauncher.KUBERNETES) {
			return "Kubernetes gives a pod no variable with its Job's name. Map the pod's label into " + this.jobVariable
					+ " (valueFrom: fieldRef: fieldPath: metadata.labels['batch.kubernetes.io/job-name']), or set job "
					+ "(uform.mesh.job)";
		}
		return "the " + this.launcher.label() + " launcher gives no run name; set job (uform.mesh.job) to a name unique "
				+ "to the run, the same in every process";
	}

	private static UformException halfSet(String message) {
		return new UformException(UformException.Status.INVALID_ARGUMENT, "Mesh launcher variables half set: " + message);
	}
}
