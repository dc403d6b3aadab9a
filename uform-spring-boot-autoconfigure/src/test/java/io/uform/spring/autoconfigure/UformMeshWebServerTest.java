package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.Executor;
import io.uform.ExecutorForVramConfig;
import io.uform.Mesh;
import io.uform.MeshOptions;
import io.uform.spring.autoconfigure.UformWebServerShutdownTest.Gate;
import io.uform.spring.autoconfigure.UformWebServerShutdownTest.WebApp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mesh beside a real web server (embedded Tomcat on 127.0.0.1): the port opens only once the run
 * has joined, so no request is served by a process whose peers are missing; and at close the process
 * leaves the run before the web server's graceful shutdown, so its peers see it go while its last
 * requests still finish. Process 0 of a run of two is the application; process 1 is a plain
 * {@link Mesh#bootstrap} on this module's other simulated device.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformMeshWebServerTest {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@TempDir
	Path directory;

	private final ExecutorService threads = Executors.newFixedThreadPool(2);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	@Test
	void theWebServerOpensOnlyOnceTheRunHasJoinedAndTheMeshLeavesBeforeTheGracefulShutdown() throws Exception {
		int port = freePort();
		Path job = this.directory.resolve("web-run");
		Future<ConfigurableApplicationContext> starting = this.threads.submit(() -> start(port));
		ConfigurableApplicationContext context = null;
		Executor peerExecutor = null;
		Mesh peer = null;
		try {
			awaitFile(job.resolve("member-0.properties"), starting);
			// Process 0 waits in its bootstrap for process 1: its web server must not accept yet.
			assertThatThrownBy(() -> connect(port)).as("a connection while the mesh waits for its peer")
				.isInstanceOf(ConnectException.class);
			assertThat(starting).isNotDone();

			peerExecutor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(1)));
			Executor peerVram = peerExecutor;
			CompletableFuture<Mesh> joining = CompletableFuture.supplyAsync(() -> Mesh.bootstrap(peerVram,
					new MeshOptions(1, 2, null, this.directory, "web-run", Duration.ofSeconds(30))), this.threads);
			context = starting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			peer = joining.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(context.getBean(Mesh.class).describe().hostDomainCount()).isEqualTo(2);

			// Open now; a request holds a handler at the gate while the context closes.
			Gate gate = context.getBean(Gate.class);
			CompletableFuture<HttpResponse<String>> response = this.http.sendAsync(
					UformWebServerShutdownTest.request(context, "/deferred?n=10"), HttpResponse.BodyHandlers.ofString());
			assertThat(gate.entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			ConfigurableApplicationContext closingContext = context;
			Future<?> closing = this.threads.submit(closingContext::close);
			UformWebServerShutdownTest.awaitDraining(context.getBean(WebServerGracefulShutdownLifecycle.class),
					closing, WAIT);
			// The web server drains the request; process 0 has already left the run.
			assertThat(job.resolve("left-0.properties")).as("process 0's leave, while its web server drains").exists();
			assertThat(response).isNotDone();
			gate.release.countDown();
			assertThat(response.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).statusCode()).isEqualTo(200);
			closing.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			context = null;
		}
		finally {
			if (context != null) {
				context.getBean(Gate.class).release.countDown();
				context.close();
			}
			if (peer != null) {
				peer.free();
			}
			if (peerExecutor != null) {
				peerExecutor.free();
			}
			if (!starting.isDone()) {
				starting.cancel(true);
			}
		}
		assertThat(job).as("the job directory once both left").doesNotExist();
	}

	private ConfigurableApplicationContext start(int port) {
		return new SpringApplicationBuilder(WebApp.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=" + port, "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"uform.ram.threads=2", "uform.vram.devices=0", "uform.mesh.host-domain-index=0",
					"uform.mesh.host-domain-count=2", "uform.mesh.directory=" + this.directory, "uform.mesh.job=web-run",
					"uform.mesh.timeout=30s")
			.run();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static void connect(int port) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
		}
	}

	private static void awaitFile(Path file, Future<?> starting) throws Exception {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (!Files.exists(file)) {
			if (starting.isDone()) {
				starting.get();
				throw new AssertionError("the application started without waiting for its peer");
			}
			assertThat(System.nanoTime() - deadline).as("%s within %s", file, WAIT).isNegative();
			Thread.sleep(10);
		}
	}
}
