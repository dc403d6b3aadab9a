package io.uform.spring.autoconfigure.metrics;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.ScratchStatistics;

/**
 * Binds one uform {@link Executor}'s statistics to a registry, as Micrometer's
 * {@code ExecutorServiceMetrics} binds a {@code ThreadPoolExecutor}: the same meter names where they
 * mean the same thing, so dashboards built for JVM executors show uform executors too, and
 * {@code uform.executor.*} and {@code uform.scratch.*} for what only uform has. The tables of
 * {@code docs/actuator.md} (Metrics) list every meter, its unit and what it counts.
 *
 * <h2>Micrometer's names, and what they count here</h2>
 * Tagged {@code name} only (the executor's bean name), exactly as Boot tags its own task executors:
 * Prometheus registries before Micrometer 1.17 drop a meter whose name is already registered with a
 * different set of tag keys, so an extra tag here would hide either these series or
 * {@code applicationTaskExecutor}'s. What a uform executor queues and runs asynchronously is its
 * deferred calls ({@link Executor#defer}); forks run on the calling thread and return when done.
 * {@code executor.completed} counts calls that threw too, as
 * {@code ThreadPoolExecutor.getCompletedTaskCount()} counts tasks that threw; a uform pool has a fixed
 * size, so the three {@code executor.pool.*} gauges are equal.
 *
 * <p>uform's own meters are tagged {@code name} and {@code kind} ({@code ram} or {@code vram}); a
 * VRAM executor's scratch meters {@code name} and {@code device} (the ordinal in
 * {@code Uform.gpuDevices()}), {@code uform.scratch.limit} only where a {@code scratchLimit} is set.
 *
 * <h2>Lifetime</h2>
 * Every meter holds the executor through Micrometer's default weak reference and reads it through a
 * function that captures nothing else of it, so the registry never keeps an executor alive: once
 * the executor is collected its gauges read {@code NaN}. A freed executor still answers
 * {@link Executor#statistics()}, so until then its meters read its last values (nothing in flight,
 * counters where they stopped). Each read takes a fresh {@code statistics()} snapshot; nothing here
 * runs on the fork or deferred-call path.
 */
public final class UformExecutorMetrics implements MeterBinder {

	private final Executor executor;

	private final String name;

	/**
	 * Binds an executor under a name.
	 * @param executor the executor
	 * @param name the {@code name} tag, the executor's bean name in Spring
	 */
	public UformExecutorMetrics(Executor executor, String name) {
		this.executor = executor;
		this.name = name;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Meters common = new Meters(registry, this.executor, Tags.of("name", this.name));
		Meters uform = new Meters(registry, this.executor,
				Tags.of("name", this.name, "kind", this.executor.kind().name().toLowerCase(Locale.ROOT)));

		// Micrometer's ExecutorServiceMetrics names and units.
		common.counter("executor.completed", "tasks", UformExecutorMetrics::ranToAnEnd,
				"Deferred calls that ran to an end, returning or throwing");
		common.gauge("executor.active", "threads", (e) -> e.statistics().deferredRunning(),
				"Deferred calls running now (one deferred thread runs them in order)");
		common.gauge("executor.queued", "tasks", UformExecutorMetrics::queued,
				"Deferred calls accepted and not yet started");
		common.gauge("executor.queue.remaining", "tasks", UformExecutorMetrics::remaining,
				"Deferred calls defer() accepts now without waiting for a slot: the deferred limit minus calls "
						+ "in flight");
		for (String pool : List.of("executor.pool.size", "executor.pool.core", "executor.pool.max")) {
			common.gauge(pool, "threads", (e) -> e.statistics().threads(),
					"Threads taking part in a fork, the caller's included (a fixed size)");
		}

		// uform's own.
		uform.counter("uform.executor.forks", "forks", (e) -> e.statistics().forks(),
				"Forks run (forThreads, forN, forSlices, forDevices, ...), nested forks not counted");
		uform.gauge("uform.executor.deferred.in.flight", "tasks", (e) -> e.statistics().deferredInFlight(),
				"Deferred calls queued or running now");
		uform.gauge("uform.executor.deferred.limit", "tasks", (e) -> e.statistics().deferredLimit(),
				"Deferred calls tracked at once; a defer() beyond it waits for a slot");
		uform.counter("uform.executor.deferred.failed", "tasks", (e) -> e.statistics().deferredFailed(),
				"Deferred calls that threw");
		uform.counter("uform.executor.deferred.cancelled", "tasks", (e) -> e.statistics().deferredCancelled(),
				"Accepted deferred calls that never ran: cancelled before they started, or dropped by a bounded free");
		uform.counter("uform.executor.deferred.rejected", "tasks", (e) -> e.statistics().deferredRejected(),
				"Deferred calls refused: no slot in time, interrupted while waiting, or after refuseDeferred "
						+ "(a closing context) or free");
		FunctionTimer
			.builder("uform.executor.deferred.wait", this.executor, (e) -> e.statistics().deferredWaitCount(),
					(e) -> e.statistics().deferredWaitNanos(), TimeUnit.NANOSECONDS)
			.tags(uform.tags())
			.description("Time deferred calls waited between being accepted and starting")
			.register(registry);
		FunctionTimer
			.builder("uform.executor.deferred.run", this.executor, (e) -> e.statistics().deferredRunCount(),
					(e) -> e.statistics().deferredRunNanos(), TimeUnit.NANOSECONDS)
			.tags(uform.tags())
			.description("Time deferred calls ran, from start to return or throw")
			.register(registry);

		List<ScratchStatistics> scratch = this.executor.statistics().scratch();
		for (int i = 0; i < scratch.size(); i++) {
			int device = i;
			Meters perDevice = new Meters(registry, this.executor,
					common.tags().and("device", Integer.toString(scratch.get(i).ordinal())));
			for (Field field : Field.values()) {
				if (field != Field.LIMIT || scratch.get(i).limitBytes() != null) {
					perDevice.gauge(field.meter, "bytes", (e) -> scratch(e, device, field), field.description);
				}
			}
		}
	}

	private static double ranToAnEnd(Executor executor) {
		ExecutorStatistics statistics = executor.statistics();
		return statistics.deferredCompleted() + statistics.deferredFailed();
	}

	private static double queued(Executor executor) {
		ExecutorStatistics statistics = executor.statistics();
		// Each field is read on its own: a call finishing between the two reads must not show as -1.
		return Math.max(0, statistics.deferredInFlight() - statistics.deferredRunning());
	}

	private static double remaining(Executor executor) {
		ExecutorStatistics statistics = executor.statistics();
		return Math.max(0, statistics.deferredLimit() - statistics.deferredInFlight());
	}

	private static double scratch(Executor executor, int device, Field field) {
		List<ScratchStatistics> scratch = executor.statistics().scratch();
		if (device >= scratch.size()) {
			return Double.NaN;
		}
		ScratchStatistics figures = scratch.get(device);
		return switch (field) {
			case RESERVED -> figures.reservedBytes();
			case USED -> figures.inUseBytes();
			case HIGH_WATER -> figures.highWaterBytes();
			case LIMIT -> (figures.limitBytes() != null) ? figures.limitBytes() : Double.NaN;
		};
	}

	/**
	 * Registers gauges and function counters of one executor under one set of tags; the meters hold
	 * the executor weakly, as Micrometer's builders do by default.
	 */
	private record Meters(MeterRegistry registry, Executor executor, Tags tags) {

		void gauge(String name, String unit, ToDoubleFunction<Executor> value, String description) {
			Gauge.builder(name, this.executor, value)
				.tags(this.tags)
				.description(description)
				.baseUnit(unit)
				.register(this.registry);
		}

		void counter(String name, String unit, ToDoubleFunction<Executor> value, String description) {
			FunctionCounter.builder(name, this.executor, value)
				.tags(this.tags)
				.description(description)
				.baseUnit(unit)
				.register(this.registry);
		}
	}

	/** Which scratch figure a gauge reads, and its meter. */
	private enum Field {

		RESERVED("uform.scratch.reserved", "Device memory the executor's scratch holds from the driver"),

		USED("uform.scratch.used", "Scratch bytes handed out to reservations now"),

		HIGH_WATER("uform.scratch.high.water", "The most scratch bytes handed out at once so far"),

		LIMIT("uform.scratch.limit", "The executor's scratch limit per device");

		final String meter;

		final String description;

		Field(String meter, String description) {
			this.meter = meter;
			this.description = description;
		}
	}
}
