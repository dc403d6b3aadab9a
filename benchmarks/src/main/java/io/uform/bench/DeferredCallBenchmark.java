package io.uform.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * The round trip of one deferred call as a request thread sees it: submit, let another thread run
 * it, wait for its future. The call itself does nothing, so the score is pure hand-off cost.
 *
 * <p>uform runs deferred calls one at a time on the executor's deferred thread and completes their
 * futures on a separate completion thread, so that a continuation can never stall or deadlock the
 * deferred thread: two hand-offs per call (submitter → deferred thread → completion thread →
 * submitter). The alternatives a Spring application would otherwise reach for hand off once: a
 * one-thread {@link ThreadPoolExecutor} ({@code submit().get()}, which is also what Spring's
 * {@code ThreadPoolTaskExecutor} does underneath) and {@link CompletableFuture#supplyAsync} on that
 * same pool (its future completes on the pool thread, continuations included).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DeferredCallBenchmark {

	private Executor uform;

	private ThreadPoolExecutor oneThread;

	/** Starts one executor and one single-thread pool, each warmed by a first call. */
	@Setup(Level.Trial)
	public void setUp() throws Exception {
		this.uform = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(64));
		this.oneThread = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		this.oneThread.prestartAllCoreThreads();
		this.uform.defer(() -> 0).get();
		this.oneThread.submit(() -> 0).get();
	}

	/** Frees the executor and stops the pool. */
	@TearDown(Level.Trial)
	public void tearDown() throws InterruptedException {
		this.uform.free();
		this.oneThread.shutdown();
		this.oneThread.awaitTermination(10, TimeUnit.SECONDS);
	}

	/**
	 * uform: {@code defer(call).get()}.
	 * @return the call's value
	 */
	@Benchmark
	public Integer uformDefer() throws InterruptedException, ExecutionException {
		return this.uform.defer(() -> 1).get();
	}

	/**
	 * A one-thread ThreadPoolExecutor: {@code submit(call).get()}.
	 * @return the call's value
	 */
	@Benchmark
	public Integer threadPoolSubmit() throws InterruptedException, ExecutionException {
		return this.oneThread.submit(() -> 1).get();
	}

	/**
	 * {@code CompletableFuture.supplyAsync(call, oneThread).get()}.
	 * @return the call's value
	 */
	@Benchmark
	public Integer completableFutureSupplyAsync() throws InterruptedException, ExecutionException {
		return CompletableFuture.supplyAsync(() -> 1, this.oneThread).get();
	}
}
