package io.uform;

/**
 * What an executor's threads (or streams) do once they go idle, chosen with
 * {@link Executor#drain(Mood)}.
 *
 * <p>The trade is wake-up latency against CPU: a parked thread costs nothing but needs the kernel
 * to wake it (tens of microseconds); a grinding thread burns its core but sees the next fork within
 * nanoseconds.
 */
public enum Mood {
	/**
	 * Threads sleep in the kernel and use no CPU until the next fork. After each fork they still spin
	 * for a short while first, so back-to-back forks stay fast.
	 */
	PARKED,
	/** Threads spin on their cores, for the lowest wake-up latency, until drained to {@link #PARKED}. */
	GRINDING
}
