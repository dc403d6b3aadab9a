package io.uform.sample.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.embedding.MiniLm;
import io.uform.sample.passages.DocumentSource;
import io.uform.sample.passages.Passage;

/**
 * Embedding throughput, side by side in one JVM, rounds interleaved so the shared machine's slow
 * moments fall on every path alike: the executor-sliced path (the sample's, uform-onnxruntime: the batch
 * sliced across the RAM executor's threads, one text per session call, ONNX Runtime at one thread), ONNX Runtime's own
 * threading (one padded call for the batch, intra-op threads = cores), the same without padding (one
 * call per text, intra-op threads = cores: ONNX Runtime's threading alone), and langchain4j's
 * {@code AllMiniLmL6V2QuantizedEmbeddingModel.embedAll} with its defaults. Every path tokenizes its
 * batch inside the timed region. Before timing, the outputs are compared. After, what bounds the
 * executor's path: one thread against all, and the tokenizer's share.
 *
 * <p>Run with {@code sample-app/scripts/embedding-bench.sh} (arguments: rounds, default 12).
 */
public final class EmbeddingThroughput {

	/** The paths, in the order of the timings. */
	private static final String[] PATHS = { "executor-sliced", "ort-own-threads", "ort-own-per-text", "langchain4j" };

	private EmbeddingThroughput() {
	}

	public static void main(String[] args) throws Exception {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 12;
		int cores = Runtime.getRuntime().availableProcessors();
		List<String> corpus = passages();
		System.out.printf(Locale.ROOT, "%d cores, %s, %d passages of the bundled docs (at most 128 tokens each)%n",
				cores, System.getProperty("java.version"), corpus.size());
		try (OrtOwnThreads own = new OrtOwnThreads(cores);
				Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(cores));
				Executor one = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
				TextEmbeddingModel sliced = MiniLm.load(executor, 256, null);
				TextEmbeddingModel serial = MiniLm.load(one, 256, null)) {
			AllMiniLmL6V2QuantizedEmbeddingModel langchain = new AllMiniLmL6V2QuantizedEmbeddingModel();
			for (int size : new int[] { 64, 256 }) {
				List<String> batch = corpus.subList(0, size);
				compare(batch, sliced, own, langchain);
				long[][] times = new long[PATHS.length][rounds];
				// Warm-up: JIT, ONNX Runtime's first-run allocations, the tokenizer's caches.
				for (int w = 0; w < 2; w++) {
					executorPath(sliced, batch);
					ortPath(own, batch);
					ortPerText(own, batch);
					langchainPath(langchain, batch);
				}
				for (int r = 0; r < rounds; r++) {
					// Rotate the order each round, so no path always runs after the same one.
					for (int p = 0; p < PATHS.length; p++) {
						int path = (p + r) % PATHS.length;
						long start = System.nanoTime();
						switch (path) {
							case 0 -> executorPath(sliced, batch);
							case 1 -> ortPath(own, batch);
							case 2 -> ortPerText(own, batch);
							default -> langchainPath(langchain, batch);
						}
						times[path][r] = System.nanoTime() - start;
					}
				}
				report(size, times);
			}
			bounds(corpus.subList(0, 64), sliced, serial, own, rounds);
		}
	}

	private static float[][] executorPath(TextEmbeddingModel model, List<String> batch) {
		return model.embed(batch);
	}

	private static float[][] ortPath(OrtOwnThreads model, List<String> batch) {
		return model.padded(batch);
	}

	private static float[][] ortPerText(OrtOwnThreads model, List<String> batch) {
		return model.perText(batch);
	}

	private static float[][] langchainPath(AllMiniLmL6V2QuantizedEmbeddingModel model, List<String> batch) {
		List<TextSegment> segments = new ArrayList<>(batch.size());
		for (String text : batch) {
			segments.add(TextSegment.from(text));
		}
		List<Embedding> embeddings = model.embedAll(segments).content();
		float[][] vectors = new float[embeddings.size()][];
		for (int i = 0; i < vectors.length; i++) {
			vectors[i] = embeddings.get(i).vector();
		}
		return vectors;
	}

	/** Equal outputs first: exact against one text at a time, cosine against the other two paths. */
	private static void compare(List<String> batch, TextEmbeddingModel sliced, OrtOwnThreads own,
			AllMiniLmL6V2QuantizedEmbeddingModel langchain) {
		float[][] ours = executorPath(sliced, batch);
		int exact = 0;
		for (int i = 0; i < batch.size(); i++) {
			exact += Arrays.equals(ours[i], sliced.embed(batch.get(i))) ? 1 : 0;
		}
		System.out.printf(Locale.ROOT, "%nbatch %d: executor path equals one text at a time on %d of %d texts (bit for bit); "
				+ "min cosine vs ORT padded batch %.5f, vs ORT per text %.5f, vs langchain4j %.5f%n", batch.size(), exact,
				batch.size(), minCosine(ours, ortPath(own, batch)), minCosine(ours, ortPerText(own, batch)),
				minCosine(ours, langchainPath(langchain, batch)));
		if (exact != batch.size()) {
			throw new IllegalStateException("the executor path differs from one text at a time");
		}
	}

	private static void report(int size, long[][] times) {
		String[] names = PATHS;
		double[] throughput = new double[names.length];
		double[] p50 = new double[names.length];
		double[] p99 = new double[names.length];
		System.out.printf(Locale.ROOT, "%-16s %10s %9s %9s%n", "path", "texts/s", "p50 ms", "p99 ms");
		for (int p = 0; p < names.length; p++) {
			long[] sorted = times[p].clone();
			Arrays.sort(sorted);
			p50[p] = sorted[sorted.length / 2] / 1e6;
			p99[p] = sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e6;
			throughput[p] = size * 1e3 / (Arrays.stream(times[p]).average().orElseThrow() / 1e6);
			System.out.printf(Locale.ROOT, "%-16s %10.1f %9.1f %9.1f%n", names[p], throughput[p], p50[p], p99[p]);
		}
		for (int p = 1; p < names.length; p++) {
			System.out.printf(Locale.ROOT, "executor-sliced vs %s at batch %d: throughput x%.2f, p50 x%.2f, p99 x%.2f%n",
					names[p], size, throughput[0] / throughput[p], p50[p] / p50[0], p99[p] / p99[0]);
		}
	}

	/** What bounds the executor's path: its speed-up over one thread, and the tokenizer's share. */
	private static void bounds(List<String> batch, TextEmbeddingModel sliced, TextEmbeddingModel serial,
			OrtOwnThreads model, int rounds) {
		long[] all = new long[rounds];
		long[] oneThread = new long[rounds];
		long[] tokenizing = new long[rounds];
		for (int r = 0; r < rounds; r++) {
			long start = System.nanoTime();
			executorPath(sliced, batch);
			all[r] = System.nanoTime() - start;
			start = System.nanoTime();
			executorPath(serial, batch);
			oneThread[r] = System.nanoTime() - start;
			start = System.nanoTime();
			for (String text : batch) {
				model.tokenize(text);
			}
			tokenizing[r] = System.nanoTime() - start;
		}
		double allMs = median(all) / 1e6;
		double oneMs = median(oneThread) / 1e6;
		System.out.printf(Locale.ROOT, "%nbounds, batch %d: %.3f ms per text on 1 thread, %.3f ms on %d; speed-up x%.2f; "
				+ "tokenizing %.1f%% of the 1-thread time%n", batch.size(), oneMs / batch.size(), allMs / batch.size(),
				sliced.executor().threads(), oneMs / allMs, 100.0 * median(tokenizing) / median(oneThread));
	}

	private static double median(long[] values) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

	private static double minCosine(float[][] a, float[][] b) {
		double min = 1;
		for (int i = 0; i < a.length; i++) {
			double dot = 0;
			for (int d = 0; d < a[i].length; d++) {
				dot += a[i][d] * b[i][d];
			}
			min = Math.min(min, dot);
		}
		return min;
	}

	/** The indexer's texts, those short enough that every path embeds the same tokens (no cut). */
	private static List<String> passages() throws Exception {
		List<String> texts = new ArrayList<>();
		try (OrtOwnThreads model = new OrtOwnThreads(1)) {
			for (Passage passage : DocumentSource.passages(null)) {
				String text = passage.heading() + ": " + passage.text();
				if (model.tokenize(text).length <= 128) {
					texts.add(text);
				}
			}
		}
		if (texts.size() < 256) {
			throw new IllegalStateException("only " + texts.size() + " passages of at most 128 tokens; need 256");
		}
		return texts;
	}
}
