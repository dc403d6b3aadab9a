package io.uform.host;

/**
 * One NUMA node as this process sees it: its id and the CPUs of it this process may run on.
 *
 * @param id the node id, as in {@code /sys/devices/system/node/nodeN}
 * @param cpus the node's CPUs that this process may use (its affinity mask), ascending
 */
public record NumaDomain(int id, int[] cpus) {

	/**
	 * How many usable CPUs the node carries.
	 * @return the number of CPUs
	 */
	public int cpuCount() {
		return this.cpus.length;
	}

	@Override
	public String toString() {
		return "node" + this.id + "[" + CpuList.format(this.cpus) + "]";
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof NumaDomain domain && domain.id == this.id
				&& java.util.Arrays.equals(domain.cpus, this.cpus);
	}

	@Override
	public int hashCode() {
		return 31 * this.id + java.util.Arrays.hashCode(this.cpus);
	}
}
