package io.uform.bench;

import java.util.concurrent.ExecutionException;
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
import org.openjdk.jmh.annotations.Threads;

import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.support.TaskExecutorAdapter;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.uform.DeferredCallExecutor;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Many request threads, each handing one compute task to an {@code AsyncTaskExecutor} and waiting for
 * it, as {@code @Async} callers do: uform's view of an executor (the starter's
 * {@code uformRamAsyncExecutor}: a {@link DeferredCallExecutor} behind Spring's
 * {@link TaskExecutorAdapter}), whose tasks run one at a time and each fork across the executor's
 * {@code threads}, against Spring's {@link ThreadPoolTaskExecutor} with as many threads, which runs
 * the same task serially on each of them, several tasks side by side. 32 submitters; the task sums
 * {@code n} values with a {@link Work#burn} step each, so its cost grows with {@code n}.
 *
 * <p>Run in {@link Mode#SampleTime}: the score is each task's latency as its submitter sees it;
 * throughput is the submitters over the mean latency (a closed loop), so the same run gives both.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(32)
public class AsyncViewBenchmark {

	/** Values each task sums. */
	@Param({ "2000", "20000" })
	public int n;

	/** Threads of the uform executor and of Spring's pool alike: the machine's cores. */
	@Param({ "2" })
	public int threads;

	private Executor executor;

	private AsyncTaskExecutor view;

	private ThreadPoolTaskExecutor pool;

	/** Starts the executor and its view, and the pool, each warmed by a first task. */
	@Setup(Level.Trial)
	public void setUp() throws Exception {
		this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(this.threads).withDeferredLimit(64));
		this.view = new TaskExecutorAdapter(DeferredCallExecutor.of(this.executor));
		this.pool = new ThreadPoolTaskExecutor();
		this.pool.setCorePoolSize(this.threads);
		this.pool.setMaxPoolSize(this.threads);
		this.pool.setThreadNamePrefix("task-");
		this.pool.initialize();
		this.view.submit(this::forked).get();
		this.pool.submit(this::serial).get();
	}

	/** Stops the pool and frees the executor. */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.pool.shutdown();
		this.executor.free();
	}

	/**
	 * The task on uform's view: one task at a time, forking across every thread.
	 * @return the sum
	 */
	@Benchmark
	public long uformView() throws InterruptedException, ExecutionException {
		return this.view.submit(this::forked).get();
	}

	/**
	 * The task on Spring's pool: run serially on one pool thread, tasks side by side.
	 * @return the sum
	 */
	@Benchmark
	public long springPool() throws InterruptedException, ExecutionException {
		return this.pool.submit(this::serial).get();
	}

	private long forked() {
		long[] partial = new long[this.executor.threads()];
		this.executor.forSlices(this.n, (first, count, thread, colocation) -> partial[thread] = sum(first, count));
		long total = 0;
		for (long part : partial) {
			total += part;
		}
		return total;
	}

	private long serial() {
		return sum(0, this.n);
	}

	private static long sum(int first, int count) {
		long total = 0;
		for (int i = first; i < first + count; i++) {
			total += Work.burn(64, i);
		}
		return total;
	}
}
