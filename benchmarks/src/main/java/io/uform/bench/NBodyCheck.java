package io.uform.bench;

/**
 * Checks that every n-body implementation gives bit-identical results to the serial step, and
 * fails loudly (an exception, exit status 1) if one does not.
 *
 * <p>Run it as {@code java -cp benchmarks/target/benchmarks.jar io.uform.bench.NBodyCheck
 * [threads] [bodies] [steps]} (defaults: the machine's cores, 128, 1000). {@link NBodyBenchmark}
 * runs the same check, with fewer steps, before it measures anything.
 */
public final class NBodyCheck {

	/** Seed of the initial state every benchmark and check uses. */
	public static final long SEED = 20240607L;

	private NBodyCheck() {
	}

	/**
	 * Runs the check from the command line.
	 * @param args optional threads, bodies, steps
	 */
	public static void main(String[] args) {
		int threads = (args.length > 0) ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
		int bodies = (args.length > 1) ? Integer.parseInt(args[1]) : 128;
		int steps = (args.length > 2) ? Integer.parseInt(args[2]) : 1000;
		try (Pools pools = new Pools(threads)) {
			verify(pools, NBodySystem.seeded(bodies, SEED), steps, true);
		}
		catch (IllegalStateException ex) {
			ex.printStackTrace();
			System.exit(1);
		}
		System.out.println("n-body check passed: " + NBodySteps.Implementation.values().length + " implementations, "
				+ threads + " threads, " + bodies + " bodies, " + steps + " steps, bit-identical to serial");
	}

	/**
	 * Steps a copy of {@code initial} {@code steps} times with every implementation and compares each
	 * result with the serial one, bit for bit.
	 * @param pools the pools to run on
	 * @param initial the starting state, left unchanged
	 * @param steps how many steps
	 * @param verbose whether to print a line per implementation
	 * @throws IllegalStateException naming the implementation, step count and first differing value
	 */
	public static void verify(Pools pools, NBodySystem initial, int steps, boolean verbose) {
		NBodySystem expected = initial.copy();
		for (int s = 0; s < steps; s++) {
			expected.stepSerial();
		}
		if (!expected.isFinite()) {
			throw new IllegalStateException("the serial n-body run went non-finite within " + steps
					+ " steps; the benchmark's parameters (DT, softening) need fixing");
		}
		for (NBodySteps.Implementation implementation : NBodySteps.Implementation.values()) {
			NBodySystem actual = initial.copy();
			NBodySteps runner = new NBodySteps(pools, actual);
			for (int s = 0; s < steps; s++) {
				implementation.step(runner);
			}
			String difference = actual.firstDifference(expected);
			if (difference != null) {
				throw new IllegalStateException("n-body " + implementation + " differs from serial after " + steps
						+ " steps with " + pools.threads() + " threads: " + difference);
			}
			if (verbose) {
				System.out.println("  " + implementation + ": identical to serial");
			}
		}
	}
}
