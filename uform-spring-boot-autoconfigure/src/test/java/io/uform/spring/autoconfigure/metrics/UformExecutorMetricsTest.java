package io.uform.spring.autoconfigure.metrics;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.DeviceBuffer;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link UformExecutorMetrics} on its own: what each of Micrometer's executor names counts for a
 * uform executor, that they carry the tag keys Micrometer's own binder gives them, that a freed
 * executor reads its last values without throwing, and that the registry never keeps an executor
 * alive.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformExecutorMetricsTest {

	@Test
	void micrometersNamesCountDeferredCallsAsAThreadPoolExecutorCountsTasks() throws Exception {
		MeterRegistry registry = new SimpleMeterRegistry();
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1).withDeferredLimit(4))) {
			new UformExecutorMetrics(executor, "work").bindTo(registry);
			executor.defer(() -> "fine").get(10, TimeUnit.SECONDS);
			CompletableFuture<Object> thrown = executor.defer(() -> {
				throw new IllegalStateException("counted as completed too, as a ThreadPoolExecutor counts it");
			});
			assertThatThrownBy(() -> thrown.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
			executor.drain();
			assertThat(counter(registry, "executor.completed")).isEqualTo(2);
			assertThat(counter(registry, "uform.executor.deferred.failed")).isEqualTo(1);

			CountDownLatch running = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			executor.defer(() -> {
				running.countDown();
				release.await();
				return null;
			});
			try {
				running.await();
				executor.defer(() -> "queued");
				CompletableFuture<Object> cancelled = executor.defer(() -> "cancelled before it starts");
				cancelled.cancel(false);
				executor.defer(() -> "fills the last slot");
				assertThatThrownBy(() -> executor.defer(() -> "no slot", Duration.ZERO))
					.isInstanceOf(UformException.class);
				assertThat(gauge(registry, "executor.active")).isEqualTo(1);
				assertThat(gauge(registry, "executor.queued")).isEqualTo(3);
				assertThat(gauge(registry, "uform.executor.deferred.in.flight")).isEqualTo(4);
				assertThat(gauge(registry, "executor.queue.remaining")).isZero();
				assertThat(counter(registry, "uform.executor.deferred.rejected")).isEqualTo(1);
			}
			finally {
				// Else a failed assertion leaves close() waiting for the held call for ever.
				release.countDown();
			}
			executor.drain();
			assertThat(counter(registry, "uform.executor.deferred.cancelled")).isEqualTo(1);
			assertThat(counter(registry, "executor.completed")).isEqualTo(5);
			assertThat(gauge(registry, "executor.queue.remaining")).isEqualTo(4);
		}
	}

	@Test
	void micrometersNamesCarryTheTagKeysMicrometersOwnBinderGivesThem() {
		MeterRegistry registry = new SimpleMeterRegistry();
		ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			// As Boot binds its applicationTaskExecutor, beside a uform executor in one registry.
			new ExecutorServiceMetrics(pool, "applicationTaskExecutor", List.of()).bindTo(registry);
			new UformExecutorMetrics(executor, "uformRamExecutor").bindTo(registry);
			Map<String, Set<String>> micrometers = tagKeysByName(registry, "applicationTaskExecutor");
			Map<String, Set<String>> uforms = tagKeysByName(registry, "uformRamExecutor");
			assertThat(micrometers).containsKeys("executor.completed", "executor.active", "executor.queued",
					"executor.queue.remaining", "executor.pool.size", "executor.pool.core", "executor.pool.max");
			micrometers.forEach((name, keys) -> assertThat(uforms.get(name)).as(name).isEqualTo(keys));
			for (String name : micrometers.keySet()) {
				assertThat(registry.get(name).tag("name", "uformRamExecutor").meter().getId().getBaseUnit()).as(name)
					.isEqualTo(registry.get(name).tag("name", "applicationTaskExecutor").meter().getId().getBaseUnit());
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aFreedExecutorReadsItsLastValuesAndNoMeterThrows() throws Exception {
		MeterRegistry registry = new SimpleMeterRegistry();
		Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		new UformExecutorMetrics(executor, "gone").bindTo(registry);
		executor.defer(() -> "done").get(10, TimeUnit.SECONDS);
		executor.forDevices((lane) -> {
			try (DeviceBuffer scratch = lane.reserve(4096)) {
				assertThat(scratch.bytes()).isEqualTo(4096);
			}
		});
		executor.free();
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
		for (Meter meter : registry.getMeters()) {
			meter.measure().forEach((measurement) -> assertThat(measurement.getValue()).as(meter.getId().toString())
				.isNotNaN());
		}
		assertThat(counter(registry, "executor.completed")).isEqualTo(1);
		assertThat(counter(registry, "uform.executor.forks")).isEqualTo(1);
		assertThat(gauge(registry, "uform.executor.deferred.in.flight")).isZero();
		assertThat(registry.get("uform.scratch.reserved").gauge().value()).as("scratch is given back on free").isZero();
		assertThat(registry.get("uform.scratch.high.water").gauge().value()).isEqualTo(4096);
	}

	@Test
	void theRegistryDoesNotKeepAnExecutorAlive() throws Exception {
		MeterRegistry registry = new SimpleMeterRegistry();
		WeakReference<Executor> executor = bindAndForget(registry);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (executor.get() != null && System.nanoTime() < deadline) {
			System.gc();
			Thread.sleep(20);
		}
		assertThat(executor.get()).as("collected although its meters are still registered").isNull();
		assertThat(gauge(registry, "executor.pool.size")).isNaN();
		assertThat(gauge(registry, "uform.executor.deferred.in.flight")).isNaN();
		// Function counters keep the last value they read.
		assertThat(counter(registry, "uform.executor.forks")).isEqualTo(1);
	}

	private static WeakReference<Executor> bindAndForget(MeterRegistry registry) {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		new UformExecutorMetrics(executor, "forgotten").bindTo(registry);
		executor.forN(10, (index) -> {
		});
		assertThat(counter(registry, "uform.executor.forks")).isEqualTo(1);
		assertThat(gauge(registry, "executor.pool.size")).isEqualTo(1);
		return new WeakReference<>(executor);
	}

	private static Map<String, Set<String>> tagKeysByName(MeterRegistry registry, String executor) {
		Map<String, Set<String>> keys = new TreeMap<>();
		registry.getMeters()
			.stream()
			.filter((meter) -> executor.equals(meter.getId().getTag("name")))
			.filter((meter) -> meter.getId().getName().startsWith("executor."))
			.forEach((meter) -> keys.put(meter.getId().getName(),
					meter.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet())));
		return keys;
	}

	private static double gauge(MeterRegistry registry, String name) {
		return registry.get(name).gauge().value();
	}

	private static double counter(MeterRegistry registry, String name) {
		return registry.get(name).functionCounter().count();
	}
}
