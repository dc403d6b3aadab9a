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

import io.uform.SliceTask;

/**
 * The distribution, not the mean, of one uform RAM-executor fork: {@code slicesPerThread * threads}
 * slices of about 5 us of CPU each ({@link Work}), run with {@code forSlices} so the caller is
 * thread 0 and each worker takes one contiguous share.
 *
 * <p>Why a separate benchmark: {@link ForkJoinLatencyBenchmark} reports averages, and an average
 * hides the rare slow fork. With two threads, a fork whose caller the scheduler has put on its
 * worker's CPU costs the two shares back to back plus both threads' spin budgets (about 3.5 times
 * the median), and it happens in under 1% of forks: invisible in a mean, the whole story at p99. JMH's
 * {@link Mode#SampleTime} times individual calls and prints p0.50, p0.90, p0.99, p0.999 and more,
 * so the tail can be compared with the median ({@code p99 / p50}; the target is at most 1.2).
 *
 * <p>{@link #serial} runs the same slices on the benchmark thread in the same run, so
 * {@code ideal = serial / threads} is read from the same JVM, calibration and machine state. Only
 * uform is timed: the other pools' tails are not the question ({@link Pools} still starts them, but
 * their threads stay parked and take no CPU from the fork).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ForkTailLatencyBenchmark {

	/** Longs between two slices' sink slots: 128 bytes, two cache lines (adjacent-line prefetch). */
	private static final int PAD = 16;

	/** Threads in the uform pool, the caller included; the target machine's core count by default. */
	@Param({ "2" })
	public int threads;

	/** Slices of about 5 us per thread in one fork: 2 makes an ideal fork about 10 us. */
	@Param({ "2" })
	public int slicesPerThread;

	/**
	 * {@link Work#burn} iterations per slice; 0 (the default) calibrates to 5 us at setup. A fixed
	 * count lets two jars or JDKs be compared with exactly the same work: on a loaded machine the
	 * calibration itself runs slow and picks a shorter slice (the JMH output prints the count used).
	 */
	@Param({ "0" })
	public long sliceIterations;

	private Pools pools;

	private int slices;

	private long[] sink;

	private long iterations;

	private SliceTask sliceTask;

	/** Starts the pools, calibrates the 5 us slice and prepares the slice task once. */
	@Setup(Level.Trial)
	public void setUp() {
		this.pools = new Pools(this.threads);
		this.slices = this.threads * this.slicesPerThread;
		this.sink = new long[(this.slices + 1) * PAD];
		this.iterations = (this.sliceIterations > 0) ? this.sliceIterations : Work.calibrate(5_000);
		// Printed into JMH's output so the run records what "5 us" was on this machine.
		System.out.println("busy5us: " + this.iterations + " burn iterations per slice");
		long[] out = this.sink;
		long burn = this.iterations;
		// Made once, as a caller that forks in a loop would keep it: nothing is allocated per fork.
		this.sliceTask = (first, length, thread, colocation) -> {
			for (int s = first; s < first + length; s++) {
				out[(s + 1) * PAD] = Work.burn(burn, s);
			}
		};
	}

	/** Stops every pool so the next trial's JVM state does not include this one's threads. */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.pools.close();
	}

	/** Every slice on the benchmark thread: the baseline for "ideal = serial / threads". */
	@Benchmark
	public void serial() {
		long[] out = this.sink;
		long burn = this.iterations;
		for (int s = 0; s < this.slices; s++) {
			out[(s + 1) * PAD] = Work.burn(burn, s);
		}
	}

	/** One uform {@code forSlices} fork; the caller runs share 0, the worker(s) the rest. */
	@Benchmark
	public void uformForSlices() {
		this.pools.uform().forSlices(this.slices, this.sliceTask);
	}
}
