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

	/**
	 * How many usable CPUs some nodes carry together. A loop, not a stream: every executor asks, the first
	 * one on the thread that makes it, where a cold JVM pays for linking a lambda.
	 * @param domains the nodes
	 * @return the sum of their {@link #cpuCount()}s
	 */
	public static int cpuCount(java.util.List<NumaDomain> domains) {
		int cpus = 0;
		for (NumaDomain domain : domains) {
			cpus += domain.cpuCount();
		}
		return cpus;
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
