package io.uform.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

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

import io.uform.ProngTask;
import io.uform.SliceTask;

/**
 * The time of one fork-join: {@code slicesPerThread * threads} slice bodies spread over
 * {@code threads} threads, and every implementation's caller returns only when all are done.
 *
 * <ul>
 * <li>{@code body=empty}: the slice does nothing, so the score is pure fork-join overhead (publish,
 * wake, run, report back).</li>
 * <li>{@code body=busy5us}: the slice burns about 5 us of CPU ({@link Work}, calibrated per JVM at
 * setup). The {@link #serial} score measures the real cost of all slices on one thread in the same
 * run, so the ideal parallel time is {@code serial / threads} and
 * {@code overhead = score / (serial / threads) - 1}; the target is under 10% with
 * {@code slicesPerThread=8} (enough work per fork that "ideal" is meaningful).</li>
 * </ul>
 *
 * <p>Pool sizes and why they are fair: see {@link Pools}. One benchmark thread drives the forks, as
 * a request thread would. No Blackhole is needed: every fork publishes through volatile writes the
 * JIT cannot drop, and busy slices store their result in {@link #sink}, a heap array padded so the
 * threads' stores do not share a cache line.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ForkJoinLatencyBenchmark {

	/** Longs between two slices' sink slots: 128 bytes, two cache lines (adjacent-line prefetch). */
	private static final int PAD = 16;

	/** Threads running work at once in every pool; the target machine's core count by default. */
	@Param({ "2" })
	public int threads;

	/** What one slice does: {@code empty}, or {@code busy5us} (about 5 us of CPU). */
	@Param({ "empty", "busy5us" })
	public String body;

	/** Slices per thread in one fork; 1 is the bare latency case, 8 makes the ideal comparison fair. */
	@Param({ "1", "8" })
	public int slicesPerThread;

	private Pools pools;

	private int slices;

	private long[] sink;

	private IntConsumer slice;

	private IntConsumer chunk;

	private SliceTask sliceTask;

	private ProngTask prongTask;

	private List<Callable<Void>> callables;

	/** Starts the pools, calibrates the busy body and prepares every implementation's task objects. */
	@Setup(Level.Trial)
	public void setUp() {
		this.pools = new Pools(this.threads);
		this.slices = this.threads * this.slicesPerThread;
		this.sink = new long[(this.slices + 1) * PAD];
		long[] out = this.sink;
		switch (this.body) {
			case "empty" -> this.slice = (s) -> {
			};
			case "busy5us" -> {
				long iterations = Work.calibrate(5_000);
				// Printed into JMH's output so the run records what "5 us" was on this machine.
				System.out.println("busy5us: " + iterations + " burn iterations per slice");
				this.slice = (s) -> out[(s + 1) * PAD] = Work.burn(iterations, s);
			}
			default -> throw new IllegalArgumentException("body must be empty or busy5us, was " + this.body);
		}
		// Task objects are made once here, as a caller that forks in a loop would keep them; what each
		// idiom must allocate per fork anyway (latches, RecursiveActions) stays in the measurement.
		IntConsumer one = this.slice;
		int count = this.slices;
		int parts = this.threads;
		this.chunk = (t) -> {
			for (int s = Work.sliceStart(t, count, parts), end = Work.sliceStart(t + 1, count, parts); s < end; s++) {
				one.accept(s);
			}
		};
		this.sliceTask = (first, length, thread, colocation) -> {
			for (int s = first; s < first + length; s++) {
				one.accept(s);
			}
		};
		this.prongTask = (index, thread, colocation) -> one.accept(index);
		IntConsumer byThread = this.chunk;
		this.callables = new ArrayList<>(parts);
		for (int t = 0; t < parts; t++) {
			int index = t;
			this.callables.add(() -> {
				byThread.accept(index);
				return null;
			});
		}
	}

	/** Stops every pool so the next trial's JVM state does not include this one's threads. */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.pools.close();
	}

	/** Every slice on the benchmark thread: the baseline for "ideal = serial / threads". */
	@Benchmark
	public void serial() {
		IntConsumer one = this.slice;
		for (int s = 0; s < this.slices; s++) {
			one.accept(s);
		}
	}

	/** uform {@code forSlices}: one call per thread with its static slice; the caller is thread 0. */
	@Benchmark
	public void uformForSlices() {
		this.pools.uform().forSlices(this.slices, this.sliceTask);
	}

	/** uform {@code forN}: one call per index, same static split as {@code forSlices}. */
	@Benchmark
	public void uformForN() {
		this.pools.uform().forN(this.slices, this.prongTask);
	}

	/** {@code ForkJoinPool.invokeAll} of one prepared Callable per thread, from the benchmark thread. */
	@Benchmark
	public void forkJoinInvokeAll() {
		this.pools.forkJoinInvokeAll(this.callables);
	}

	/** {@code pool.invoke} of a root that {@code ForkJoinTask.invokeAll}s one RecursiveAction per thread. */
	@Benchmark
	public void forkJoinRecursiveActions() {
		this.pools.forkJoinRecursiveActions(this.threads, this.chunk);
	}

	/** {@code IntStream.range(0, slices).parallel().forEach} on a ForkJoinPool of {@code threads}. */
	@Benchmark
	public void parallelStream() {
		this.pools.parallelStreamOnPool(this.slices, this.slice);
	}

	/** ThreadPoolExecutor of {@code threads} workers, one task per thread, caller waits on a latch. */
	@Benchmark
	public void threadPoolLatch() {
		Pools.latch(this.pools.threadPool(), this.threads, this.chunk);
	}

	/** As {@link #threadPoolLatch} but the caller runs chunk 0 itself: uform's shape on a plain pool. */
	@Benchmark
	public void threadPoolLatchCallerRuns() {
		Pools.latchCallerRuns(this.pools.threadPool(), this.threads, this.chunk);
	}

	/** Spring's ThreadPoolTaskExecutor of {@code threads} threads, one task per thread, caller waits on a latch. */
	@Benchmark
	public void springLatch() {
		Pools.latch(this.pools.spring(), this.threads, this.chunk);
	}
}
