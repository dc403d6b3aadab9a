package io.uform.bench;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Every pool a benchmark compares, all sized from one {@code threads} count, and the fork-join
 * idiom each one is normally driven with.
 *
 * <h2>Why these sizes are fair</h2>
 * {@code threads} is how many threads run the work at once, and it is the same for everybody:
 * <ul>
 * <li>uform: {@code threads} in total, the forking thread included as thread 0 (so
 * {@code threads - 1} workers). That is the engine's design: the caller works instead of
 * waiting.</li>
 * <li>ForkJoinPool, ThreadPoolExecutor, Spring's ThreadPoolTaskExecutor: {@code threads} workers,
 * and the forking thread blocks until they are done (a latch, {@code join}, {@code invokeAll}). So
 * they, too, have {@code threads} threads running work, plus a caller that sleeps.</li>
 * <li>The one exception, {@link #latchCallerRuns}, lets the caller run chunk 0 itself over a pool of
 * {@code threads} workers of which only {@code threads - 1} get work: the same shape as uform, to
 * show how much of uform's edge is "the caller takes part" rather than the engine.</li>
 * </ul>
 * Giving the JDK pools {@code threads - 1} workers instead would leave a core idle while the caller
 * sleeps; giving them {@code threads + 1} would oversubscribe the cores. On the 2-core target
 * machine {@code threads = 2}.
 *
 * <h2>Chunks</h2>
 * The latch-based and {@code invokeAll}-based idioms get one task per thread, each running a
 * contiguous chunk of the indices cut with {@link Work#sliceStart} (the split uform's static forks
 * use), because that is how one drives a fixed-size pool well: one queue operation per thread, not
 * per index. Parallel streams split the range themselves; that is their point.
 */
public final class Pools implements AutoCloseable {

	private final int threads;

	private final Executor uform;

	private final ForkJoinPool forkJoin;

	private final ThreadPoolExecutor threadPool;

	private final ThreadPoolTaskExecutor spring;

	/**
	 * Starts every pool and runs one fork on each so that every worker thread exists before timing.
	 * @param threads threads running work at once in every pool, at least 1
	 */
	public Pools(int threads) {
		if (threads < 1) {
			throw new IllegalArgumentException("threads must be at least 1, was " + threads);
		}
		this.threads = threads;
		this.uform = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(threads));
		this.forkJoin = new ForkJoinPool(threads);
		// Fixed size: core = max, unbounded queue, core threads started up front. This is the shape
		// Executors.newFixedThreadPool gives and what a fork-join over a pool needs.
		this.threadPool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				named("tpe-worker-"));
		this.threadPool.prestartAllCoreThreads();
		this.spring = new ThreadPoolTaskExecutor();
		this.spring.setCorePoolSize(threads);
		this.spring.setMaxPoolSize(threads);
		this.spring.setThreadNamePrefix("spring-worker-");
		this.spring.setDaemon(true);
		this.spring.initialize();
		this.spring.getThreadPoolExecutor().prestartAllCoreThreads();
		warmUp();
	}

	/**
	 * Threads running work at once in every pool.
	 * @return the count given to the constructor
	 */
	public int threads() {
		return this.threads;
	}

	/**
	 * The uform executor, {@code threads} threads with the caller.
	 * @return the executor
	 */
	public Executor uform() {
		return this.uform;
	}

	/**
	 * A ForkJoinPool of parallelism {@code threads}.
	 * @return the pool
	 */
	public ForkJoinPool forkJoin() {
		return this.forkJoin;
	}

	/**
	 * A fixed ThreadPoolExecutor of {@code threads} workers.
	 * @return the pool
	 */
	public ThreadPoolExecutor threadPool() {
		return this.threadPool;
	}

	/**
	 * Spring's ThreadPoolTaskExecutor with {@code threads} core and max threads.
	 * @return the executor
	 */
	public ThreadPoolTaskExecutor spring() {
		return this.spring;
	}

	/**
	 * {@code ForkJoinPool.invokeAll} of prepared callables from the (external) calling thread. The
	 * futures are checked afterwards because {@code invokeAll} itself never throws a task's failure.
	 * @param chunks one callable per chunk, reused across forks (invokeAll wraps them anew each time)
	 */
	public void forkJoinInvokeAll(List<Callable<Void>> chunks) {
		for (Future<Void> future : this.forkJoin.invokeAll(chunks)) {
			try {
				future.get();
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("a ForkJoinPool chunk failed", ex.getCause());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted", ex);
			}
		}
	}

	/**
	 * The classic ForkJoin shape: {@code pool.invoke} of a root task that makes one
	 * {@link RecursiveAction} per chunk and {@code ForkJoinTask.invokeAll}s them (it runs the first on
	 * its own worker and forks the rest). Tasks are single-use, so they are allocated per fork, as in
	 * any RecursiveAction code.
	 * @param chunks how many chunks
	 * @param chunk runs chunk {@code t}
	 */
	public void forkJoinRecursiveActions(int chunks, IntConsumer chunk) {
		this.forkJoin.invoke(new RecursiveAction() {
			@Override
			protected void compute() {
				RecursiveAction[] parts = new RecursiveAction[chunks];
				for (int t = 0; t < chunks; t++) {
					int index = t;
					parts[t] = new RecursiveAction() {
						@Override
						protected void compute() {
							chunk.accept(index);
						}
					};
				}
				ForkJoinTask.invokeAll(parts);
			}
		});
	}

	/**
	 * {@code IntStream.range(0, n).parallel().forEach(body)} inside this class's ForkJoinPool, so it
	 * runs on {@code threads} workers rather than on the common pool (a stream started from a pool's
	 * worker splits onto that pool). The caller blocks in {@code join}.
	 * @param n how many indices
	 * @param body runs one index
	 */
	public void parallelStreamOnPool(int n, IntConsumer body) {
		this.forkJoin.submit(() -> IntStream.range(0, n).parallel().forEach(body)).join();
	}

	/**
	 * The textbook fork-join over a plain executor: one task per chunk, each counting a fresh
	 * {@link CountDownLatch} down (also when it throws), and the caller waiting on the latch.
	 * @param executor the pool ({@link ThreadPoolExecutor} or Spring's executor)
	 * @param chunks how many chunks, each one task
	 * @param chunk runs chunk {@code t}
	 */
	public static void latch(java.util.concurrent.Executor executor, int chunks, IntConsumer chunk) {
		LatchFork fork = new LatchFork(chunks);
		for (int t = 0; t < chunks; t++) {
			int index = t;
			executor.execute(() -> fork.run(chunk, index));
		}
		fork.awaitAndRethrow();
	}

	/**
	 * Like {@link #latch} but the caller runs chunk 0 itself and only {@code chunks - 1} tasks go to
	 * the pool: uform's shape on a plain pool (see the class comment).
	 * @param executor the pool
	 * @param chunks how many chunks
	 * @param chunk runs chunk {@code t}
	 */
	public static void latchCallerRuns(java.util.concurrent.Executor executor, int chunks, IntConsumer chunk) {
		LatchFork fork = new LatchFork(chunks);
		for (int t = 1; t < chunks; t++) {
			int index = t;
			executor.execute(() -> fork.run(chunk, index));
		}
		fork.run(chunk, 0);
		fork.awaitAndRethrow();
	}

	/** Frees uform and shuts every JDK/Spring pool down, waiting for their threads. */
	@Override
	public void close() {
		this.uform.free();
		this.forkJoin.shutdown();
		this.threadPool.shutdown();
		this.spring.shutdown();
		try {
			this.forkJoin.awaitTermination(10, TimeUnit.SECONDS);
			this.threadPool.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void warmUp() {
		IntConsumer nothing = (t) -> {
		};
		for (int i = 0; i < 100; i++) {
			this.uform.forN(this.threads, nothing);
			forkJoinRecursiveActions(this.threads, nothing);
			parallelStreamOnPool(this.threads, nothing);
			latch(this.threadPool, this.threads, nothing);
			latch(this.spring, this.threads, nothing);
		}
	}

	/**
	 * Names threads, so {@link IdleCpu} and thread dumps can tell the pools apart.
	 * @param prefix the name's start
	 * @return a factory of daemon threads
	 */
	static ThreadFactory named(String prefix) {
		AtomicInteger sequence = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + sequence.incrementAndGet());
			// Daemon, so a benchmark that fails before tear-down still lets its JVM exit.
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * One fork's latch plus its first failure, so a throwing chunk surfaces in the caller instead of
	 * being lost in the pool (and the latch still reaches zero).
	 */
	static final class LatchFork extends CountDownLatch {

		private volatile Throwable failure;

		LatchFork(int count) {
			super(count);
		}

		void run(IntConsumer chunk, int index) {
			try {
				chunk.accept(index);
			}
			catch (Throwable ex) {
				this.failure = ex;
			}
			finally {
				countDown();
			}
		}

		void awaitAndRethrow() {
			try {
				await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted while waiting for a fork", ex);
			}
			Throwable thrown = this.failure;
			if (thrown != null) {
				throw new IllegalStateException("a chunk failed", thrown);
			}
		}
	}
}
