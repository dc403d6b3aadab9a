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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import io.uform.DeferredCallExecutor;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorHooks;
import io.uform.spring.autoconfigure.observation.ObservationExecutorHooks;

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
 *
 * <p>{@code uformViewSupplyAsync} is the same call through {@link DeferredCallExecutor}, the
 * {@code java.util.concurrent.Executor} view ({@code @Async} and {@code CompletableFuture} use it):
 * what the view adds to a deferred call.
 *
 * <p>{@code uformDeferHooked} is {@code uformDefer} on an executor made with the Spring Boot starter's
 * hooks ({@link ObservationExecutorHooks}), one per {@code hooks} value: {@code none} (no hooks, the
 * baseline in the same run), {@code registry} (an {@link ObservationRegistry} with no handler, as an
 * application with Actuator but nothing that consumes observations has), {@code context} (that
 * registry and context propagation: the submitting thread's thread-locals captured and restored),
 * and {@code observed} (a registry with one handler that does nothing, a current observation on the
 * submitting thread, and context propagation: the work a tracer would be handed, without the tracer's).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DeferredCallBenchmark {

	private Executor uform;

	private DeferredCallExecutor view;

	private ThreadPoolExecutor oneThread;

	/** Starts one executor and one single-thread pool, each warmed by a first call. */
	@Setup(Level.Trial)
	public void setUp() throws Exception {
		this.uform = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(64));
		this.oneThread = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		this.oneThread.prestartAllCoreThreads();
		this.view = DeferredCallExecutor.of(this.uform);
		this.uform.defer(() -> 0).get();
		CompletableFuture.supplyAsync(() -> 0, this.view).get();
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
	 * uform's {@link java.util.concurrent.Executor} view: {@code supplyAsync(call, view).get()}, a deferred
	 * call under {@code CompletableFuture}, side by side with {@link #uformDefer}.
	 * @return the call's value
	 */
	@Benchmark
	public Integer uformViewSupplyAsync() throws InterruptedException, ExecutionException {
		return CompletableFuture.supplyAsync(() -> 1, this.view).get();
	}

	/** An executor made with the starter's hooks, as {@code hooks} says; see the class comment. */
	@State(Scope.Benchmark)
	public static class Hooked {

		/** Which hooks the executor is made with. */
		@Param({ "none", "registry", "context", "observed" })
		public String hooks;

		Executor executor;

		Observation request;

		Observation.Scope requestScope;

		/** Makes the executor with the hooks, and for {@code observed} opens a request's observation. */
		@Setup(Level.Trial)
		public void setUp() throws Exception {
			ExecutorForRamConfig config = ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(64);
			ObservationRegistry registry = ObservationRegistry.create();
			ExecutorHooks made = switch (this.hooks) {
				case "none" -> ExecutorHooks.NONE;
				case "registry" -> new ObservationExecutorHooks(registry, null, false).hooksFor("bench", false);
				case "context" -> new ObservationExecutorHooks(registry, null, true).hooksFor("bench", false);
				case "observed" -> {
					registry.observationConfig().observationHandler(new DoNothing());
					yield new ObservationExecutorHooks(registry, null, true).hooksFor("bench", false);
				}
				default -> throw new IllegalArgumentException("hooks=" + this.hooks + ": none, registry, context or observed");
			};
			this.executor = Executor.forRam(config, made);
			if (this.hooks.equals("observed")) {
				this.request = Observation.start("request", registry);
				this.requestScope = this.request.openScope();
			}
			this.executor.defer(() -> 0).get();
		}

		/** Closes the request's observation and frees the executor. */
		@TearDown(Level.Trial)
		public void tearDown() {
			if (this.requestScope != null) {
				this.requestScope.close();
				this.request.stop();
			}
			this.executor.free();
		}
	}

	/** A handler that takes every observation and does nothing with it. */
	static final class DoNothing implements ObservationHandler<Observation.Context> {

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}
	}

	/**
	 * uform with the starter's hooks: {@code defer(call).get()}.
	 * @param state the executor, as {@code hooks} says
	 * @return the call's value
	 */
	@Benchmark
	public Integer uformDeferHooked(Hooked state) throws InterruptedException, ExecutionException {
		return state.executor.defer(() -> 1).get();
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
