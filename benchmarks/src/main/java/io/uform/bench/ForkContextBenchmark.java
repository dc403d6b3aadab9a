package io.uform.bench;

import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
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

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorHooks;
import io.uform.spring.autoconfigure.observation.ObservationExecutorHooks;

/**
 * The cost of an empty fork over two threads (the caller and one worker) with the Spring Boot
 * starter's fork context propagation off and on, side by side. {@code hooks}: {@code none} (an
 * executor made without hooks), {@code off} (the starter's hooks, {@code fork-context-propagation}
 * false: what every Boot application with Actuator gets), {@code on} (true, with a request's
 * observation current on the forking thread of a registry whose one handler does nothing: each fork
 * captures the thread-locals once and the worker restores and closes them around its part).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ForkContextBenchmark {

	/** Which hooks the executor is made with. */
	@Param({ "none", "off", "on" })
	public String hooks;

	private Executor executor;

	private Observation request;

	private Observation.Scope requestScope;

	private final long[] sink = new long[64];

	/** Makes the executor and, for every case alike, opens a request's observation on this thread. */
	@Setup(Level.Trial)
	public void setUp() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DeferredCallBenchmark.DoNothing());
		ObservationExecutorHooks starter = new ObservationExecutorHooks(registry, null, true);
		ExecutorHooks made = switch (this.hooks) {
			case "none" -> ExecutorHooks.NONE;
			case "off" -> starter.hooksFor("bench", false);
			case "on" -> starter.hooksFor("bench", true);
			default -> throw new IllegalArgumentException("hooks=" + this.hooks + ": none, off or on");
		};
		this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2), made);
		this.request = Observation.start("request", registry);
		this.requestScope = this.request.openScope();
	}

	/** Closes the observation and frees the executor. */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.requestScope.close();
		this.request.stop();
		this.executor.free();
	}

	/** One fork, each thread storing one long. */
	@Benchmark
	public void forThreads() {
		long[] into = this.sink;
		this.executor.forThreads((thread, colocation) -> into[thread * 16] = thread);
	}

	/** One static fork of two indices. */
	@Benchmark
	public void forN() {
		long[] into = this.sink;
		this.executor.forN(2, (index, thread, colocation) -> into[index * 16] = index);
	}
}
