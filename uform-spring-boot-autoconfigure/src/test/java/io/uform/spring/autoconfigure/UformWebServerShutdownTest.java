package io.uform.spring.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.uform.Executor;
import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Closing a real application (embedded Tomcat on a random port, every auto-configuration on the class
 * path, both uform executors on this module's two simulated devices) while it works: a request that
 * is using an executor when shutdown begins still completes, because the executors are freed only
 * after the web server's graceful shutdown has let it finish; a deferred call that never returns
 * delays the close by at most {@code uform.shutdown.await-termination-period} and is named in a WARN;
 * and once the context is closed no thread an executor owned is left.
 *
 * <p>Each test starts its own application with {@link SpringApplicationBuilder} so that it decides
 * when, and on which thread, the context closes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformWebServerShutdownTest {

	/** Longest wait for something the test itself set in motion; a broken build fails, not hangs. */
	private static final Duration WAIT = Duration.ofSeconds(10);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final ExecutorService closer = Executors.newSingleThreadExecutor((task) -> new Thread(task, "test-closer"));

	@AfterEach
	void stopCloser() {
		this.closer.shutdownNow();
	}

	@Test
	void aRequestWaitingOnADeferredCallWhenShutdownBeginsCompletesWith200AndTheExecutorIsFreedAfterIt()
			throws Exception {
		requestInFlightDuringShutdownCompletes("/deferred?n=100", "deferred=100 sum=4950");
	}

	@Test
	void aRequestInsideAForkWhenShutdownBeginsCompletesWith200AndTheExecutorIsFreedAfterIt() throws Exception {
		requestInFlightDuringShutdownCompletes("/fork", "forked=2 then=deferred");
	}

	/**
	 * Sends a request whose handler blocks on {@link Gate#release} while it uses the RAM executor,
	 * closes the context on another thread once the request is inside, waits until the web server's
	 * graceful shutdown is draining it (the close has begun and reached the web server), checks that
	 * the executor is still running then, releases the handler, and checks the answer and that the
	 * executors end freed. The handler uses the executor again after the release, so an executor
	 * freed before the web server drained would turn the answer into a 500.
	 */
	private void requestInFlightDuringShutdownCompletes(String path, String expectedBody) throws Exception {
		ConfigurableApplicationContext context = start();
		Gate gate = context.getBean(Gate.class);
		Executor ram = context.getBean(Executor.class);
		Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
		WebServerGracefulShutdownLifecycle webServerDrain = context.getBean(WebServerGracefulShutdownLifecycle.class);
		Future<Long> closing = null;
		try {
			CompletableFuture<HttpResponse<String>> response = this.http.sendAsync(request(context, path),
					HttpResponse.BodyHandlers.ofString());
			assertThat(gate.entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the request reached the executor")
				.isTrue();
			closing = this.closer.submit(timed(context::close));
			awaitDraining(webServerDrain, closing, WAIT);
			assertThat(response).as("the request is still in flight while the web server drains").isNotDone();
			assertThat(ram.statistics().state()).as("the RAM executor while the web server drains")
				.isEqualTo(Executor.State.RUNNING);
			gate.release.countDown();
			HttpResponse<String> answer = response.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(answer.statusCode()).as("status of the request in flight; body: %s", answer.body()).isEqualTo(200);
			assertThat(answer.body()).isEqualTo(expectedBody);
			closing.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(ram.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThat(vram.statistics().state()).isEqualTo(Executor.State.FREED);
		}
		finally {
			gate.release.countDown();
			finishClosing(context, closing);
		}
	}

	@Test
	void aDeferredCallThatNeverReturnsDelaysTheCloseByAtMostTheAwaitTerminationPeriodAndIsNamed(
			CapturedOutput output) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		// The phase timeout is above the period, so it is the period that must bound the wait.
		ConfigurableApplicationContext context = start("uform.shutdown.await-termination-period=500ms",
				"spring.lifecycle.timeout-per-shutdown-phase=5s");
		Executor ram = context.getBean(Executor.class);
		try {
			StuckCall stuck = new StuckCall(release);
			ram.defer(stuck);
			assertThat(stuck.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			long millis = timed(context::close).call();
			assertThat(millis).as("close took (ms) with a stuck call and a 500 ms period").isBetween(500L, 1500L);
			assertThat(ram.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThat(output).contains("uform executor bean 'uformRamExecutor' was freed with work unfinished after "
					+ "uform.shutdown.await-termination-period (PT0.5S)")
				.contains("deferred call #1 (" + StuckCall.class.getName() + ")");
			assertThat(UformThreads.ownedBy(ram.name())).as("the stuck call's thread, until it returns")
				.contains("uform-" + ram.name() + "-deferred");
		}
		finally {
			release.countDown();
			context.close();
		}
		assertThat(UformThreads.awaitNoneOwnedBy(ram.name(), Duration.ofSeconds(5)))
			.as("threads of executor '%s' once its stuck call returned", ram.name())
			.isEmpty();
	}

	@Test
	void aShorterShutdownPhaseTimeoutBoundsTheWaitForAStuckCall(CapturedOutput output) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		ConfigurableApplicationContext context = start("uform.shutdown.await-termination-period=20s",
				"spring.lifecycle.timeout-per-shutdown-phase=1s");
		Executor ram = context.getBean(Executor.class);
		try {
			StuckCall stuck = new StuckCall(release);
			ram.defer(stuck);
			assertThat(stuck.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			long millis = timed(context::close).call();
			assertThat(millis).as("close took (ms) with a stuck call, a 20 s period and a 1 s phase timeout")
				.isBetween(1000L, 2000L);
			// Spring's phase timeout and the lifecycle's free(1 s) end at about the same moment, and the close
			// returns at the first: the free, on its own thread, may finish (and log) a moment later.
			eventually(() -> {
				assertThat(ram.statistics().state()).isEqualTo(Executor.State.FREED);
				assertThat(output).contains("uform executor bean 'uformRamExecutor' was freed with work unfinished");
			});
		}
		finally {
			release.countDown();
			context.close();
		}
	}

	// Spring's timeout-per-shutdown-phase bounds a whole phase, and both executors' lifecycles share
	// one phase: they must drain at the same time (stop(Runnable) frees on a thread of its own), not one
	// after the other, which took twice the phase timeout (about 4 s here, where 3 s is allowed).
	@Test
	void twoStuckExecutorsTogetherStayWithinOneShutdownPhaseTimeout() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		ConfigurableApplicationContext context = start("uform.shutdown.await-termination-period=20s",
				"spring.lifecycle.timeout-per-shutdown-phase=2s");
		try {
			for (Executor executor : new Executor[] { context.getBean(Executor.class),
					context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class) }) {
				StuckCall stuck = new StuckCall(release);
				executor.defer(stuck);
				assertThat(stuck.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			}
			long millis = timed(context::close).call();
			assertThat(millis).as("close took (ms) with two stuck executors and a 2 s phase timeout")
				.isBetween(2000L, 3000L);
		}
		finally {
			release.countDown();
			context.close();
		}
	}

	@Test
	void aStuckVramCallGivesItsDeviceMemoryBackWhenItFinallyReturns(CapturedOutput output) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		ConfigurableApplicationContext context = start("uform.shutdown.await-termination-period=300ms",
				"uform.vram.devices=1");
		long before = SimulatedRuntime.system().usedBytes(1);
		Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
		try {
			vram.lanes().get(0).reserve(4 << 20);
			StuckCall stuck = new StuckCall(release);
			vram.defer(stuck);
			assertThat(stuck.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			long millis = timed(context::close).call();
			assertThat(millis).as("close took (ms) with a stuck VRAM call and a 300 ms period").isBetween(300L, 1300L);
			assertThat(output).contains("uform executor bean 'uformVramExecutor' was freed with work unfinished");
			// The stuck call may still touch the device, so its memory is held until the call returns.
			assertThat(SimulatedRuntime.system().usedBytes(1)).isGreaterThan(before);
		}
		finally {
			release.countDown();
			context.close();
		}
		assertThat(UformThreads.awaitNoneOwnedBy(vram.name(), Duration.ofSeconds(5))).isEmpty();
		assertThat(SimulatedRuntime.system().usedBytes(1)).as("device 1 memory once the stuck call returned")
			.isEqualTo(before);
	}

	@Test
	void afterCloseNoUformThreadIsAlive() throws Exception {
		ConfigurableApplicationContext context = start();
		Executor ram = context.getBean(Executor.class);
		Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
		try {
			Gate gate = context.getBean(Gate.class);
			gate.release.countDown();
			assertThat(this.http.send(request(context, "/fork"), HttpResponse.BodyHandlers.ofString()).body())
				.isEqualTo("forked=2 then=deferred");
			vram.forDevices((lane) -> lane.reserve(1 << 20).close());
			vram.defer(() -> 1).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(UformThreads.ownedBy(ram.name())).as("threads of the running RAM executor").isNotEmpty();
			assertThat(UformThreads.ownedBy(vram.name())).as("threads of the running VRAM executor").isNotEmpty();
		}
		finally {
			context.close();
		}
		// Joined threads are gone when free() returns; the short wait only absorbs scheduling.
		assertThat(UformThreads.awaitNoneOwnedBy(ram.name(), Duration.ofSeconds(2)))
			.as("threads of executor '%s' after close", ram.name())
			.isEmpty();
		assertThat(UformThreads.awaitNoneOwnedBy(vram.name(), Duration.ofSeconds(2)))
			.as("threads of executor '%s' after close", vram.name())
			.isEmpty();
		// No uform thread at all: any executor's, this test's or a leak of an earlier one (same JVM), and
		// the shared completion pool's, whose idle threads exit once no executor lives.
		assertThat(UformThreads.awaitNone(Duration.ofSeconds(5))).as("uform threads alive after close").isEmpty();
	}

	private ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(WebApp.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2")
			.properties(properties)
			.run();
	}

	/** A request to the started application, to be answered within 30 s. */
	static HttpRequest request(ConfigurableApplicationContext context, String path) {
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).build();
	}

	/**
	 * Waits until the web server's graceful shutdown has begun (its lifecycle is stopped first thing
	 * when it starts draining) while the close is still going on. If something in a higher phase
	 * holds the close up, for example an executor freed before the web server drains and waiting for
	 * the very request the web server would drain, this never happens.
	 */
	static void awaitDraining(WebServerGracefulShutdownLifecycle webServerDrain, Future<?> closing, Duration wait)
			throws InterruptedException {
		long deadline = System.nanoTime() + wait.toNanos();
		while (webServerDrain.isRunning()) {
			if (closing.isDone()) {
				fail("the context closed before the web server's graceful shutdown began");
			}
			if (System.nanoTime() - deadline > 0) {
				fail("the web server's graceful shutdown did not begin within " + wait + " of the close while a request "
						+ "was in flight: a lifecycle stopped before it is waiting (is UformExecutorLifecycle's phase above "
						+ "the web server's graceful-shutdown phase?)");
			}
			TimeUnit.MILLISECONDS.sleep(10);
		}
	}

	private static void finishClosing(ConfigurableApplicationContext context, Future<Long> closing) throws Exception {
		if (closing != null) {
			closing.get(60, TimeUnit.SECONDS);
		}
		else {
			context.close();
		}
	}

	/** Retries an assertion for up to {@link #WAIT}, for what another thread finishes a moment later. */
	private static void eventually(Runnable assertion) throws InterruptedException {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (true) {
			try {
				assertion.run();
				return;
			}
			catch (AssertionError ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				Thread.sleep(10);
			}
		}
	}

	private static Callable<Long> timed(Runnable action) {
		return () -> {
			long start = System.nanoTime();
			action.run();
			return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		};
	}

	/** Where handlers wait until the test lets them go, and tell the test they got there. */
	static final class Gate {

		final CountDownLatch entered;

		final CountDownLatch release = new CountDownLatch(1);

		/** @param handlers how many handlers must enter before {@link #entered} opens */
		Gate(int handlers) {
			this.entered = new CountDownLatch(handlers);
		}

		void enterAndWait() {
			this.entered.countDown();
			try {
				if (!this.release.await(60, TimeUnit.SECONDS)) {
					throw new IllegalStateException("the test never released the handler");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	/**
	 * A deferred call that ignores interrupts until released: a named class, so the WARN can name it.
	 */
	static final class StuckCall implements Callable<Void> {

		final CountDownLatch started = new CountDownLatch(1);

		private final CountDownLatch release;

		StuckCall(CountDownLatch release) {
			this.release = release;
		}

		@Override
		public Void call() {
			this.started.countDown();
			while (true) {
				try {
					this.release.await();
					return null;
				}
				catch (InterruptedException ex) {
					// Stuck means stuck.
				}
			}
		}
	}

	/** Handlers that use the RAM executor, block on the gate in the middle, and use it again after. */
	@RestController
	static class WorkController {

		private final Executor executor;

		private final Gate gate;

		WorkController(@Qualifier(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME) Executor executor, Gate gate) {
			this.executor = executor;
			this.gate = gate;
		}

		/** Waits for a deferred call that blocks on the gate, then forks over {@code n}. */
		@GetMapping("/deferred")
		String deferred(@RequestParam int n) throws Exception {
			int value = this.executor.defer(() -> {
				this.gate.enterAndWait();
				return n;
			}).get();
			AtomicLong sum = new AtomicLong();
			this.executor.forN(n, (int index) -> sum.addAndGet(index));
			return "deferred=" + value + " sum=" + sum;
		}

		/** Forks over every thread, one of which blocks on the gate, then makes a deferred call. */
		@GetMapping("/fork")
		String fork() throws Exception {
			AtomicLong forked = new AtomicLong();
			this.executor.forN(this.executor.threads(), (int index) -> {
				if (index == 0) {
					this.gate.enterAndWait();
				}
				forked.incrementAndGet();
			});
			return "forked=" + forked + " then=" + this.executor.defer(() -> "deferred").get();
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(WorkController.class)
	static class WebApp {

		@Bean
		Gate gate() {
			return new Gate(1);
		}
	}
}
