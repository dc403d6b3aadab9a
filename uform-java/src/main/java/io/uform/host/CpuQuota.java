package io.uform.host;

/**
 * A cgroup CPU bandwidth limit: this process may use {@code quotaMicros} of CPU time every
 * {@code periodMicros}, on as many CPUs as it likes. HotSpot turns it into a CPU count by rounding
 * up ({@code ceil(quota / period)}), and so does uform, so that the threads an executor derives
 * agree with {@link Runtime#availableProcessors()}.
 *
 * @param quotaMicros CPU time allowed per period, in microseconds
 * @param periodMicros the period, in microseconds
 * @param source the file the limit was read from, for descriptions
 */
public record CpuQuota(long quotaMicros, long periodMicros, String source) {

	/**
	 * Checks the limit is one: both numbers positive.
	 * @param quotaMicros CPU time allowed per period
	 * @param periodMicros the period
	 * @param source where it was read
	 */
	public CpuQuota {
		if (quotaMicros <= 0 || periodMicros <= 0) {
			throw new IllegalArgumentException("quota " + quotaMicros + " / period " + periodMicros + " from " + source
					+ " is not a limit");
		}
	}

	/**
	 * The CPUs the limit is worth, rounded up as HotSpot does.
	 * @return at least 1
	 */
	public int cpus() {
		long cpus = (this.quotaMicros + this.periodMicros - 1) / this.periodMicros;
		return (int) Math.max(1, Math.min(Integer.MAX_VALUE, cpus));
	}

	@Override
	public String toString() {
		return "cgroup CPU quota " + this.quotaMicros + "/" + this.periodMicros + " us = " + cpus() + " CPU(s) ("
				+ this.source + ")";
	}
}
