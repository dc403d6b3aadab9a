import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Drives search traffic at the uform sample and prints throughput and latency percentiles per
 * engine. A single-file program (run with {@code java LoadClient.java}, JDK 17+, no dependencies), so
 * that it needs no build and no package from elsewhere.
 *
 * <p>Closed loop: {@code --concurrency} client threads each send a request, wait for the answer,
 * then send the next. Engines are measured in turn, interleaved over {@code --rounds} rounds, so a
 * shared machine's slow moments fall on every engine alike. Before any load, the engines must
 * return the same hits for the same queries (rows and scores; rows only where a GPU kernel scored,
 * whose float rounding differs from the host's), or the comparison would be of unequal work.
 */
public final class LoadClient {

	/** Longest wait for one search's answer: far above any search's latency, so only a stuck server meets it. */
	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

	/** The pseudo-engine that sends questions to {@code GET /search?q=}: embedding plus scan. */
	private static final String TEXT = "text";

	/** Questions the text engine cycles through, about this project's docs (the sample's default corpus). */
	private static final List<String> QUESTIONS = List.of("How do I set the number of threads?",
			"What happens when every deferred slot is taken?", "Which metric shows the device memory the scratch holds?",
			"How do I import the Grafana dashboards?", "What does the VRAM executor keep in scratch?",
			"How does the mesh find its hosts?", "Why does Java 25 warn about native access?",
			"How are the executors shut down?");

	private static final Pattern HITS = Pattern.compile("\"hits\":\\[(.*?)]");

	private static final Pattern ROW = Pattern.compile("\"row\":(\\d+)");

	private static final Pattern PATH = Pattern.compile("\"path\":\"([^\"]+)\"");

	public static void main(String[] args) throws Exception {
		Map<String, String> options = options(args);
		URI base = URI.create(options.getOrDefault("url", "http://127.0.0.1:8080"));
		Duration duration = duration(options, "duration", "20s");
		Duration warmup = duration(options, "warmup", "5s");
		int concurrency = Integer.parseInt(options.getOrDefault("concurrency", "4"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "4"));
		int k = Integer.parseInt(options.getOrDefault("k", "10"));
		List<String> engines = List.of(options.getOrDefault("engines", "ram,parallel-stream").split(","));
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

		Map<String, String> paths;
		try {
			paths = checkEqualResults(http, base, engines, k);
		}
		catch (ConnectException ex) {
			// The JDK's ConnectException has no message: say what is missing, and how to get it.
			System.err.println("LoadClient: nothing answers at " + base + ": start the sample app there first "
					+ "(java -jar sample-app/target/uform-sample-app-*.jar), or run load.sh with --start to start it");
			System.exit(1);
			return;
		}
		System.out.printf("%s: %s, %d client threads, %d rounds of %s per engine (after %s warm-up each), k=%d%n",
				base, paths, concurrency, rounds, duration.dividedBy(rounds), warmup, k);
		for (String engine : engines) {
			run(http, base, engine, k, concurrency, warmup, 1);
		}
		Map<String, Result> results = new LinkedHashMap<>();
		for (int round = 0; round < rounds; round++) {
			for (String engine : engines) {
				Result result = run(http, base, engine, k, concurrency, duration.dividedBy(rounds), round + 2);
				results.merge(engine, result, Result::plus);
				System.out.printf("  round %d %-16s %8.1f searches/s%n", round + 1, engine, result.throughput());
			}
		}
		System.out.printf("%n%-16s %12s %9s %9s %9s %9s %7s%n", "engine", "searches/s", "p50 ms", "p90 ms", "p99 ms",
				"max ms", "errors");
		for (Map.Entry<String, Result> entry : results.entrySet()) {
			Result r = entry.getValue();
			System.out.printf("%-16s %12.1f %9.2f %9.2f %9.2f %9.2f %7d%n", entry.getKey(), r.throughput(),
					r.percentileMillis(50), r.percentileMillis(90), r.percentileMillis(99), r.percentileMillis(100),
					r.errors);
		}
		Result first = results.get(engines.get(0));
		for (String other : engines.subList(1, engines.size())) {
			Result r = results.get(other);
			System.out.printf("%s vs %s: throughput x%.2f, p50 latency x%.2f, p99 latency x%.2f%n", engines.get(0), other,
					first.throughput() / r.throughput(), r.percentileMillis(50) / first.percentileMillis(50),
					r.percentileMillis(99) / first.percentileMillis(99));
		}
		long errors = results.values().stream().mapToLong((r) -> r.errors).sum();
		if (errors > 0) {
			System.err.println("LoadClient: " + errors + " requests failed (see the first error above)");
			System.exit(1);
		}
	}

	/** Runs one engine for a while from {@code concurrency} threads. */
	private static Result run(HttpClient http, URI base, String engine, int k, int concurrency, Duration duration,
			int seedBase) throws InterruptedException {
		long end = System.nanoTime() + duration.toNanos();
		List<long[]> latencies = new ArrayList<>();
		AtomicLong errors = new AtomicLong();
		Thread[] threads = new Thread[concurrency];
		long start = System.nanoTime();
		for (int t = 0; t < concurrency; t++) {
			long[][] mine = { new long[1024] };
			int[] count = { 0 };
			int thread = t;
			threads[t] = new Thread(() -> {
				long seed = ((long) seedBase << 40) + ((long) thread << 24);
				while (System.nanoTime() < end) {
					long sent = System.nanoTime();
					String error = search(http, base, engine, k, seed++);
					long took = System.nanoTime() - sent;
					if (error != null) {
						if (errors.getAndIncrement() == 0) {
							System.err.println("LoadClient: " + engine + ": " + error);
						}
						continue;
					}
					if (count[0] == mine[0].length) {
						mine[0] = Arrays.copyOf(mine[0], count[0] * 2);
					}
					mine[0][count[0]++] = took;
				}
				synchronized (latencies) {
					latencies.add(Arrays.copyOf(mine[0], count[0]));
				}
			}, "load-" + engine + "-" + t);
			threads[t].start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		long elapsed = System.nanoTime() - start;
		long[] all = latencies.stream().flatMapToLong(Arrays::stream).toArray();
		return new Result(all, elapsed, errors.get());
	}

	/** One search; returns null when it succeeded, else what went wrong. */
	private static String search(HttpClient http, URI base, String engine, int k, long seed) {
		try {
			HttpResponse<String> response = randomSearch(http, base, engine, k, seed);
			return (response.statusCode() == 200) ? null : "HTTP " + response.statusCode() + ": " + response.body();
		}
		catch (Exception ex) {
			return ex.toString();
		}
	}

	/** {@code GET /search/random} for one engine, k and seed; for {@code text}, a question by the seed. */
	private static HttpResponse<String> randomSearch(HttpClient http, URI base, String engine, int k, long seed)
			throws java.io.IOException, InterruptedException {
		String path = TEXT.equals(engine)
				? "/search?k=" + k + "&q=" + URLEncoder.encode(QUESTIONS.get((int) Math.floorMod(seed, (long) QUESTIONS.size())),
						StandardCharsets.UTF_8)
				: "/search/random?engine=" + engine + "&k=" + k + "&seed=" + seed;
		// Bounded, so that a stuck server ends the run (counted as errors) instead of hanging it.
		return http.send(HttpRequest.newBuilder(base.resolve(path))
			.timeout(REQUEST_TIMEOUT)
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** Every engine answers the same queries with the same hits; returns each engine's path. */
	private static Map<String, String> checkEqualResults(HttpClient http, URI base, List<String> engines, int k)
			throws Exception {
		Map<String, String> paths = new LinkedHashMap<>();
		for (long seed = 1; seed <= 5; seed++) {
			String referenceHits = null;
			String referenceEngine = null;
			for (String engine : engines) {
				HttpResponse<String> response = randomSearch(http, base, engine, k, seed);
				if (response.statusCode() != 200) {
					throw new IllegalStateException(engine + " answered HTTP " + response.statusCode() + ": " + response.body());
				}
				paths.put(engine, match(PATH, response.body()));
				String hits = match(HITS, response.body());
				if (TEXT.equals(engine)) {
					// Passages, not rows of the vectors: nothing to compare with the scan engines.
					continue;
				}
				if (referenceHits == null) {
					referenceHits = hits;
					referenceEngine = engine;
					continue;
				}
				// A GPU kernel's sums round differently from the host's: there, the same rows must come back.
				boolean kernel = "gpu-kernel".equals(paths.get(engine)) || "gpu-kernel".equals(paths.get(referenceEngine));
				boolean same = kernel ? rows(referenceHits).equals(rows(hits)) : referenceHits.equals(hits);
				if (!same) {
					throw new IllegalStateException("engines disagree on seed " + seed + ": " + referenceEngine + " found "
							+ referenceHits + ", " + engine + " found " + hits + "; their throughputs would not be comparable");
				}
			}
		}
		return paths;
	}

	private static String match(Pattern pattern, String body) {
		Matcher matcher = pattern.matcher(body);
		if (!matcher.find()) {
			throw new IllegalStateException("unexpected response (no " + pattern + "): " + body);
		}
		return matcher.group(1);
	}

	private static String rows(String hits) {
		List<String> rows = new ArrayList<>();
		Matcher matcher = ROW.matcher(hits);
		while (matcher.find()) {
			rows.add(matcher.group(1));
		}
		return rows.toString();
	}

	/** A duration option as written (20s, 1m, 1h; no unit-less numbers), or the usage and exit 2. */
	private static Duration duration(Map<String, String> options, String name, String otherwise) {
		String value = options.getOrDefault(name, otherwise);
		try {
			return Duration.parse("PT" + value.toUpperCase(Locale.ROOT));
		}
		catch (DateTimeParseException ex) {
			System.err.println("LoadClient: --" + name + "=" + value + " is not a duration: write it with its unit, like "
					+ otherwise + ", 90s or 2m");
			System.exit(2);
			return null;
		}
	}

	private static Map<String, String> options(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (String arg : args) {
			if (!arg.startsWith("--") || !arg.contains("=")) {
				System.err.println("usage: java LoadClient.java [--url=http://127.0.0.1:8080] [--duration=20s] "
						+ "[--warmup=5s] [--rounds=4] [--concurrency=4] [--k=10] [--engines=ram,parallel-stream|text]");
				System.exit(2);
			}
			options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
		}
		return options;
	}

	/** Latencies and counts of one engine, over one or more runs. */
	private static final class Result {

		private final long[] latencies;

		private final long elapsedNanos;

		private final long errors;

		Result(long[] latencies, long elapsedNanos, long errors) {
			this.latencies = latencies;
			Arrays.sort(this.latencies);
			this.elapsedNanos = elapsedNanos;
			this.errors = errors;
		}

		Result plus(Result other) {
			long[] both = Arrays.copyOf(this.latencies, this.latencies.length + other.latencies.length);
			System.arraycopy(other.latencies, 0, both, this.latencies.length, other.latencies.length);
			return new Result(both, this.elapsedNanos + other.elapsedNanos, this.errors + other.errors);
		}

		double throughput() {
			return this.latencies.length / (this.elapsedNanos / 1e9);
		}

		double percentileMillis(int percentile) {
			if (this.latencies.length == 0) {
				return Double.NaN;
			}
			int index = (int) Math.ceil(percentile / 100.0 * this.latencies.length) - 1;
			return this.latencies[Math.max(0, index)] / 1e6;
		}
	}
}
