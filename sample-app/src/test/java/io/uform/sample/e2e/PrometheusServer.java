package io.uform.sample.e2e;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real Prometheus server, run as a child process for one test: on a free port of 127.0.0.1, with
 * its own temporary storage and a generated configuration that scrapes one target every second. It
 * answers PromQL through its HTTP API, the same API Grafana asks. {@link #close()} stops the process
 * through its own handle (never by name: another Prometheus on the machine is none of this test's
 * business) and deletes the directory.
 */
final class PrometheusServer implements AutoCloseable {

	/** The scrape job, so queries can pick this test's target out of {@code up}. */
	static final String JOB = "uform-sample";

	/** Where Debian's package puts it when it is not on the PATH of the JVM running the tests. */
	private static final Path USUAL_BINARY = Path.of("/usr/bin/prometheus");

	private static final Duration POLL = Duration.ofMillis(200);

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

	private final Process process;

	private final Path directory;

	private final Path log;

	private final URI base;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();

	private final JsonMapper json = JsonMapper.builder().build();

	/** Stops the process if the JVM exits without {@link #close()} (a killed test run), not to leave it behind. */
	private final Thread shutdownHook;

	private PrometheusServer(Process process, Path directory, Path log, URI base) {
		this.process = process;
		this.directory = directory;
		this.log = log;
		this.base = base;
		this.shutdownHook = new Thread(process::destroyForcibly, "prometheus-" + process.pid() + "-stopper");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Finds the {@code prometheus} executable: the first on the PATH, else Debian's.
	 * @return its path, or empty when it is not installed
	 */
	static Optional<Path> locate() {
		String path = System.getenv("PATH");
		Stream<Path> onPath = (path != null) ? Stream.of(path.split(File.pathSeparator))
			.filter((dir) -> !dir.isEmpty())
			.map((dir) -> Path.of(dir, "prometheus")) : Stream.empty();
		return Stream.concat(onPath, Stream.of(USUAL_BINARY))
			.filter((candidate) -> Files.isRegularFile(candidate) && Files.isExecutable(candidate))
			.findFirst();
	}

	/**
	 * Starts Prometheus scraping one target. Returns as soon as the process is started: see
	 * {@link #awaitReady(Duration)}.
	 * @param binary the executable
	 * @param targetPort the port on 127.0.0.1 that serves {@code /actuator/prometheus}
	 * @param log the file that takes the process's output
	 * @return the running server
	 * @throws IOException when the directory, the configuration or the process cannot be made
	 */
	static PrometheusServer start(Path binary, int targetPort, Path log) throws IOException {
		Path directory = Files.createTempDirectory("uform-e2e-prometheus-");
		try {
			Path config = directory.resolve("prometheus.yml");
			Files.writeString(config, configuration(targetPort));
			Files.createDirectories(log.toAbsolutePath().getParent());
			int port = freePort();
			Process process = new ProcessBuilder(binary.toString(), "--config.file=" + config,
					"--storage.tsdb.path=" + directory.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
				.redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			return new PrometheusServer(process, directory, log, URI.create("http://127.0.0.1:" + port));
		}
		catch (IOException | RuntimeException ex) {
			deleteRecursively(directory);
			throw ex;
		}
	}

	/**
	 * One job that scrapes the application every second, so that a test of a few seconds holds enough
	 * samples for {@code rate()} over 10 s. The timeout must not exceed the interval (Prometheus
	 * refuses such a configuration), and the global default is 10 s.
	 */
	private static String configuration(int targetPort) {
		return """
				global:
				  scrape_interval: 1s
				  scrape_timeout: 1s
				  evaluation_interval: 1s
				scrape_configs:
				  - job_name: %s
				    scrape_interval: 1s
				    scrape_timeout: 1s
				    metrics_path: /actuator/prometheus
				    static_configs:
				      - targets: ['127.0.0.1:%d']
				""".formatted(JOB, targetPort);
	}

	/**
	 * A port that was free a moment ago. Prometheus has no "pick a port" option; another process taking
	 * the port in between shows as Prometheus exiting, with its log saying so.
	 */
	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/**
	 * Waits until Prometheus answers {@code /-/ready}: it has opened its storage and read its
	 * configuration.
	 * @param timeout how long to wait
	 * @throws InterruptedException when the test is stopped meanwhile
	 */
	void awaitReady(Duration timeout) throws InterruptedException {
		Instant deadline = Instant.now().plus(timeout);
		while (true) {
			checkAlive();
			try {
				HttpResponse<String> response = this.http.send(
						HttpRequest.newBuilder(this.base.resolve("/-/ready")).timeout(REQUEST_TIMEOUT).build(),
						HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() == 200) {
					return;
				}
			}
			catch (ConnectException ex) {
				// Not listening yet.
			}
			catch (IOException ex) {
				throw new UncheckedIOException("asking " + this.base + "/-/ready failed", ex);
			}
			pause(deadline, "Prometheus to answer /-/ready");
		}
	}

	/**
	 * Waits until the target's last scrape succeeded ({@code up} is 1).
	 * @param timeout how long to wait
	 * @throws InterruptedException when the test is stopped meanwhile
	 */
	void awaitTargetUp(Duration timeout) throws InterruptedException {
		Instant deadline = Instant.now().plus(timeout);
		String up = "up{job=\"" + JOB + "\"}";
		while (true) {
			checkAlive();
			QueryResult result = query(up, null);
			if (result.samples().stream().anyMatch((sample) -> sample.value() == 1)) {
				return;
			}
			pause(deadline,
					"target " + up + " to be 1 (last answer: " + result.describe() + "; " + targetHealth() + ")");
		}
	}

	/** What Prometheus says of the job's target: why a scrape failed, such as a 404 where nothing serves the path. */
	private String targetHealth() {
		for (JsonNode target : get("/api/v1/targets?state=active").path("data").path("activeTargets")) {
			if (JOB.equals(target.path("labels").path("job").asString(""))) {
				return "target " + target.path("scrapeUrl").asString("") + " is " + target.path("health").asString("")
						+ ", last error: " + target.path("lastError").asString("");
			}
		}
		return "Prometheus lists no target of job " + JOB;
	}

	/**
	 * Waits until Prometheus holds a number of scrapes of the target taken after an instant.
	 * @param since the instant
	 * @param count how many scrapes
	 * @param timeout how long to wait
	 * @throws InterruptedException when the test is stopped meanwhile
	 */
	void awaitScrapes(Instant since, int count, Duration timeout) throws InterruptedException {
		Instant deadline = Instant.now().plus(timeout);
		while (true) {
			checkAlive();
			long window = Math.max(1, Duration.between(since, Instant.now()).toMillis());
			String expression = "count_over_time(up{job=\"" + JOB + "\"}[" + window + "ms])";
			QueryResult result = query(expression, null);
			if (result.samples().stream().anyMatch((sample) -> sample.value() >= count)) {
				return;
			}
			pause(deadline, count + " scrapes since " + since + " (" + expression + ": " + result.describe() + ")");
		}
	}

	/**
	 * Evaluates an instant query, as a Grafana panel does.
	 * @param expression PromQL
	 * @param time the evaluation instant, or {@code null} for Prometheus' now
	 * @return what Prometheus answered, an error included
	 */
	QueryResult query(String expression, Instant time) {
		String form = "query=" + encode(expression)
				+ ((time != null) ? "&time=" + BigDecimal.valueOf(time.toEpochMilli(), 3).toPlainString() : "");
		return QueryResult.from(post("/api/v1/query", form));
	}

	/**
	 * The values of a label across the series a selector matches: what Grafana's
	 * {@code label_values(selector, label)} variable query lists.
	 * @param selector a series selector such as {@code up{job="x"}}
	 * @param label the label
	 * @return its values, sorted (as Grafana's Prometheus data source lists them); empty when no
	 *         series matches
	 * @throws IllegalArgumentException when Prometheus refuses the selector, with its reason
	 */
	SortedSet<String> labelValues(String selector, String label) {
		JsonNode body = post("/api/v1/series", "match[]=" + encode(selector));
		if (!"success".equals(body.path("status").asString(""))) {
			throw new IllegalArgumentException(
					body.path("errorType").asString("") + ": " + body.path("error").asString(""));
		}
		SortedSet<String> values = new TreeSet<>();
		for (JsonNode series : body.path("data")) {
			JsonNode value = series.path(label);
			if (value.isString()) {
				values.add(value.stringValue());
			}
		}
		return values;
	}

	private JsonNode get(String path) {
		return send(HttpRequest.newBuilder(this.base.resolve(path)).timeout(REQUEST_TIMEOUT).build());
	}

	/** POST, form-encoded: no length limit on the query, and no URL-encoding of it into a path. */
	private JsonNode post(String path, String form) {
		return send(HttpRequest.newBuilder(this.base.resolve(path))
			.timeout(REQUEST_TIMEOUT)
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build());
	}

	private JsonNode send(HttpRequest request) {
		String path = request.method() + " " + request.uri();
		try {
			// A refused query is a 4xx with a JSON body that says why: read the body whatever the status.
			HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
			try {
				return this.json.readTree(response.body());
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException("Prometheus answered " + path + " with HTTP " + response.statusCode()
						+ " and no JSON: " + response.body(), ex);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while asking Prometheus", ex);
		}
	}

	private static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	private void checkAlive() {
		if (!this.process.isAlive()) {
			throw new IllegalStateException("Prometheus exited with status " + this.process.exitValue());
		}
	}

	private void pause(Instant deadline, String waitingFor) throws InterruptedException {
		if (Instant.now().isAfter(deadline)) {
			throw new IllegalStateException("timed out waiting for " + waitingFor);
		}
		Thread.sleep(POLL.toMillis());
	}

	/**
	 * The end of Prometheus' output, for a failed test: why it did not start, or what it said about
	 * its scrapes.
	 * @return a few lines, with a heading naming the whole file
	 */
	String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return "\n--- last lines of " + this.log.toAbsolutePath() + " ---\n"
					+ String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
		}
		catch (IOException | UncheckedIOException ex) {
			return "\n(Prometheus' log " + this.log.toAbsolutePath() + " could not be read: " + ex + ")";
		}
	}

	/**
	 * Stops the process, politely first (Prometheus closes its storage on SIGTERM), and deletes its
	 * directory. Waits even when the test thread was interrupted (a JUnit timeout), so that nothing
	 * is left running; the interrupt is kept for the caller.
	 */
	@Override
	public void close() {
		boolean interrupted = Thread.interrupted();
		try {
			this.process.destroy();
			if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
				if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
					throw new IllegalStateException("Prometheus (pid " + this.process.pid() + ") did not stop");
				}
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			interrupted = true;
		}
		finally {
			try {
				Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
			}
			catch (IllegalStateException ex) {
				// The JVM is shutting down already; the hook runs anyway and finds the process gone.
			}
			deleteRecursively(this.directory);
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static void deleteRecursively(Path directory) {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// Only a temporary directory: leaving it is not worth failing the test over.
		}
	}

	@Override
	public String toString() {
		return "Prometheus (pid " + this.process.pid() + ") at " + this.base;
	}
}
