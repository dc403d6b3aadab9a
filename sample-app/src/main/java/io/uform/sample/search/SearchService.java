package io.uform.sample.search;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Service;

import io.uform.Executor;

/**
 * Exact top-k search over the synthetic vector corpus ({@code sample.vectors.enabled}), on the path a
 * request names: the RAM executor, the VRAM
 * executor (where the application has one) or a parallel stream. Checks every query before any
 * engine sees it.
 */
@Service
@ConditionalOnBooleanProperty("sample.vectors.enabled")
public class SearchService implements DisposableBean {

	/** The engine {@code auto} stands for: a real GPU where there is one, else the RAM executor. */
	public static final String AUTO = "auto";

	/** How long a search waits for a free deferred-call slot before it is refused with 503. */
	static final Duration SLOT_WAIT = Duration.ofSeconds(1);

	/** The longest query accepted: far below a float's range, so scores computed in float stay finite. */
	static final double MAX_QUERY_LENGTH = 1e30;

	private static final Log logger = LogFactory.getLog(SearchService.class);

	private final Corpus corpus;

	private final Map<String, SearchEngine> engines = new LinkedHashMap<>();

	private final SearchEngine auto;

	private final VramSearch onDevices;

	/**
	 * Makes the engines; with a VRAM executor, copies the corpus into its devices' scratch.
	 * @param corpus the corpus
	 * @param ram the RAM executor (the only {@code Executor} injected by type)
	 * @param vram the VRAM executor, where the application has one (it is not a default candidate,
	 *        so it is asked for by name)
	 */
	public SearchService(Corpus corpus, Executor ram, @Qualifier("uformVramExecutor") ObjectProvider<Executor> vram) {
		this.corpus = corpus;
		add(new RamExecutorSearch(ram, corpus, SLOT_WAIT));
		Executor gpus = vram.getIfAvailable();
		VramSearch onDevices = (gpus != null) ? new VramSearch(gpus, corpus, SLOT_WAIT) : null;
		this.onDevices = onDevices;
		if (onDevices != null) {
			add(onDevices);
		}
		add(new ParallelStreamSearch(corpus));
		this.auto = (onDevices != null && onDevices.runsKernels()) ? onDevices : this.engines.get("ram");
		logger.info("Search: " + corpus.rows() + " x " + corpus.dimensions() + " corpus; engines ram ("
				+ count(ram.threads(), "thread") + ")"
				+ ((onDevices != null) ? ", vram (" + count(onDevices.devices(), "device") + ", " + onDevices.path() + ")" : "")
				+ ", parallel-stream (common pool, parallelism " + ForkJoinPool.getCommonPoolParallelism()
				+ "); auto = " + this.auto.name());
	}

	/**
	 * Runs a search.
	 * @param query the query vector
	 * @param k how many hits
	 * @param engine {@code auto} or an engine's name
	 * @return the hits and what served them
	 * @throws BadSearchException when the query, {@code k} or the engine is not one this service takes
	 */
	public SearchResult search(float[] query, int k, String engine) {
		SearchEngine chosen = engine(engine);
		check(query, k);
		long start = System.nanoTime();
		List<Hit> hits = chosen.search(query, k);
		return new SearchResult(chosen.name(), chosen.path(), hits, (System.nanoTime() - start) / 1_000);
	}

	/**
	 * The corpus searched.
	 * @return the corpus
	 */
	public Corpus corpus() {
		return this.corpus;
	}

	/**
	 * The names a request may give as its engine.
	 * @return {@code auto} first, then each engine
	 */
	public List<String> engineNames() {
		List<String> names = new java.util.ArrayList<>();
		names.add(AUTO);
		names.addAll(this.engines.keySet());
		return names;
	}

	private SearchEngine engine(String name) {
		if (name == null || name.isEmpty() || AUTO.equals(name)) {
			return this.auto;
		}
		SearchEngine engine = this.engines.get(name);
		if (engine == null) {
			String why = "vram".equals(name) ? " (this application has no VRAM executor: uform.vram.enabled is false, "
					+ "or no GPU was found and uform.devices.simulated is not set)" : "";
			throw new BadSearchException("engine must be one of " + engineNames() + ", was '" + name + "'" + why);
		}
		return engine;
	}

	private void check(float[] query, int k) {
		if (query == null) {
			throw new BadSearchException("vector is missing: give " + this.corpus.dimensions() + " numbers");
		}
		if (query.length != this.corpus.dimensions()) {
			throw new BadSearchException("vector must have " + this.corpus.dimensions() + " numbers (the corpus's "
					+ "dimension, sample.vectors.dimensions), had " + query.length);
		}
		double squares = 0;
		for (int i = 0; i < query.length; i++) {
			if (!Float.isFinite(query[i])) {
				// JSON has no Infinity: one here was most likely a number too large for a float (1e39), which
				// Jackson reads as Infinity, so say that rather than name a value the client never sent.
				String overflow = Float.isInfinite(query[i])
						? " (or a number larger than a float holds, " + Float.MAX_VALUE + " in magnitude)" : "";
				throw new BadSearchException("vector[" + i + "] is " + query[i] + overflow
						+ "; every value must be a finite number");
			}
			squares += (double) query[i] * query[i];
		}
		// Rows are of unit length, so no score, nor any partial sum of one, exceeds the query's length:
		// within this bound the float scores cannot overflow to infinity, nor to NaN.
		double length = Math.sqrt(squares);
		if (length > MAX_QUERY_LENGTH) {
			throw new BadSearchException("vector's length is " + (float) length + ", more than " + MAX_QUERY_LENGTH
					+ ": its scores would overflow a float. Scale it down: only its direction changes which rows rank first");
		}
		if (k < 1 || k > this.corpus.rows()) {
			throw new BadSearchException("k must be between 1 and " + this.corpus.rows() + " (the corpus's rows), was " + k);
		}
	}

	/** Frees the VRAM search's host buffers; the executors free their own scratch. */
	@Override
	public void destroy() {
		if (this.onDevices != null) {
			this.onDevices.close();
		}
	}

	private void add(SearchEngine engine) {
		this.engines.put(engine.name(), engine);
	}

	/**
	 * What a search found.
	 *
	 * @param engine the engine's name
	 * @param path what served it
	 * @param hits best first
	 * @param tookMicros time spent in the engine, queueing included
	 */
	public record SearchResult(String engine, String path, List<Hit> hits, long tookMicros) {
	}

	/** {@code 1 thread}, {@code 2 threads}: the startup line reads as English for every count. */
	private static String count(int n, String noun) {
		return n + " " + noun + ((n == 1) ? "" : "s");
	}
}
