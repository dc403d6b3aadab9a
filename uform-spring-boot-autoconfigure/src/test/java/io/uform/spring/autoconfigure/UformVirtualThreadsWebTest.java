package io.uform.spring.autoconfigure;

import java.lang.reflect.Method;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.uform.Executor;
import io.uform.spring.autoconfigure.UformWebServerShutdownTest.Gate;

import static io.uform.spring.autoconfigure.UformWebServerShutdownTest.awaitDraining;
import static io.uform.spring.autoconfigure.UformWebServerShutdownTest.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A real application with {@code spring.threads.virtual.enabled=true}, as many Boot 4 applications
 * run: embedded Tomcat serves every request on a virtual thread of its own, and those threads are the
 * callers of uform's forks and deferred calls. The RAM executor has 2 threads, and the JVM has as many
 * carrier threads as processors (2 on CI), so hundreds of virtual callers share two carriers with
 * the executor's own worker.
 *
 * <ul>
 * <li>Hundreds of requests forking and deferring at once all answer, each with its own right sum: a
 * caller that spins on a carrier while it waits for the fork lock, or holds the lock while parked,
 * would starve the others (the test's timeout fails it), and a fork that mixed two callers' tasks would
 * give wrong sums. JFR records no {@code jdk.VirtualThreadPinned} event with a uform frame: on JDK
 * 21-23 a {@code synchronized} block on the fork or defer path would show up here.</li>
 * <li>Requests in flight on virtual threads when the context closes (waiting to fork, inside a
 * deferred call, inside a fork) all complete with 200 before the executors are freed, and no thread
 * an executor owned is left after the close.</li>
 * </ul>
 * Skipped, with the reason, on JDK 17 (virtual threads need 21+).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UformVirtualThreadsWebTest {

	/** Longest wait for something the test itself set in motion; a broken build fails, not hangs. */
	private static final Duration WAIT = Duration.ofSeconds(30);

	/** Requests sent at once: far more than the carriers and the executor's threads together. */
	private static final int REQUESTS = 400;

	/** Threads that send them: the JDK client blocks one per request in {@code send}. */
	private static final int SENDERS = 32;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ExecutorService senders;

	private ExecutorService closer;

	@BeforeEach
	void virtualThreadsExist() {
		assumeTrue(Runtime.version().feature() >= 21,
				() -> "spring.threads.virtual.enabled needs JDK 21+; this is JDK " + Runtime.version().feature());
		// Threads of their own: the common pool may have one thread on a 2-core machine.
		this.senders = Executors.newFixedThreadPool(SENDERS);
		this.closer = Executors.newSingleThreadExecutor((task) -> new Thread(task, "test-closer"));
	}

	@AfterEach
	void stopThreads() {
		if (this.senders != null) {
			this.senders.shutdownNow();
			this.closer.shutdownNow();
		}
	}

	@Test
	void hundredsOfVirtualThreadRequestsForkAndDeferAtOnceWithTheirOwnResultsAndNoCarrierPinnedInUform()
			throws Exception {
		ConfigurableApplicationContext context = start();
		Executor ram = context.getBean(Executor.class);
		Path events = Files.createTempFile("uform-pinned", ".jfr");
		try (Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withoutThreshold().withStackTrace();
			recording.start();
			long forksBefore = ram.statistics().forks();
			List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
			for (int i = 0; i < REQUESTS; i++) {
				// Half fork on the request's own (virtual) thread, half fork inside a deferred call.
				String path = ((i % 2 == 0) ? "/fork?n=" : "/deferred?n=") + n(i);
				answers.add(CompletableFuture.supplyAsync(() -> send(context, path), this.senders));
			}
			for (int i = 0; i < REQUESTS; i++) {
				HttpResponse<String> answer = answers.get(i).get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
				assertThat(answer.statusCode()).as("request %d; body: %s", i, answer.body()).isEqualTo(200);
				long n = n(i);
				assertThat(answer.body()).as("request %d", i).isEqualTo("virtual=true sum=" + (n * (n - 1) / 2));
			}
			recording.stop();
			recording.dump(events);
			assertThat(ram.statistics().forks() - forksBefore).as("forks run").isEqualTo(REQUESTS);
			List<String> pinnedInUform = new ArrayList<>();
			for (RecordedEvent event : RecordingFile.readAllEvents(events)) {
				String stack = String.valueOf(event.getStackTrace());
				if (stack.contains("io.uform")) {
					pinnedInUform.add(stack);
				}
			}
			assertThat(pinnedInUform).as("virtual threads pinned to their carrier inside uform").isEmpty();
		}
		finally {
			context.close();
			Files.deleteIfExists(events);
		}
		assertThat(UformThreads.awaitNoneOwnedBy(ram.name(), Duration.ofSeconds(5)))
			.as("threads of executor '%s' after close", ram.name())
			.isEmpty();
	}

	/**
	 * {@value #WAITING} requests wait at the gate before they fork and defer, one waits inside a
	 * deferred call and one inside a fork, all on virtual threads, when the context begins to close;
	 * the web server's graceful shutdown must let every one finish on running executors.
	 */
	@Test
	void requestsInFlightOnVirtualThreadsWhenShutdownBeginsAllCompleteBeforeTheExecutorsAreFreed() throws Exception {
		ConfigurableApplicationContext context = start();
		Gate gate = context.getBean(Gate.class);
		Executor ram = context.getBean(Executor.class);
		Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
		WebServerGracefulShutdownLifecycle webServerDrain = context.getBean(WebServerGracefulShutdownLifecycle.class);
		Future<?> closing = null;
		try {
			List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
			List<String> expected = new ArrayList<>();
			for (int i = 0; i < WAITING; i++) {
				answers.add(sendAsync(context, "/gated?n=" + n(i)));
				expected.add("virtual=true sum=" + (n(i) * (n(i) - 1) / 2));
			}
			answers.add(sendAsync(context, "/gated-in-deferred?n=10"));
			expected.add("virtual=true sum=45");
			answers.add(sendAsync(context, "/gated-in-fork"));
			expected.add("virtual=true forked=" + ram.threads());
			assertThat(gate.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS))
				.as("every request reached the gate (%d of %d still out)", gate.entered.getCount(), answers.size())
				.isTrue();
			closing = this.closer.submit(context::close);
			awaitDraining(webServerDrain, closing, WAIT);
			assertThat(answers).as("requests in flight while the web server drains").noneMatch(CompletableFuture::isDone);
			assertThat(ram.statistics().state()).as("the RAM executor while the web server drains")
				.isEqualTo(Executor.State.RUNNING);
			gate.release.countDown();
			for (int i = 0; i < answers.size(); i++) {
				HttpResponse<String> answer = answers.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
				assertThat(answer.statusCode()).as("request %d in flight at shutdown; body: %s", i, answer.body())
					.isEqualTo(200);
				assertThat(answer.body()).as("request %d in flight at shutdown", i).isEqualTo(expected.get(i));
			}
			closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
			assertThat(ram.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThat(vram.statistics().state()).isEqualTo(Executor.State.FREED);
		}
		finally {
			gate.release.countDown();
			if (closing != null) {
				closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
			}
			context.close();
		}
		assertThat(UformThreads.awaitNone(Duration.ofSeconds(5)))
			.as("uform threads alive after close").isEmpty();
	}

	/** Requests that wait at the gate before they use the executor. */
	private static final int WAITING = 32;

	private static long n(int request) {
		return 1000 + request;
	}

	/** Sends on the client's own threads: the requests stay in flight together, whatever {@link #SENDERS} is. */
	private CompletableFuture<HttpResponse<String>> sendAsync(ConfigurableApplicationContext context, String path) {
		return this.http.sendAsync(request(context, path), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> send(ConfigurableApplicationContext context, String path) {
		try {
			return this.http.send(request(context, path), HttpResponse.BodyHandlers.ofString());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while sending " + path, ex);
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException("sending " + path + " failed", ex);
		}
	}

	private static ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(WebApp.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2", "spring.threads.virtual.enabled=true",
					// Tomcat's accept queue and connection limit stay well above the requests sent at once.
					"server.tomcat.accept-count=" + (REQUESTS + 100))
			.run();
	}

	/** {@code Thread.isVirtual()}, which the Java 17 build cannot call directly; runs only on 21+. */
	static boolean isVirtual(Thread thread) {
		try {
			Method method = Thread.class.getMethod("isVirtual");
			return (boolean) method.invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Thread.isVirtual() is missing on JDK " + Runtime.version(), ex);
		}
	}

	/** Handlers that fork and defer on the RAM executor from the request's thread. */
	@RestController
	static class WorkController {

		private final Executor executor;

		private final Gate gate;

		WorkController(@Qualifier(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME) Executor executor, Gate gate) {
			this.executor = executor;
			this.gate = gate;
		}

		/** Forks over {@code n} on the request's thread, then adds a deferred call's 0. */
		@GetMapping("/fork")
		String fork(@RequestParam int n) throws Exception {
			boolean virtual = isVirtual(Thread.currentThread());
			AtomicLong sum = new AtomicLong();
			this.executor.forNDynamic(n, (int index) -> sum.addAndGet(index));
			long zero = this.executor.defer(() -> 0L).get();
			return "virtual=" + virtual + " sum=" + (sum.get() + zero);
		}

		/** Forks over {@code n} inside a deferred call, which the request's thread waits for. */
		@GetMapping("/deferred")
		String deferred(@RequestParam int n) throws Exception {
			boolean virtual = isVirtual(Thread.currentThread());
			long sum = this.executor.defer(() -> sum(n)).get();
			return "virtual=" + virtual + " sum=" + sum;
		}

		/** Waits at the gate, then does what {@code /fork} does. */
		@GetMapping("/gated")
		String gated(@RequestParam int n) throws Exception {
			this.gate.enterAndWait();
			return fork(n);
		}

		/** Waits at the gate inside a deferred call, then forks in it. */
		@GetMapping("/gated-in-deferred")
		String gatedInDeferred(@RequestParam int n) throws Exception {
			boolean virtual = isVirtual(Thread.currentThread());
			long sum = this.executor.defer(() -> {
				this.gate.enterAndWait();
				return sum(n);
			}).get();
			return "virtual=" + virtual + " sum=" + sum;
		}

		/** Waits at the gate inside a fork, then makes a deferred call. */
		@GetMapping("/gated-in-fork")
		String gatedInFork() throws Exception {
			boolean virtual = isVirtual(Thread.currentThread());
			AtomicLong forked = new AtomicLong();
			this.executor.forN(this.executor.threads(), (int index) -> {
				if (index == 0) {
					this.gate.enterAndWait();
				}
				forked.incrementAndGet();
			});
			this.executor.defer(() -> null).get();
			return "virtual=" + virtual + " forked=" + forked;
		}

		private long sum(int n) {
			AtomicLong sum = new AtomicLong();
			this.executor.forN(n, (int index) -> sum.addAndGet(index));
			return sum.get();
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(WorkController.class)
	static class WebApp {

		@Bean
		Gate gate() {
			return new Gate(WAITING + 2);
		}
	}
}
