package io.uform.spring.autoconfigure.metrics;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.ScratchStatistics;

/**
 * Binds one uform {@link Executor}'s statistics to a registry, as Micrometer's
 * {@code ExecutorServiceMetrics} binds a {@code ThreadPoolExecutor}: the same meter names where they
 * mean the same thing, so dashboards built for JVM executors show uform executors too, and
 * {@code uform.executor.*} and {@code uform.scratch.*} for what only uform has.
 *
 * <h2>Micrometer's names, and what they count here</h2>
 * Tagged {@code name} only (the executor's bean name), exactly as Boot tags its own task executors:
 * Prometheus registries before Micrometer 1.17 drop a meter whose name is already registered with a
 * different set of tag keys, so an extra tag here would hide either these series or
 * {@code applicationTaskExecutor}'s. What a uform executor queues and runs asynchronously is its
 * deferred calls ({@link Executor#defer}); forks run on the calling thread and return when done.
 * <ul>
 * <li>{@code executor.completed} (tasks, counter): deferred calls that ran to an end, returned or
 * threw, as {@code ThreadPoolExecutor.getCompletedTaskCount()} counts tasks that threw too; the
 * failed ones alone are {@code uform.executor.deferred.failed}.</li>
 * <li>{@code executor.active} (threads): deferred calls running now, 0 or 1 (one deferred thread runs
 * them in order).</li>
 * <li>{@code executor.queued} (tasks): deferred calls accepted and not yet started.</li>
 * <li>{@code executor.queue.remaining} (tasks): {@code deferredLimit} minus calls in flight, how many
 * more {@code defer} accepts without waiting for a slot.</li>
 * <li>{@code executor.pool.size}, {@code executor.pool.core}, {@code executor.pool.max} (threads):
 * the threads taking part in a fork, the caller's included; a uform pool has a fixed size, so the
 * three are equal.</li>
 * </ul>
 *
 * <h2>uform's own</h2>
 * Tagged {@code name} and {@code kind} ({@code ram} or {@code vram}):
 * {@code uform.executor.forks} (counter), {@code uform.executor.deferred.in.flight} and
 * {@code uform.executor.deferred.limit} (gauges), {@code uform.executor.deferred.failed},
 * {@code .cancelled} and {@code .rejected} (counters), and the function timers
 * {@code uform.executor.deferred.wait} (accepted to started) and {@code uform.executor.deferred.run}
 * (started to returned). A VRAM executor adds, per device (tags {@code name} and {@code device}, the
 * ordinal in {@code Uform.gpuDevices()}), {@code uform.scratch.reserved}, {@code uform.scratch.used},
 * {@code uform.scratch.high.water} and, where a {@code scratchLimit} is set, {@code uform.scratch.limit},
 * in bytes.
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

	private final Iterable<Tag> tags;

	/**
	 * Binds an executor under a name.
	 * @param executor the executor
	 * @param name the {@code name} tag, the executor's bean name in Spring
	 */
	public UformExecutorMetrics(Executor executor, String name) {
		this(executor, name, Tags.empty());
	}

	/**
	 * Binds an executor under a name, with extra tags on every meter.
	 * @param executor the executor
	 * @param name the {@code name} tag, the executor's bean name in Spring
	 * @param tags added to every meter
	 */
	public UformExecutorMetrics(Executor executor, String name, Iterable<Tag> tags) {
		this.executor = executor;
		this.name = name;
		this.tags = tags;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Executor executor = this.executor;
		Tags common = Tags.concat(this.tags, "name", this.name);
		Tags uform = common.and("kind", executor.kind().name().toLowerCase(Locale.ROOT));

		// Micrometer's ExecutorServiceMetrics names and units.
		FunctionCounter.builder("executor.completed", executor, UformExecutorMetrics::ranToAnEnd)
			.tags(common)
			.description("Deferred calls that ran to an end, returning or throwing")
			.baseUnit("tasks")
			.register(registry);
		Gauge.builder("executor.active", executor, (e) -> e.statistics().deferredRunning())
			.tags(common)
			.description("Deferred calls running now (one deferred thread runs them in order)")
			.baseUnit("threads")
			.register(registry);
		Gauge.builder("executor.queued", executor, UformExecutorMetrics::queued)
			.tags(common)
			.description("Deferred calls accepted and not yet started")
			.baseUnit("tasks")
			.register(registry);
		Gauge.builder("executor.queue.remaining", executor, UformExecutorMetrics::remaining)
			.tags(common)
			.description("Deferred calls defer() accepts now without waiting for a slot: the deferred limit minus calls "
					+ "in flight")
			.baseUnit("tasks")
			.register(registry);
		for (String pool : List.of("executor.pool.size", "executor.pool.core", "executor.pool.max")) {
			Gauge.builder(pool, executor, (e) -> e.statistics().threads())
				.tags(common)
				.description("Threads taking part in a fork, the caller's included (a fixed size)")
				.baseUnit("threads")
				.register(registry);
		}

		// uform's own.
		FunctionCounter.builder("uform.executor.forks", executor, (e) -> e.statistics().forks())
			.tags(uform)
			.description("Forks run (forThreads, forN, forSlices, forDevices, ...), nested forks not counted")
			.baseUnit("forks")
			.register(registry);
		Gauge.builder("uform.executor.deferred.in.flight", executor, (e) -> e.statistics().deferredInFlight())
			.tags(uform)
			.description("Deferred calls queued or running now")
			.baseUnit("tasks")
			.register(registry);
		Gauge.builder("uform.executor.deferred.limit", executor, (e) -> e.statistics().deferredLimit())
			.tags(uform)
			.description("Deferred calls tracked at once; a defer() beyond it waits for a slot")
			.baseUnit("tasks")
			.register(registry);
		FunctionCounter.builder("uform.executor.deferred.failed", executor, (e) -> e.statistics().deferredFailed())
			.tags(uform)
			.description("Deferred calls that threw")
			.baseUnit("tasks")
			.register(registry);
		FunctionCounter.builder("uform.executor.deferred.cancelled", executor, (e) -> e.statistics().deferredCancelled())
			.tags(uform)
			.description("Accepted deferred calls that never ran: cancelled before they started, or dropped by a "
					+ "bounded free")
			.baseUnit("tasks")
			.register(registry);
		FunctionCounter.builder("uform.executor.deferred.rejected", executor, (e) -> e.statistics().deferredRejected())
			.tags(uform)
			.description("Deferred calls refused: no slot in time, interrupted while waiting, or after refuseDeferred "
					+ "(a closing context) or free")
			.baseUnit("tasks")
			.register(registry);
		FunctionTimer
			.builder("uform.executor.deferred.wait", executor, (e) -> e.statistics().deferredWaitCount(),
					(e) -> e.statistics().deferredWaitNanos(), TimeUnit.NANOSECONDS)
			.tags(uform)
			.description("Time deferred calls waited between being accepted and starting")
			.register(registry);
		FunctionTimer
			.builder("uform.executor.deferred.run", executor, (e) -> e.statistics().deferredRunCount(),
					(e) -> e.statistics().deferredRunNanos(), TimeUnit.NANOSECONDS)
			.tags(uform)
			.description("Time deferred calls ran, from start to return or throw")
			.register(registry);

		bindScratch(registry, executor, common);
	}

	private static void bindScratch(MeterRegistry registry, Executor executor, Tags common) {
		List<ScratchStatistics> scratch = executor.statistics().scratch();
		for (int i = 0; i < scratch.size(); i++) {
			int device = i;
			Tags tags = common.and("device", Integer.toString(scratch.get(i).ordinal()));
			Gauge.builder("uform.scratch.reserved", executor, (e) -> scratch(e, device, Field.RESERVED))
				.tags(tags)
				.description("Device memory the executor's scratch holds from the driver")
				.baseUnit("bytes")
				.register(registry);
			Gauge.builder("uform.scratch.used", executor, (e) -> scratch(e, device, Field.USED))
				.tags(tags)
				.description("Scratch bytes handed out to reservations now")
				.baseUnit("bytes")
				.register(registry);
			Gauge.builder("uform.scratch.high.water", executor, (e) -> scratch(e, device, Field.HIGH_WATER))
				.tags(tags)
				.description("The most scratch bytes handed out at once so far")
				.baseUnit("bytes")
				.register(registry);
			if (scratch.get(i).limitBytes() != null) {
				Gauge.builder("uform.scratch.limit", executor, (e) -> scratch(e, device, Field.LIMIT))
					.tags(tags)
					.description("The executor's scratch limit per device")
					.baseUnit("bytes")
					.register(registry);
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

	/** Which scratch figure a gauge reads. */
	private enum Field {
		RESERVED, USED, HIGH_WATER, LIMIT
	}
}
