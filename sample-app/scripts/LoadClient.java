import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

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
		if (engines.stream().anyMatch((engine) -> engine.startsWith(V1Load.PREFIX))) {
			V1Load.main(http, base, options, engines, duration, warmup, rounds);
			return;
		}

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
	static Duration duration(Map<String, String> options, String name, String otherwise) {
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

	static Map<String, String> options(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (String arg : args) {
			if (!arg.startsWith("--") || !arg.contains("=")) {
				System.err.println("usage: java LoadClient.java [--url=http://127.0.0.1:8080] [--duration=20s] "
						+ "[--warmup=5s] [--rounds=4] [--concurrency=4] [--k=10] [--engines=ram,parallel-stream|text]\n"
						+ "       java LoadClient.java --engines=v1:MODEL[,v1:MODEL...] [--texts=1] [--docs=docs] "
						+ "[--max-tokens=128] [--saturate=true [--recovery=true]] [--concurrency=..] [--duration=..] [--rounds=..]");
				System.exit(2);
			}
			options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
		}
		return options;
	}

	/**
	 * Answers per second.
	 * @param latencies one per answer
	 * @param elapsedNanos the time they took, summed over runs
	 */
	static double throughput(long[] latencies, long elapsedNanos) {
		return latencies.length / (elapsedNanos / 1e9);
	}

	/**
	 * A percentile of sorted latencies (nearest rank), in milliseconds; NaN without any.
	 * @param sorted latencies in nanoseconds, ascending
	 * @param percentile 1 to 100
	 */
	static double percentileMillis(long[] sorted, int percentile) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, index)] / 1e6;
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
			return LoadClient.throughput(this.latencies, this.elapsedNanos);
		}

		double percentileMillis(int percentile) {
			return LoadClient.percentileMillis(this.latencies, percentile);
		}
	}
}

/**
 * The {@code v1:MODEL} engines: {@code POST /v1/embeddings} with {@code --texts} texts a request, for
 * issue #43's comparison of the sample's uform model with another model served by the same app (the
 * {@code transformers-peer} build's {@code spring-ai-transformers}). The texts are the prose paragraphs of
 * the project's {@code docs/*.md} (as benchmarks/embedding's {@code Paragraphs} picks them: 40 to 900
 * characters, no headings, tables or code), those of at most {@code --max-tokens} tokens as the server
 * counts them ({@code usage.prompt_tokens}), in a fixed shuffled order so each request mixes lengths;
 * every engine sends the same texts in the same requests.
 *
 * <p>Three modes. Closed loop (default): engines interleaved over rounds, each reporting requests/s,
 * texts/s, p50/p99 of the 200s and every other status (with how many carried {@code Retry-After}).
 * {@code --saturate=true}: for the first engine only, {@code --concurrency} (200 unless given) clients in
 * bursts, counting statuses; the verdict is whether every non-200 was 503 or 429 with
 * {@code Retry-After} and OpenAI's error body ({@code {"error": {"message", "type", ...}}}) and no request
 * failed outright. With {@code --recovery=true}, after each burst a single client sends the same request
 * until one answers 200, and the time from the burst's end (when its clients stop sending; their requests
 * in flight still drain) to that answer is reported.
 */
final class V1Load {

	static final String PREFIX = "v1:";

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

	private static final Pattern EMBEDDING = Pattern.compile("\"embedding\":\\[([^\\]]*)]");

	private static final Pattern PROMPT_TOKENS = Pattern.compile("\"prompt_tokens\":(\\d+)");

	private static final Pattern OPENAI_ERROR = Pattern.compile("^\\{\"error\":\\{.*\"message\":\".*\"type\":\".*",
			Pattern.DOTALL);

	private V1Load() {
	}

	static void main(HttpClient http, URI base, Map<String, String> options, List<String> engines, Duration duration,
			Duration warmup, int rounds) throws Exception {
		for (String engine : engines) {
			if (!engine.startsWith(PREFIX)) {
				System.err.println("LoadClient: " + engine + " cannot be mixed with v1:MODEL engines: run it on its own");
				System.exit(2);
			}
		}
		List<String> models = engines.stream().map((engine) -> engine.substring(PREFIX.length())).toList();
		int texts = Integer.parseInt(options.getOrDefault("texts", "1"));
		int maxTokens = Integer.parseInt(options.getOrDefault("max-tokens", "128"));
		boolean saturate = Boolean.parseBoolean(options.getOrDefault("saturate", "false"));
		boolean recovery = Boolean.parseBoolean(options.getOrDefault("recovery", "false"));
		int concurrency = Integer.parseInt(options.getOrDefault("concurrency", saturate ? "200" : "32"));
		List<String> pool;
		try {
			pool = texts(http, base, models.get(0), paragraphs(Path.of(options.getOrDefault("docs", "docs"))), maxTokens);
		}
		catch (ConnectException ex) {
			System.err.println("LoadClient: nothing answers at " + base + ": start the sample app there first "
					+ "(for the peer, built with -Ptransformers-peer), or run load.sh with --start");
			System.exit(1);
			return;
		}
		checkClose(http, base, models, pool);
		System.out.printf("%s: POST /v1/embeddings, %d texts a request (from %d paragraphs of docs/*.md of at most "
				+ "%d tokens), %d client threads%n", base, texts, pool.size(), maxTokens, concurrency);
		if (saturate) {
			saturate(http, base, models.get(0), pool, texts, concurrency, duration, warmup, rounds, recovery);
			return;
		}
		System.out.printf("%d rounds of %s per model, after %s warm-up each, interleaved: %s%n", rounds,
				duration.dividedBy(rounds), warmup, models);
		for (String model : models) {
			run(http, base, model, pool, texts, concurrency, warmup, 1);
		}
		Map<String, List<Result>> results = new LinkedHashMap<>();
		for (int round = 0; round < rounds; round++) {
			for (String model : models) {
				Result r = run(http, base, model, pool, texts, concurrency, duration.dividedBy(rounds), round + 2);
				results.computeIfAbsent(model, (m) -> new ArrayList<>()).add(r);
				System.out.printf("  round %d %-24s %8.1f req/s %9.1f texts/s  p50 %8.2f ms  p99 %8.2f ms  %s%n",
						round + 1, model, r.throughput(), r.throughput() * texts, r.percentileMillis(50),
						r.percentileMillis(99), r.statuses());
			}
		}
		System.out.printf("%n%-24s %9s %9s %9s %9s %9s  %s%n", "model", "req/s", "texts/s", "p50 ms", "p99 ms", "max ms",
				"non-200 / failures");
		Map<String, Result> totals = new LinkedHashMap<>();
		for (Map.Entry<String, List<Result>> entry : results.entrySet()) {
			Result r = entry.getValue().stream().reduce(Result::plus).orElseThrow();
			totals.put(entry.getKey(), r);
			System.out.printf("%-24s %9.1f %9.1f %9.2f %9.2f %9.2f  %s%n", entry.getKey(), r.throughput(),
					r.throughput() * texts, r.percentileMillis(50), r.percentileMillis(99), r.percentileMillis(100),
					r.statuses());
		}
		String first = models.get(0);
		for (String other : models.subList(1, models.size())) {
			double[] throughput = new double[rounds];
			double[] p99 = new double[rounds];
			for (int round = 0; round < rounds; round++) {
				Result a = results.get(first).get(round);
				Result b = results.get(other).get(round);
				throughput[round] = a.throughput() / b.throughput();
				p99[round] = a.percentileMillis(99) / b.percentileMillis(99);
			}
			Result a = totals.get(first);
			Result b = totals.get(other);
			System.out.printf("%s vs %s, %d texts: throughput x%.2f (rounds %.2f-%.2f), p99 x%.2f (rounds %.2f-%.2f), "
					+ "p50 x%.2f%n", first, other, texts, a.throughput() / b.throughput(), min(throughput),
					max(throughput), a.percentileMillis(99) / b.percentileMillis(99), min(p99), max(p99),
					a.percentileMillis(50) / b.percentileMillis(50));
		}
		long failures = totals.values().stream().mapToLong((r) -> r.failures).sum();
		if (failures > 0) {
			System.err.println("LoadClient: " + failures + " requests failed outright (see the first error above)");
			System.exit(1);
		}
	}

	/** Bursts at the first model, each followed by the recovery probe when asked for. */
	private static void saturate(HttpClient http, URI base, String model, List<String> pool, int texts, int concurrency,
			Duration duration, Duration warmup, int rounds, boolean recovery) throws Exception {
		run(http, base, model, pool, texts, 32, warmup, 1);
		boolean allOk = true;
		List<Double> recoveries = new ArrayList<>();
		for (int round = 0; round < rounds; round++) {
			long[] ended = { 0 };
			Result r = run(http, base, model, pool, texts, concurrency, duration.dividedBy(rounds), round + 2, ended,
					recovery);
			boolean ok = r.failures == 0 && r.rejected() == r.wellRejected;
			allOk &= ok;
			System.out.printf("  burst %d %s, %d clients, %s: %d answered 200 (%.1f req/s, p99 %.0f ms), %s; every non-200 "
					+ "503/429 with Retry-After and OpenAI's body: %s%n", round + 1, model, concurrency,
					duration.dividedBy(rounds), r.latencies.length, r.throughput(), r.percentileMillis(99), r.statuses(),
					ok ? "yes" : "NO");
			if (recovery) {
				recoveries.add(r.recoveryMillis);
				System.out.printf("    recovery: the first 200 came %.0f ms after the burst's clients stopped sending "
						+ "(%d probes)%n", r.recoveryMillis, r.probes);
			}
			// Let the burst's requests drain before the next, so each starts from an idle server.
			Thread.sleep(2000);
		}
		System.out.printf("%nsaturation of %s with %d texts a request at %d clients: %s%n", model, texts, concurrency,
				allOk ? "only 503/429 with Retry-After and OpenAI's error body" : "NOT ONLY 503/429 with Retry-After");
		if (recovery) {
			System.out.printf("recovery, %d texts: %s ms%n", texts, recoveries.stream()
				.map((ms) -> String.format(Locale.ROOT, "%.0f", ms)).toList());
		}
		if (!allOk) {
			System.exit(1);
		}
	}

	private static Result run(HttpClient http, URI base, String model, List<String> pool, int texts, int concurrency,
			Duration duration, int seedBase) throws InterruptedException {
		return run(http, base, model, pool, texts, concurrency, duration, seedBase, new long[1], false);
	}

	/** {@code concurrency} threads sending for a while; with {@code probe}, then one request until a 200. */
	private static Result run(HttpClient http, URI base, String model, List<String> pool, int texts, int concurrency,
			Duration duration, int seedBase, long[] ended, boolean probe) throws InterruptedException {
		long end = System.nanoTime() + duration.toNanos();
		List<long[]> latencies = new ArrayList<>();
		Map<Integer, long[]> statuses = new TreeMap<>();
		AtomicLong failures = new AtomicLong();
		Thread[] threads = new Thread[concurrency];
		long start = System.nanoTime();
		for (int t = 0; t < concurrency; t++) {
			int thread = t;
			threads[t] = new Thread(() -> {
				long[] mine = new long[1024];
				int count = 0;
				long seed = ((long) seedBase << 40) + ((long) thread << 24);
				while (System.nanoTime() < end) {
					String body = body(model, pool, texts, seed++);
					long sent = System.nanoTime();
					try {
						HttpResponse<String> response = send(http, base, body);
						long took = System.nanoTime() - sent;
						if (response.statusCode() == 200) {
							if (count == mine.length) {
								mine = Arrays.copyOf(mine, count * 2);
							}
							mine[count++] = took;
						}
						else {
							count(statuses, response);
						}
					}
					catch (Exception ex) {
						if (failures.getAndIncrement() == 0) {
							System.err.println("LoadClient: " + model + ": " + ex);
						}
					}
				}
				synchronized (latencies) {
					latencies.add(Arrays.copyOf(mine, count));
				}
			}, "load-" + model + "-" + t);
			threads[t].start();
		}
		double recoveryMillis = Double.NaN;
		int probes = 0;
		if (probe) {
			while (System.nanoTime() < end) {
				Thread.sleep(1);
			}
			long stopped = System.nanoTime();
			String body = body(model, pool, texts, 0);
			while (true) {
				probes++;
				try {
					if (send(http, base, body).statusCode() == 200) {
						recoveryMillis = (System.nanoTime() - stopped) / 1e6;
						break;
					}
				}
				catch (Exception ex) {
					// A refused or reset connection is not an answer yet: keep probing.
				}
				if (System.nanoTime() - stopped > TimeUnit.SECONDS.toNanos(60)) {
					break;
				}
			}
		}
		for (Thread thread : threads) {
			thread.join();
		}
		long elapsed = System.nanoTime() - start;
		long[] all = latencies.stream().flatMapToLong(Arrays::stream).toArray();
		return new Result(all, elapsed, statuses, failures.get(), recoveryMillis, probes);
	}

	private static void count(Map<Integer, long[]> statuses, HttpResponse<String> response) {
		boolean retryAfter = response.headers().firstValue("Retry-After").isPresent();
		boolean openAi = OPENAI_ERROR.matcher(response.body()).matches();
		int status = response.statusCode();
		boolean well = (status == 503 || status == 429) && retryAfter && openAi;
		synchronized (statuses) {
			long[] c = statuses.computeIfAbsent(status, (s) -> new long[3]);
			c[0]++;
			c[1] += retryAfter ? 1 : 0;
			c[2] += well ? 1 : 0;
		}
	}

	private static HttpResponse<String> send(HttpClient http, URI base, String body)
			throws java.io.IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(base.resolve("/v1/embeddings"))
			.timeout(REQUEST_TIMEOUT)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** A request of {@code texts} texts, the same for every model with the same seed. */
	private static String body(String model, List<String> pool, int texts, long seed) {
		StringBuilder b = new StringBuilder(256 * texts).append("{\"model\":\"").append(model).append("\",\"input\":[");
		for (int j = 0; j < texts; j++) {
			if (j > 0) {
				b.append(',');
			}
			quote(b, pool.get((int) Math.floorMod(seed * texts + j, (long) pool.size())));
		}
		return b.append("]}").toString();
	}

	private static void quote(StringBuilder b, String text) {
		b.append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\\') {
				b.append('\\').append(c);
			}
			else if (c < 0x20) {
				b.append(String.format("\\u%04x", (int) c));
			}
			else {
				b.append(c);
			}
		}
		b.append('"');
	}

	/** The paragraphs the server counts at most {@code maxTokens} tokens, shuffled by a fixed seed. */
	private static List<String> texts(HttpClient http, URI base, String model, List<String> paragraphs, int maxTokens)
			throws Exception {
		List<String> kept = new ArrayList<>();
		for (String paragraph : paragraphs) {
			StringBuilder b = new StringBuilder("{\"model\":\"").append(model).append("\",\"input\":");
			quote(b, paragraph);
			HttpResponse<String> response = send(http, base, b.append('}').toString());
			if (response.statusCode() == 400) {
				continue; // longer than the model takes
			}
			if (response.statusCode() != 200) {
				throw new IllegalStateException(model + " answered HTTP " + response.statusCode() + ": " + response.body());
			}
			Matcher tokens = PROMPT_TOKENS.matcher(response.body());
			if (tokens.find() && Integer.parseInt(tokens.group(1)) <= maxTokens) {
				kept.add(paragraph);
			}
		}
		if (kept.isEmpty()) {
			throw new IllegalStateException("no paragraph of the docs has at most " + maxTokens + " tokens: is --docs "
					+ "the project's docs directory?");
		}
		Collections.shuffle(kept, new Random(43));
		return kept;
	}

	/** Every model gives nearly the same vectors for the same texts, or the comparison is of unequal work. */
	private static void checkClose(HttpClient http, URI base, List<String> models, List<String> pool) throws Exception {
		List<float[]> reference = null;
		for (String model : models) {
			HttpResponse<String> response = send(http, base, body(model, pool, 8, 0));
			if (response.statusCode() != 200) {
				throw new IllegalStateException(model + " answered HTTP " + response.statusCode() + ": " + response.body());
			}
			List<float[]> vectors = new ArrayList<>();
			Matcher matcher = EMBEDDING.matcher(response.body());
			while (matcher.find()) {
				String[] parts = matcher.group(1).split(",");
				float[] v = new float[parts.length];
				for (int i = 0; i < v.length; i++) {
					v[i] = Float.parseFloat(parts[i]);
				}
				vectors.add(v);
			}
			if (reference == null) {
				reference = vectors;
				continue;
			}
			for (int i = 0; i < vectors.size(); i++) {
				double dot = 0;
				double na = 0;
				double nb = 0;
				for (int j = 0; j < vectors.get(i).length; j++) {
					dot += reference.get(i)[j] * vectors.get(i)[j];
					na += reference.get(i)[j] * reference.get(i)[j];
					nb += vectors.get(i)[j] * vectors.get(i)[j];
				}
				double cosine = dot / Math.sqrt(na * nb);
				if (cosine < 0.95) {
					throw new IllegalStateException(models.get(0) + " and " + model + " disagree on text " + i
							+ " (cosine " + cosine + "): they are not the same model, and their rates would not compare");
				}
			}
		}
	}

	/** The docs' prose paragraphs, as benchmarks/embedding's Paragraphs reads them. */
	private static List<String> paragraphs(Path docs) throws java.io.IOException {
		List<String> paragraphs = new ArrayList<>();
		List<Path> files;
		try (Stream<Path> walk = Files.walk(docs)) {
			files = walk.filter((path) -> path.toString().endsWith(".md")).sorted().toList();
		}
		for (Path file : files) {
			StringBuilder block = new StringBuilder();
			boolean fenced = false;
			for (String raw : Files.readAllLines(file)) {
				String line = raw.strip();
				if (line.startsWith("```")) {
					fenced = !fenced;
					keep(block, paragraphs);
					continue;
				}
				if (fenced || line.isEmpty() || line.startsWith("#") || line.startsWith("|") || line.startsWith("<!--")) {
					keep(block, paragraphs);
					continue;
				}
				if (line.matches("([-*+]|\\d+\\.) .*")) {
					keep(block, paragraphs);
				}
				if (!block.isEmpty()) {
					block.append(' ');
				}
				block.append(line);
			}
			keep(block, paragraphs);
		}
		return paragraphs;
	}

	private static void keep(StringBuilder block, List<String> paragraphs) {
		if (block.length() >= 40 && block.length() <= 900) {
			paragraphs.add(block.toString());
		}
		block.setLength(0);
	}

	private static double min(double[] values) {
		return Arrays.stream(values).min().orElse(Double.NaN);
	}

	private static double max(double[] values) {
		return Arrays.stream(values).max().orElse(Double.NaN);
	}

	/** The 200s' latencies, the other statuses and the failures of one model, over one or more runs. */
	private static final class Result {

		final long[] latencies;

		final long elapsedNanos;

		/** Status to {count, with Retry-After, 503/429 with Retry-After and OpenAI's body}. */
		final Map<Integer, long[]> statuses;

		final long failures;

		final long wellRejected;

		final double recoveryMillis;

		final int probes;

		Result(long[] latencies, long elapsedNanos, Map<Integer, long[]> statuses, long failures, double recoveryMillis,
				int probes) {
			this.latencies = latencies;
			Arrays.sort(this.latencies);
			this.elapsedNanos = elapsedNanos;
			this.statuses = statuses;
			this.failures = failures;
			this.wellRejected = statuses.values().stream().mapToLong((c) -> c[2]).sum();
			this.recoveryMillis = recoveryMillis;
			this.probes = probes;
		}

		long rejected() {
			return this.statuses.values().stream().mapToLong((c) -> c[0]).sum();
		}

		Result plus(Result other) {
			long[] both = Arrays.copyOf(this.latencies, this.latencies.length + other.latencies.length);
			System.arraycopy(other.latencies, 0, both, this.latencies.length, other.latencies.length);
			Map<Integer, long[]> statuses = new TreeMap<>();
			for (Map<Integer, long[]> m : List.of(this.statuses, other.statuses)) {
				m.forEach((status, c) -> {
					long[] sum = statuses.computeIfAbsent(status, (s) -> new long[3]);
					for (int i = 0; i < 3; i++) {
						sum[i] += c[i];
					}
				});
			}
			return new Result(both, this.elapsedNanos + other.elapsedNanos, statuses, this.failures + other.failures,
					Double.NaN, 0);
		}

		String statuses() {
			StringBuilder b = new StringBuilder();
			this.statuses.forEach((status, c) -> b.append(b.isEmpty() ? "" : ", ").append(c[0]).append(" x ")
				.append(status).append(" (").append(c[1]).append(" with Retry-After)"));
			if (this.failures > 0) {
				b.append(b.isEmpty() ? "" : ", ").append(this.failures).append(" failed");
			}
			return b.isEmpty() ? "no non-200" : b.toString();
		}

		double throughput() {
			return LoadClient.throughput(this.latencies, this.elapsedNanos);
		}

		double percentileMillis(int percentile) {
			return LoadClient.percentileMillis(this.latencies, percentile);
		}
	}
}
