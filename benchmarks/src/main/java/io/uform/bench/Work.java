package io.uform.bench;

/**
 * A fixed amount of CPU work that takes about a chosen time on one core, for the "busy" slice
 * bodies.
 *
 * <p>Why not spin until {@code System.nanoTime()} passes a deadline: a deadline spin finishes on
 * time even when its thread was descheduled halfway, so two such slices sharing one core both
 * "take" 5 us and an oversubscribed pool would look perfectly parallel. Burning a calibrated count
 * of dependent integer operations instead makes a slice cost CPU, not wall time: if two slices share a
 * core, the fork takes twice as long, as real work would. Why not {@code Thread.sleep}: it measures
 * the scheduler, not the pool, and cannot express 5 us.
 *
 * <p>The loop is a xorshift64 step: a serial dependency chain of shifts and xors that the JIT can
 * neither vectorise nor fold, and its result is returned so callers can store it where the JIT must
 * keep it. (Not a linear congruential step: JDK 25's C2 unrolls one and folds the multiply-adds of
 * consecutive iterations together, so calibration would hide that the two JDKs did different work.)
 */
public final class Work {

	private Work() {
	}

	/**
	 * Burns {@code iterations} dependent xorshift steps.
	 * @param iterations how many steps, from {@link #calibrate(long)}
	 * @param seed a value that differs between callers, so no two calls are provably equal
	 * @return the final state, to be stored or consumed so the loop is not eliminated
	 */
	public static long burn(long iterations, long seed) {
		// Xorshift needs a non-zero state; the odd constant keeps every seed, 0 included, away from 0.
		long state = seed ^ 0x9E3779B97F4A7C15L;
		for (long i = 0; i < iterations; i++) {
			state ^= state << 13;
			state ^= state >>> 7;
			state ^= state << 17;
		}
		return state;
	}

	/**
	 * Finds how many {@link #burn} iterations take {@code targetNanos} on the current core, after
	 * warming the loop up so it is measured JIT-compiled. Uses the fastest of several timed runs:
	 * slower runs are the ones another process or thread interfered with.
	 * @param targetNanos the time one burn should take, e.g. 5000 for 5 us
	 * @return iterations, at least 1
	 */
	public static long calibrate(long targetNanos) {
		long sink = 0;
		// About 0.1-0.2 s of warm-up in many calls, so C2 compiles burn() as a normal method, the way
		// the benchmarks call it, rather than only on-stack-replacing one long loop.
		for (int i = 0; i < 20_000; i++) {
			sink += burn(10_000, i);
		}
		final long probe = 2_000_000;
		long best = Long.MAX_VALUE;
		for (int run = 0; run < 9; run++) {
			long start = System.nanoTime();
			sink += burn(probe, run);
			long elapsed = System.nanoTime() - start;
			best = Math.min(best, elapsed);
		}
		if (sink == 42) {
			// Keeps sink alive; practically never true.
			System.out.print("");
		}
		double nanosPerIteration = (double) best / probe;
		return Math.max(1, Math.round(targetNanos / nanosPerIteration));
	}

	/**
	 * First index of thread {@code thread}'s static slice of {@code n} indices over {@code threads}
	 * threads; the same formula as uform's {@code forN}/{@code forSlices}, so every implementation
	 * splits the work identically.
	 * @param thread the thread index, {@code 0..threads} ({@code threads} gives {@code n})
	 * @param n how many indices
	 * @param threads how many threads share them
	 * @return the first index of the slice
	 */
	public static int sliceStart(int thread, int n, int threads) {
		return (int) ((long) thread * n / threads);
	}
}
