package io.uform.spring.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import io.uform.Executor;
import io.uform.GpuDevice;
import io.uform.Mesh;
import io.uform.Uform;
import io.uform.UformException;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.UformExecutorLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code uform} health indicator on this module's two simulated devices: UP while every executor
 * runs and the mesh is joined; DOWN, naming what, when an executor or the mesh is freed (or an
 * executor refuses deferred calls) under the running application or a device an executor holds is
 * gone; OUT_OF_SERVICE, not DOWN, when the context does so on purpose while it closes or stops.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformHealthIndicatorTest {

	private static final String RAM = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME;

	private static final String VRAM = UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(UformAutoConfiguration.class, UformHealthContributorAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	@Test
	void upWhileEveryExecutorRunsWithTheirStatesAndTheDeviceCount() {
		this.contextRunner.run((context) -> {
			Health health = context.getBean(UformHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsOnlyKeys("executors", "devices");
			assertThat(health.getDetails().get("executors")).isEqualTo(Map.of(RAM, "RUNNING", VRAM, "RUNNING"));
			assertThat(health.getDetails().get("devices")).isEqualTo(Uform.gpuDevices().size()).isEqualTo(2);
		});
	}

	@Test
	void downNamingTheExecutorFreedUnderTheRunningApplication() {
		this.contextRunner.run((context) -> {
			UformHealthIndicator indicator = context.getBean(UformHealthIndicator.class);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			context.getBean(RAM, Executor.class).free();
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) health.getDetails().get("reason")).contains("executor '" + RAM + "'")
				.contains("was freed while the application runs")
				.doesNotContain(VRAM);
			assertThat(health.getDetails().get("executors")).isEqualTo(Map.of(RAM, "FREED", VRAM, "RUNNING"));
		});
	}

	@Test
	void downNamingTheDeviceAndExecutorWhenADeviceItHoldsCannotBeRead() {
		this.contextRunner.run((context) -> {
			Executor vram = context.getBean(VRAM, Executor.class);
			int held = vram.statistics().devices().get(0);
			UformHealthIndicator indicator = new UformHealthIndicator(context, Uform::gpuDevices, (ordinal) -> {
				if (ordinal == held) {
					throw new UformException(UformException.Status.DEVICE_ERROR, "GPU is lost");
				}
				return Uform.gpuReadings(ordinal);
			});
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) health.getDetails().get("reason"))
				.contains("device " + held + " (" + vram.devices().get(0).name())
				.contains("held by executor '" + VRAM + "'")
				.contains("cannot be read: GPU is lost");
		});
	}

	@Test
	void downWhenADeviceAnExecutorHoldsIsNoLongerListed() {
		this.contextRunner.run((context) -> {
			Executor vram = context.getBean(VRAM, Executor.class);
			int held = vram.statistics().devices().get(0);
			Health none = new UformHealthIndicator(context, List::of, Uform::gpuReadings).health();
			assertThat(none.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) none.getDetails().get("reason")).contains("device " + held)
				.contains("is no longer listed (this process sees 0 GPUs)");
			List<GpuDevice> swapped = List.of(Uform.gpuDevices().get(1), Uform.gpuDevices().get(0));
			Health other = new UformHealthIndicator(context, () -> swapped, Uform::gpuReadings).health();
			assertThat(other.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) other.getDetails().get("reason")).contains("is no longer listed at that ordinal");
		});
	}

	@Test
	void theMeshIsShownWhileJoinedAndDownWhenFreedUnderTheRunningApplication() {
		this.contextRunner.withPropertyValues("uform.mesh.host-domain-count=1").run((context) -> {
			UformHealthIndicator indicator = context.getBean(UformHealthIndicator.class);
			Health joined = indicator.health();
			assertThat(joined.getStatus()).isEqualTo(Status.UP);
			assertThat(joined.getDetails().get("mesh")).isEqualTo(Map.of(UformAutoConfiguration.MESH_BEAN_NAME, "joined"));
			context.getBean(Mesh.class).free();
			Health left = indicator.health();
			assertThat(left.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) left.getDetails().get("reason"))
				.contains("mesh '" + UformAutoConfiguration.MESH_BEAN_NAME + "' was freed while the application runs");
			assertThat(left.getDetails().get("mesh")).isEqualTo(Map.of(UformAutoConfiguration.MESH_BEAN_NAME, "freed"));
		});
	}

	@Test
	void downNamingTheExecutorThatRefusesDeferredCallsUnderTheRunningApplication() {
		this.contextRunner.run((context) -> {
			UformHealthIndicator indicator = context.getBean(UformHealthIndicator.class);
			assertThat(context.getBean(RAM, Executor.class).refuseDeferred(Duration.ZERO)).isTrue();
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) health.getDetails().get("reason")).contains("executor '" + RAM + "'")
				.contains("refuses new deferred calls while the application runs")
				.doesNotContain(VRAM);
			assertThat(health.getDetails().get("executors")).isEqualTo(Map.of(RAM, "CLOSING", VRAM, "RUNNING"));
		});
	}

	@Test
	void outOfServiceNotDownOnceTheClosingContextHasClosedTheExecutors() {
		AtomicReference<Health> seen = new AtomicReference<>();
		this.contextRunner.withBean(HealthProbe.class, () -> new HealthProbe(seen)).run((context) -> {
			HealthProbe probe = context.getBean(HealthProbe.class);
			probe.indicator = context.getBean(UformHealthIndicator.class);
		});
		Health whileClosing = seen.get();
		assertThat(whileClosing).as("health seen after the executors' lifecycle stopped").isNotNull();
		assertThat(whileClosing.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		assertThat((String) whileClosing.getDetails().get("reason")).startsWith("the application context is closing")
			.contains("executor '" + RAM + "' refuses new deferred calls");
		// Closed to deferred calls at their phase, freed only when the context destroys them.
		assertThat(whileClosing.getDetails().get("executors")).isEqualTo(Map.of(RAM, "CLOSING", VRAM, "CLOSING"));
	}

	/**
	 * A health check that began before the close and reads the executors after the close closed them to
	 * deferred calls (an HTTP check in flight with {@code server.shutdown=immediate}, whose web server still serves
	 * while the lifecycles stop; a read over JMX): the check must see the close, not report the planned
	 * shutdown as a DOWN, which fails a load balancer's or Kubernetes' probe for no fault. The check waits in
	 * its device listing, which comes before it reads the executors, until a lifecycle that stops right
	 * after the executors' (so with every bean still there) lets it go on.
	 */
	@Test
	void aCheckThatBeganBeforeTheCloseAndReadsTheExecutorsAfterItClosedThemIsOutOfServiceNotDown() throws Exception {
		CountDownLatch checking = new CountDownLatch(1);
		CountDownLatch executorsClosed = new CountDownLatch(1);
		CountDownLatch checked = new CountDownLatch(1);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			this.contextRunner.withBean(ClosedSignal.class, () -> new ClosedSignal(executorsClosed, checked))
				.run((context) -> {
					ConfigurableApplicationContext application = context.getSourceApplicationContext();
					UformHealthIndicator indicator = new UformHealthIndicator(application, () -> {
						checking.countDown();
						await(executorsClosed, "the executors' lifecycle to stop");
						return Uform.gpuDevices();
					}, Uform::gpuReadings);
					Future<Health> health = threads.submit(() -> indicator.health());
					await(checking, "the check to begin");
					Future<?> closing = threads.submit(application::close);
					Health seen = health.get(30, TimeUnit.SECONDS);
					checked.countDown();
					closing.get(30, TimeUnit.SECONDS);
					assertThat(seen.getDetails().get("executors")).isEqualTo(Map.of(RAM, "CLOSING", VRAM, "CLOSING"));
					assertThat(seen.getStatus()).as("health of a check the close overtook; details: %s", seen.getDetails())
						.isEqualTo(Status.OUT_OF_SERVICE);
					assertThat((String) seen.getDetails().get("reason")).startsWith("the application context is closing");
				});
		}
		finally {
			checked.countDown();
			executorsClosed.countDown();
			threads.shutdownNow();
		}
	}

	private static void await(CountDownLatch latch, String what) {
		try {
			if (!latch.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("waited 30 s for " + what);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while waiting for " + what, ex);
		}
	}

	@Test
	void aStoppedContextKeepsItsExecutorsSoItIsUpAgainOnceStarted() {
		this.contextRunner.run((context) -> {
			UformHealthIndicator indicator = context.getBean(UformHealthIndicator.class);
			context.stop();
			assertThat(context.getBean(RAM, Executor.class).statistics().state()).isEqualTo(Executor.State.RUNNING);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			context.start();
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void aMeshLeftOnStopIsOutOfServiceWhileStoppedAndDownOnceStartedAgain() {
		this.contextRunner.withPropertyValues("uform.mesh.host-domain-count=1").run((context) -> {
			UformHealthIndicator indicator = context.getBean(UformHealthIndicator.class);
			context.stop();
			Health stopped = indicator.health();
			assertThat(stopped.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
			assertThat((String) stopped.getDetails().get("reason")).startsWith("the application context is stopped")
				.contains("left its run");
			context.start();
			// A mesh is joined once per run: started again, the application has left its run.
			assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
		});
	}

	@Test
	void aChildContextClosingDoesNotCountAsThisOneClosing() {
		this.contextRunner.run((context) -> {
			AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext();
			child.setParent(context.getSourceApplicationContext());
			child.refresh();
			child.close();
			context.getBean(RAM, Executor.class).free();
			assertThat(context.getBean(UformHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
		});
	}

	/**
	 * Records the indicator's health when it stops, which is after the executors' lifecycle (lifecycles
	 * stop from the highest phase down) and before the beans are destroyed.
	 */
	static final class HealthProbe implements SmartLifecycle {

		private final AtomicReference<Health> seen;

		volatile UformHealthIndicator indicator;

		private volatile boolean running;

		HealthProbe(AtomicReference<Health> seen) {
			this.seen = seen;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			UformHealthIndicator watched = this.indicator;
			if (watched != null) {
				this.seen.set(watched.health());
			}
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return UformExecutorLifecycle.PHASE - 1;
		}
	}

	/**
	 * Stops right after the executors' lifecycle (lifecycles stop from the highest phase down): says so,
	 * then holds the close until the test's health check is done, so that every bean still exists.
	 */
	static final class ClosedSignal implements SmartLifecycle {

		private final CountDownLatch executorsClosed;

		private final CountDownLatch checked;

		private volatile boolean running;

		ClosedSignal(CountDownLatch executorsClosed, CountDownLatch checked) {
			this.executorsClosed = executorsClosed;
			this.checked = checked;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			this.executorsClosed.countDown();
			await(this.checked, "the health check to finish");
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return UformExecutorLifecycle.PHASE - 1;
		}
	}
}
