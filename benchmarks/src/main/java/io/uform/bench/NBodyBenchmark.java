package io.uform.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One step of a 128-body gravitational system per operation: phase 1 (accelerations, O(N^2)) and
 * phase 2 (velocities and positions), each a fork over the bodies with every implementation; see
 * {@link NBodySystem} and {@link NBodySteps}.
 *
 * <p>Before measuring, every trial checks that all implementations give results bit-identical to
 * the serial step ({@link NBodyCheck#verify}); a mismatch throws and fails the benchmark. The state
 * is reset to the seeded start at every iteration so each iteration times the same trajectory (the
 * cost per step does not depend on positions, but this keeps runs reproducible and the values far
 * from overflow). No Blackhole is needed: a step writes the system's arrays on the heap, which the
 * next step reads.
 *
 * <p>Parallel streams run twice: on the common pool (as most code writes them; {@code cores - 1}
 * workers plus the calling thread) and on a ForkJoinPool of {@code threads} workers. The target
 * "n-body at least 1.7x faster than the parallel-stream version" is judged against the faster of
 * the two, so the comparison does not depend on which one was picked.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class NBodyBenchmark {

	/** Steps the setup check runs with every implementation before measuring. */
	private static final int CHECK_STEPS = 50;

	/** Threads running work at once in every pool; the target machine's core count by default. */
	@Param({ "2" })
	public int threads;

	/** Bodies in the system. */
	@Param({ "128" })
	public int bodies;

	private Pools pools;

	private NBodySystem initial;

	private NBodySystem system;

	private NBodySteps steps;

	/** Starts the pools and fails the trial if any implementation's results differ from serial. */
	@Setup(Level.Trial)
	public void setUp() {
		this.pools = new Pools(this.threads);
		this.initial = NBodySystem.seeded(this.bodies, NBodyCheck.SEED);
		NBodyCheck.verify(this.pools, this.initial, CHECK_STEPS, false);
		this.system = this.initial.copy();
		this.steps = new NBodySteps(this.pools, this.system);
	}

	/** Puts the system back at its seeded start. */
	@Setup(Level.Iteration)
	public void resetState() {
		this.system.copyFrom(this.initial);
	}

	/** Stops the pools. */
	@TearDown(Level.Trial)
	public void tearDown() {
		if (!this.system.isFinite()) {
			throw new IllegalStateException("n-body state went non-finite during measurement");
		}
		this.pools.close();
	}

	/** Both phases on the benchmark thread. */
	@Benchmark
	public void serial() {
		this.steps.serial();
	}

	/** uform {@code forN} per phase. */
	@Benchmark
	public void uformForN() {
		this.steps.uformForN();
	}

	/** uform {@code forSlices} per phase. */
	@Benchmark
	public void uformForSlices() {
		this.steps.uformForSlices();
	}

	/** {@code IntStream.range(0, n).parallel().forEach} per phase, common pool. */
	@Benchmark
	public void parallelStreamCommonPool() {
		this.steps.parallelStreamCommonPool();
	}

	/** {@code IntStream.range(0, n).parallel().forEach} per phase, ForkJoinPool of {@code threads}. */
	@Benchmark
	public void parallelStreamOnPool() {
		this.steps.parallelStreamOnPool();
	}

	/** {@code ForkJoinPool.invokeAll} of one Callable per thread, per phase. */
	@Benchmark
	public void forkJoinInvokeAll() {
		this.steps.forkJoinInvokeAll();
	}

	/** RecursiveActions under {@code ForkJoinTask.invokeAll}, per phase. */
	@Benchmark
	public void forkJoinRecursiveActions() {
		this.steps.forkJoinRecursiveActions();
	}

	/** ThreadPoolExecutor + CountDownLatch, per phase. */
	@Benchmark
	public void threadPoolLatch() {
		this.steps.threadPoolLatch();
	}

	/** ThreadPoolExecutor + CountDownLatch with the caller running chunk 0, per phase. */
	@Benchmark
	public void threadPoolLatchCallerRuns() {
		this.steps.threadPoolLatchCallerRuns();
	}

	/** Spring ThreadPoolTaskExecutor + CountDownLatch, per phase. */
	@Benchmark
	public void springLatch() {
		this.steps.springLatch();
	}
}
