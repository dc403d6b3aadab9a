package io.uform.spring.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.DeviceBuffer;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Mesh;
import io.uform.gpu.SimulatedRuntime;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The binders this module auto-configures, bound by Boot's {@code MetricsAutoConfiguration} to a
 * {@link SimpleMeterRegistry}, on the two simulated devices of this module's test JVM (256 MB each):
 * every meter exists with its tags and moves with the work, GPU gauges read the simulated devices,
 * the mesh has its meters, and without Micrometer or a registry the application starts without
 * binders.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformMetricsAutoConfigurationTest {

	private static final String RAM = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME;

	private static final String VRAM = UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME;

	/** Micrometer's ExecutorServiceMetrics names, tagged {@code name} only. */
	private static final List<String> MICROMETER_METERS = List.of("executor.completed", "executor.active",
			"executor.queued", "executor.queue.remaining", "executor.pool.size", "executor.pool.core",
			"executor.pool.max");

	/** uform's own executor meters, tagged {@code name} and {@code kind}. */
	private static final List<String> UFORM_METERS = List.of("uform.executor.forks",
			"uform.executor.deferred.in.flight", "uform.executor.deferred.limit", "uform.executor.deferred.failed",
			"uform.executor.deferred.cancelled", "uform.executor.deferred.rejected", "uform.executor.deferred.wait",
			"uform.executor.deferred.run");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, UformAutoConfiguration.class,
				UformMetricsAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2", "uform.ram.deferred-limit=4");

	@Test
	void theExecutorMetersOfAContextLeaveTheRegistryWithItSoALaterContextBindsItsOwn() throws Exception {
		// A registry that outlives its contexts (a static one in tests, say) kept the meters of freed
		// executors, and a later context's binding of the same ids got those back, reading the old one.
		SimpleMeterRegistry shared = new SimpleMeterRegistry();
		for (int cycle = 1; cycle <= 3; cycle++) {
			try (Executor ram = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
				org.springframework.beans.factory.support.DefaultListableBeanFactory beans =
						new org.springframework.beans.factory.support.DefaultListableBeanFactory();
				beans.registerSingleton(RAM, ram);
				UformMetricsAutoConfiguration.BeansMetrics<Executor> binder = new UformMetricsAutoConfiguration.BeansMetrics<>(
						beans, Executor.class, UformExecutorMetrics::new);
				binder.bindTo(shared);
				for (int fork = 0; fork < cycle; fork++) {
					ram.forN(2, (index) -> {
					});
				}
				assertThat(shared.get("uform.executor.forks").tag("name", RAM).functionCounter().count())
					.as("forks of this cycle's executor").isEqualTo(cycle);
				binder.destroy();
				assertThat(shared.find("uform.executor.forks").meters()).as("executor meters after destroy").isEmpty();
				assertThat(shared.find("executor.pool.size").meters()).isEmpty();
			}
		}
	}

	@Test
	void contextsMadeOneAfterAnotherOnOneRegistryEachMeasureTheirOwnExecutors() {
		// The same through Boot: MetricsAutoConfiguration binds each context's binders to the registry
		// bean. This registry ignores close(): as a bean of the first context it would otherwise be
		// closed with it (Spring closes AutoCloseable beans), and a closed registry registers nothing.
		SimpleMeterRegistry shared = new SimpleMeterRegistry() {
			@Override
			public void close() {
			}
		};
		for (int cycle = 1; cycle <= 3; cycle++) {
			int forks = cycle;
			this.contextRunner
				.withBean("meterRegistry", MeterRegistry.class, () -> shared)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Executor ram = context.getBean(RAM, Executor.class);
					for (int fork = 0; fork < forks; fork++) {
						ram.forN(2, (index) -> {
						});
					}
					assertThat(shared.get("uform.executor.forks").tag("name", RAM).functionCounter().count())
						.as("forks of this context's executor").isEqualTo(forks);
					assertThat(shared.get("executor.pool.size").tag("name", RAM).gauge().value()).isEqualTo(2);
				});
			assertThat(shared.isClosed()).isFalse();
			assertThat(shared.find("uform.executor.forks").meters()).as("executor meters after close").isEmpty();
		}
	}

	@Test
	void everyExecutorMeterExistsWithItsTagsAndMicrometersNamesCarryOnlyTheNameTag() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasBean(UformMetricsAutoConfiguration.EXECUTOR_METRICS_BEAN_NAME)
				.hasBean(UformMetricsAutoConfiguration.GPU_METRICS_BEAN_NAME)
				.hasBean(UformMetricsAutoConfiguration.MESH_METRICS_BEAN_NAME);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (String executor : List.of(RAM, VRAM)) {
				for (String name : MICROMETER_METERS) {
					Meter meter = registry.get(name).tag("name", executor).meter();
					// Boot tags its own task executors' executor.* with `name` only; Prometheus (before
					// Micrometer 1.17) drops a meter whose tag keys differ from the first one of its name.
					assertThat(tagKeys(meter)).as(name).containsExactly("name");
				}
				String kind = executor.equals(RAM) ? "ram" : "vram";
				for (String name : UFORM_METERS) {
					Meter meter = registry.get(name).tags("name", executor, "kind", kind).meter();
					assertThat(tagKeys(meter)).as(name).containsExactlyInAnyOrder("name", "kind");
				}
			}
			assertThat(registry.get("executor.pool.size").tag("name", RAM).gauge().value()).isEqualTo(2);
			assertThat(registry.get("executor.pool.max").tag("name", RAM).gauge().value()).isEqualTo(2);
			assertThat(registry.get("uform.executor.deferred.limit").tag("name", RAM).gauge().value()).isEqualTo(4);
			assertThat(registry.get("executor.queue.remaining").tag("name", RAM).gauge().value()).isEqualTo(4);
			assertThat(registry.find("uform.scratch.used").tag("name", RAM).gauges())
				.as("a RAM executor has no scratch of its own")
				.isEmpty();
		});
	}

	@Test
	void forksCountUpAfterForN() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Executor ram = context.getBean(RAM, Executor.class);
			double before = registry.get("uform.executor.forks").tag("name", RAM).functionCounter().count();
			for (int i = 0; i < 3; i++) {
				ram.forN(100, (index) -> {
				});
			}
			assertThat(registry.get("uform.executor.forks").tag("name", RAM).functionCounter().count())
				.isEqualTo(before + 3);
		});
	}

	@Test
	void theInFlightGaugeReadsOneWhileADeferredCallIsBlocked() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Executor ram = context.getBean(RAM, Executor.class);
			CountDownLatch running = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Object> blocked = ram.defer(() -> {
				running.countDown();
				release.await();
				return null;
			});
			try {
				running.await();
				assertThat(gauge(registry, "uform.executor.deferred.in.flight", RAM)).isEqualTo(1);
				assertThat(gauge(registry, "executor.active", RAM)).isEqualTo(1);
				assertThat(gauge(registry, "executor.queued", RAM)).isZero();
				assertThat(gauge(registry, "executor.queue.remaining", RAM)).isEqualTo(3);
			}
			finally {
				// Else a failed assertion leaves the context's close waiting for the held call.
				release.countDown();
			}
			blocked.get(10, TimeUnit.SECONDS);
			ram.drain();
			assertThat(gauge(registry, "uform.executor.deferred.in.flight", RAM)).isZero();
			assertThat(gauge(registry, "executor.active", RAM)).isZero();
			assertThat(registry.get("executor.completed").tag("name", RAM).functionCounter().count()).isEqualTo(1);
		});
	}

	@Test
	void waitAndRunTimersCountAfterCalls() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Executor ram = context.getBean(RAM, Executor.class);
			ram.defer(() -> {
				Thread.sleep(60);
				return "slow";
			});
			ram.defer(() -> "quick");
			ram.defer(() -> "quick too");
			ram.drain();
			FunctionTimer run = registry.get("uform.executor.deferred.run").tag("name", RAM).functionTimer();
			FunctionTimer wait = registry.get("uform.executor.deferred.wait").tag("name", RAM).functionTimer();
			assertThat(run.count()).isEqualTo(3);
			assertThat(wait.count()).isEqualTo(3);
			assertThat(run.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(60);
			// The two quick calls were queued behind the 60 ms one.
			assertThat(wait.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(2 * 50);
			assertThat(run.getId().getBaseUnit()).isEqualTo("seconds");
		});
	}

	@Test
	void scratchBytesRiseAfterAReservationOnASimulatedDevice() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("uform.vram.enabled=true", "uform.vram.scratch-limit=64MB")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				Executor vram = context.getBean(VRAM, Executor.class);
				String device = Integer.toString(vram.statistics().devices().get(0));
				assertThat(scratch(registry, "uform.scratch.used", device)).isZero();
				assertThat(scratch(registry, "uform.scratch.limit", device)).isEqualTo(64 << 20);
				DeviceBuffer[] held = new DeviceBuffer[1];
				vram.forDevices((lane) -> held[0] = lane.reserve(1 << 20));
				assertThat(scratch(registry, "uform.scratch.used", device)).isEqualTo(1 << 20);
				assertThat(scratch(registry, "uform.scratch.reserved", device)).isGreaterThanOrEqualTo(1 << 20);
				assertThat(scratch(registry, "uform.scratch.high.water", device)).isEqualTo(1 << 20);
				held[0].close();
				assertThat(scratch(registry, "uform.scratch.used", device)).isZero();
				assertThat(scratch(registry, "uform.scratch.high.water", device)).isEqualTo(1 << 20);
				Meter used = registry.get("uform.scratch.used").tags("name", VRAM, "device", device).meter();
				assertThat(used.getId().getBaseUnit()).isEqualTo("bytes");
				assertThat(tagKeys(used)).containsExactlyInAnyOrder("name", "device");
			});
	}

	@Test
	void deviceGaugesReadTheSimulatedDevicesNumbersAndFollowThemOnScrape() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).withPropertyValues("uform.vram.enabled=true")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				SimulatedRuntime simulated = SimulatedRuntime.system();
				for (int ordinal = 0; ordinal < 2; ordinal++) {
					String device = Integer.toString(ordinal);
					Meter total = registry.get("uform.gpu.memory.total")
						.tags("device", device, "uuid", "GPU-SIMULATED-" + ordinal, "vendor", "simulated", "gpu.class",
								SimulatedRuntime.GPU_CLASS)
						.meter();
					assertThat(total.getId().getBaseUnit()).isEqualTo("bytes");
					assertThat(registry.get("uform.gpu.memory.total").tag("device", device).gauge().value())
						.isEqualTo(256L << 20);
					assertThat(registry.get("uform.gpu.memory.used").tag("device", device).gauge().value())
						.isEqualTo(simulated.usedBytes(ordinal));
				}
				// Host memory reports no utilisation, power or temperature: no series rather than made-up ones.
				assertThat(registry.find("uform.gpu.utilization").meters()).isEmpty();
				assertThat(registry.find("uform.gpu.power").meters()).isEmpty();
				assertThat(registry.find("uform.gpu.temperature").meters()).isEmpty();
				// A reservation shows once the 1 s sample has aged.
				Executor vram = context.getBean(VRAM, Executor.class);
				int ordinal = vram.statistics().devices().get(0);
				String device = Integer.toString(ordinal);
				double before = registry.get("uform.gpu.memory.used").tag("device", device).gauge().value();
				DeviceBuffer[] held = new DeviceBuffer[1];
				vram.forDevices((lane) -> held[0] = lane.reserve(8 << 20));
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
				double now = before;
				while (now < before + (8 << 20) && System.nanoTime() < deadline) {
					Thread.sleep(100);
					now = registry.get("uform.gpu.memory.used").tag("device", device).gauge().value();
				}
				assertThat(now).isEqualTo(simulated.usedBytes(ordinal)).isGreaterThanOrEqualTo(before + (8 << 20));
				held[0].close();
			});
	}

	@Test
	void aMeshOfOneHasItsMetersWhichLeaveTheRegistryWithTheContext() {
		MeterRegistry[] registry = new MeterRegistry[1];
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("uform.mesh.host-domain-count=1", "uform.vram.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				registry[0] = context.getBean(MeterRegistry.class);
				Mesh mesh = context.getBean(UformAutoConfiguration.MESH_BEAN_NAME, Mesh.class);
				String name = UformAutoConfiguration.MESH_BEAN_NAME;
				assertThat(registry[0].get("uform.mesh.hosts").tag("name", name).gauge().value()).isEqualTo(1);
				assertThat(registry[0].get("uform.mesh.index").tag("name", name).gauge().value()).isZero();
				// A time gauge converts nanoseconds to seconds and back: equal to within a nanosecond.
				assertThat(registry[0].get("uform.mesh.bootstrap").tag("name", name).timeGauge().value(TimeUnit.NANOSECONDS))
					.isCloseTo(mesh.bootstrapDuration().toNanos(), within(1.0));
				assertThat(registry[0].get("uform.mesh.bootstrap").timeGauge().getId().getBaseUnit()).isEqualTo("seconds");
			});
		// The context closed: its mesh meters left the registry with it.
		assertThat(registry[0].find("uform.mesh.hosts").meters()).isEmpty();
		assertThat(registry[0].find("uform.mesh.bootstrap").meters()).isEmpty();
	}

	@Test
	void aUserExecutorBeanIsBoundUnderItsBeanNameAndAUserBinderOfTheSameNameWins() {
		UformGpuMetrics mine = new UformGpuMetrics(Duration.ZERO);
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("uform.vram.enabled=false")
			.withBean("embeddingsExecutor", Executor.class,
					() -> Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1)),
					(definition) -> definition.setDestroyMethodName("free"))
			.withBean(UformMetricsAutoConfiguration.GPU_METRICS_BEAN_NAME, UformGpuMetrics.class, () -> mine)
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("executor.pool.size").tag("name", "embeddingsExecutor").gauge().value())
					.isEqualTo(1);
				assertThat(registry.find("executor.pool.size").tag("name", VRAM).gauges()).isEmpty();
				assertThat(context.getBean(UformMetricsAutoConfiguration.GPU_METRICS_BEAN_NAME)).isSameAs(mine);
			});
	}

	@Test
	void bootsEnableFlagsTurnAGroupOfMetersOff() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("management.metrics.enable.uform.gpu=false", "management.metrics.enable.uform.scratch=false")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("uform.gpu.memory.total").meters()).isEmpty();
				assertThat(registry.find("uform.scratch.used").meters()).isEmpty();
				assertThat(registry.find("uform.executor.forks").tag("name", VRAM).meters()).hasSize(1);
			});
	}

	@Test
	void withoutARegistryNoBinderIsMade() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.hasBean(RAM)
			.doesNotHaveBean(MeterBinder.class));
	}

	@Test
	void withoutMicrometerTheApplicationStartsWithoutBinders() {
		// A registry bean is there (its classes load from the test's own loader), so what keeps the
		// binders out is Micrometer missing from the application's class loader. Both conditions see
		// that: @ConditionalOnClass, and @ConditionalOnBean(MeterRegistry.class), whose type then
		// cannot load. Either one alone passes this test; Boot's own binders carry both, and so do these.
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean(RAM)
				.doesNotHaveBean(UformMetricsAutoConfiguration.class)
				.doesNotHaveBean(UformMetricsAutoConfiguration.EXECUTOR_METRICS_BEAN_NAME)
				.doesNotHaveBean(UformMetricsAutoConfiguration.GPU_METRICS_BEAN_NAME)
				.doesNotHaveBean(UformMetricsAutoConfiguration.MESH_METRICS_BEAN_NAME));
	}

	/**
	 * Micrometer without Boot's metrics module (an application that brings its own registry): uform's
	 * configuration names Boot's metrics configurations only by name, so it loads and its binders are
	 * made. Binding them is then the application's, as for Boot's own binders: Boot's metrics module is
	 * what binds every MeterBinder bean to the registries. (The filter hides the module from the
	 * context's class loader, which evaluates the conditions and the ordering by name; it cannot catch
	 * a class literal of the module in code the test's own loader loaded.)
	 */
	@Test
	void withMicrometerButWithoutBootsMetricsModuleTheBindersAreMade() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformMetricsAutoConfiguration.class))
			.withPropertyValues("uform.ram.threads=2")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.micrometer.metrics"))
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean(UformMetricsAutoConfiguration.EXECUTOR_METRICS_BEAN_NAME);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("executor.pool.size").meters()).as("nothing bound the binders").isEmpty();
				context.getBean(UformMetricsAutoConfiguration.EXECUTOR_METRICS_BEAN_NAME, MeterBinder.class)
					.bindTo(registry);
				assertThat(registry.find("executor.pool.size").tag("name", RAM).meters()).hasSize(1);
			});
	}

	private static Set<String> tagKeys(Meter meter) {
		return meter.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet());
	}

	private static double gauge(MeterRegistry registry, String name, String executor) {
		return registry.get(name).tag("name", executor).gauge().value();
	}

	private static double scratch(MeterRegistry registry, String name, String device) {
		return registry.get(name).tags("name", VRAM, "device", device).gauge().value();
	}
}
