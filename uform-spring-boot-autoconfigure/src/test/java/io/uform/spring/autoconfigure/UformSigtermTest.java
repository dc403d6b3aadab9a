package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM, as Kubernetes and {@code docker stop} end a pod: the JVM runs Spring Boot's shutdown hook,
 * which closes the context gracefully, and uform's own exit hook at the same time. The executors the
 * starter made are left to the context ({@link Executor#leaveExitToOwner()}), so their deferred calls
 * queued at the signal still run, and work that the web server's graceful shutdown lets finish can
 * still defer calls, exactly as when the context is closed by hand. A child JVM, since only a real
 * signal runs the JVM's shutdown hooks.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UformSigtermTest {

	@Test
	void sigtermDrainsTheExecutorsThroughTheContextInsteadOfDroppingTheirQueuedCalls() throws Exception {
		String output = ChildJvm.runAndTerminate(App.class, List.of("-Duform.devices.simulated=0"), App.READY, 60);
		assertThat(output).contains("slow call done", "queued call ran", "in-flight request deferred: answered")
			.doesNotContain("the JVM is exiting", "was freed; deferred calls can no longer be submitted")
			.doesNotContain("work unfinished");
	}

	/** The application: one RAM executor thread, a slow call running and a second one queued at SIGTERM. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(UformAutoConfiguration.class)
	static class App {

		static final String READY = "app ready: send SIGTERM";

		/**
		 * Stands for a request that the web server's graceful shutdown lets finish (same phase), and
		 * that defers a call meanwhile: it must be served, as the executors stop only after this phase.
		 */
		@Bean
		SmartLifecycle inFlightRequest(Executor ram) {
			return new SmartLifecycle() {

				private volatile boolean running;

				@Override
				public void start() {
					this.running = true;
				}

				@Override
				public void stop() {
					this.running = false;
					try {
						// Long enough for uform's exit hook, which runs at once, to have refused it.
						Thread.sleep(300);
						System.out.println("in-flight request deferred: " + ram.defer(() -> "answered").get(10, TimeUnit.SECONDS));
					}
					catch (Exception ex) {
						System.out.println("in-flight request failed: " + ex);
					}
				}

				@Override
				public boolean isRunning() {
					return this.running;
				}

				@Override
				public int getPhase() {
					// WebServerGracefulShutdownLifecycle's phase.
					return SmartLifecycle.DEFAULT_PHASE - 1024;
				}
			};
		}

		public static void main(String[] args) throws Exception {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
				.web(WebApplicationType.NONE)
				.properties("spring.main.banner-mode=off", "uform.ram.threads=1",
						"uform.shutdown.await-termination-period=20s")
				.run(args);
			Executor ram = context.getBean(Executor.class);
			ram.defer(() -> {
				Thread.sleep(1000);
				System.out.println("slow call done");
				return null;
			});
			CompletableFuture<Object> queued = ram.defer(() -> {
				System.out.println("queued call ran");
				return null;
			});
			queued.whenComplete((result, failure) -> {
				if (failure != null) {
					System.out.println("queued call failed: " + failure);
				}
			});
			System.out.println(READY);
			Thread.sleep(Duration.ofSeconds(60).toMillis());
		}
	}
}
