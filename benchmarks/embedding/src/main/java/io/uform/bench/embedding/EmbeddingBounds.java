package io.uform.bench.embedding;

import java.io.InputStream;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * Where one-text-per-call embedding spends its time, on one thread with one session at one intra-op
 * thread (uform's settings), texts as {@link EmbeddingPeers} takes them: each text's tokenizing and
 * session call timed alone; from those, what two threads could reach with static slices (the batch
 * cut in two halves) and with texts handed out one at a time; and length-bucketed calls (texts of
 * equal token length in one call, no padding) against one call per text, rounds interleaved, with the
 * least cosine between their vectors.
 *
 * <p>Arguments: {@code [docs directory] [rounds]}; run as {@code benchmarks/embedding.sh} runs the
 * peers, with {@code MAIN=io.uform.bench.embedding.EmbeddingBounds}.
 */
public final class EmbeddingBounds {

	private EmbeddingBounds() {
	}

	public static void main(String[] args) throws Exception {
		Path docs = Path.of((args.length > 0) ? args[0] : "docs");
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
		OrtEnvironment environment = OrtEnvironment.getEnvironment();
		try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
				InputStream json = ModelFiles.open(ModelFiles.TOKENIZER);
				HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.newInstance(json,
						Map.of("padding", "false", "truncation", "false"))) {
			options.setIntraOpNumThreads(1);
			options.setInterOpNumThreads(1);
			options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
			try (OrtSession session = environment.createSession(ModelFiles.read(ModelFiles.MODEL), options)) {
				List<String> texts = new ArrayList<>();
				for (String paragraph : Paragraphs.of(docs)) {
					if (tokenizer.encode(paragraph).getIds().length <= EmbeddingPeers.MAX_TOKENS) {
						texts.add(paragraph);
					}
				}
				texts = texts.subList(0, 256);
				long[][] ids = new long[texts.size()][];
				for (int i = 0; i < ids.length; i++) {
					ids[i] = tokenizer.encode(texts.get(i)).getIds();
				}
				Bench bench = new Bench(environment, session);
				// Warm-up.
				for (int w = 0; w < 2; w++) {
					for (long[] text : ids) {
						bench.embed(new long[][] { text });
					}
				}
				perText(bench, tokenizer, texts, ids, rounds);
				buckets(bench, ids, rounds);
			}
		}
	}

	/** Each text's tokenizing and call alone (medians over rounds), and what two threads could reach. */
	private static void perText(Bench bench, HuggingFaceTokenizer tokenizer, List<String> texts, long[][] ids,
			int rounds) throws OrtException {
		long[][] call = new long[ids.length][rounds];
		long[][] words = new long[ids.length][rounds];
		for (int r = 0; r < rounds; r++) {
			for (int i = 0; i < ids.length; i++) {
				long start = System.nanoTime();
				tokenizer.encode(texts.get(i));
				long tokenized = System.nanoTime();
				bench.embed(new long[][] { ids[i] });
				call[i][r] = System.nanoTime() - tokenized;
				words[i][r] = tokenized - start;
			}
		}
		double[] cost = new double[ids.length];
		double tokenizing = 0;
		for (int i = 0; i < ids.length; i++) {
			cost[i] = median(call[i]);
			tokenizing += median(words[i]);
		}
		// Least squares: call time = fixed + per-token x tokens.
		double n = ids.length;
		double sx = 0;
		double sy = 0;
		double sxx = 0;
		double sxy = 0;
		for (int i = 0; i < ids.length; i++) {
			sx += ids[i].length;
			sy += cost[i];
			sxx += (double) ids[i].length * ids[i].length;
			sxy += ids[i].length * cost[i];
		}
		double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
		double fixed = (sy - slope * sx) / n;
		System.out.printf(Locale.ROOT, "one thread, one text per call: a call costs %.0f us + %.1f us per token "
				+ "(least squares over %d texts); tokenizing is %.1f%% of calls + tokenizing%n", fixed / 1e3, slope / 1e3,
				ids.length, 100 * tokenizing / (tokenizing + sum(cost, 0, ids.length)));
		for (int size : new int[] { 64, 256 }) {
			double one = sum(cost, 0, size);
			double halves = Math.max(sum(cost, 0, size / 2), sum(cost, size / 2, size));
			double[] threads = new double[2];
			for (int i = 0; i < size; i++) {
				// Handed out in order, each to the thread that is free first.
				int free = (threads[0] <= threads[1]) ? 0 : 1;
				threads[free] += cost[i];
			}
			double dynamic = Math.max(threads[0], threads[1]);
			System.out.printf(Locale.ROOT, "batch %d: %.1f ms on one thread; on two, if calls did not slow each other: "
					+ "static halves %.1f ms (%.0f texts/s), one at a time %.1f ms (%.0f texts/s), perfect split %.1f ms%n",
					size, one / 1e6, halves / 1e6, size * 1e9 / halves, dynamic / 1e6, size * 1e9 / dynamic, one / 2e6);
		}
	}

	/** Length-bucketed calls against one call per text, interleaved, over the 256 texts. */
	private static void buckets(Bench bench, long[][] ids, int rounds) throws OrtException {
		Map<Integer, List<long[]>> byLength = new LinkedHashMap<>();
		for (long[] text : ids) {
			byLength.computeIfAbsent(text.length, (length) -> new ArrayList<>()).add(text);
		}
		List<long[][]> buckets = byLength.values().stream().map((bucket) -> bucket.toArray(long[][]::new)).toList();
		float[][] single = new float[ids.length][];
		for (int i = 0; i < ids.length; i++) {
			single[i] = bench.embed(new long[][] { ids[i] })[0];
		}
		double least = 1;
		int under = 0;
		int b = 0;
		for (long[][] bucket : buckets) {
			float[][] together = bench.embed(bucket);
			for (int k = 0; k < bucket.length; k++) {
				int i = indexOf(ids, bucket[k]);
				double cosine = Vectors.cosine(single[i], together[k]);
				least = Math.min(least, cosine);
				under += (cosine < 0.99999) ? 1 : 0;
			}
			b++;
		}
		long[] perText = new long[rounds];
		long[] bucketed = new long[rounds];
		for (int r = 0; r < rounds; r++) {
			for (int order = 0; order < 2; order++) {
				long start = System.nanoTime();
				if ((order + r) % 2 == 0) {
					for (long[] text : ids) {
						bench.embed(new long[][] { text });
					}
					perText[r] = System.nanoTime() - start;
				}
				else {
					for (long[][] bucket : buckets) {
						bench.embed(bucket);
					}
					bucketed[r] = System.nanoTime() - start;
				}
			}
		}
		double[] ratios = new double[rounds];
		for (int r = 0; r < rounds; r++) {
			ratios[r] = (double) perText[r] / bucketed[r];
		}
		Arrays.sort(ratios);
		System.out.printf(Locale.ROOT, "length buckets: %d texts in %d calls (%d of them alone); one thread: per text "
				+ "%.1f ms, bucketed %.1f ms, per-text time over bucketed x%.3f [%.3f-%.3f]; least cosine to the per-text "
				+ "vectors %.6f (%d texts under 0.99999)%n", ids.length, b,
				buckets.stream().filter((bucket) -> bucket.length == 1).count(), median(perText) / 1e6,
				median(bucketed) / 1e6, ratios[rounds / 2], ratios[0], ratios[rounds - 1], least, under);
	}

	private static int indexOf(long[][] all, long[] one) {
		for (int i = 0; i < all.length; i++) {
			if (all[i] == one) {
				return i;
			}
		}
		throw new IllegalStateException("not a text of the batch");
	}

	private static double sum(double[] values, int from, int to) {
		double total = 0;
		for (int i = from; i < to; i++) {
			total += values[i];
		}
		return total;
	}

	private static double median(long[] values) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

	/** One session call over texts of equal length (one text, or a bucket), mean-pooled and normalised. */
	private record Bench(OrtEnvironment environment, OrtSession session) {

		float[][] embed(long[][] texts) throws OrtException {
			int length = texts[0].length;
			long[] flat = new long[texts.length * length];
			for (int t = 0; t < texts.length; t++) {
				System.arraycopy(texts[t], 0, flat, t * length, length);
			}
			long[] ones = new long[flat.length];
			Arrays.fill(ones, 1);
			long[] shape = { texts.length, length };
			try (OnnxTensor inputIds = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(flat), shape);
					OnnxTensor mask = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(ones), shape);
					OnnxTensor types = OnnxTensor.createTensor(this.environment, LongBuffer.wrap(new long[flat.length]), shape);
					OrtSession.Result result = this.session
						.run(Map.of("input_ids", inputIds, "attention_mask", mask, "token_type_ids", types))) {
				FloatBuffer hidden = ((OnnxTensor) result.get(0)).getFloatBuffer();
				int dimensions = hidden.capacity() / flat.length;
				float[][] vectors = new float[texts.length][];
				for (int t = 0; t < texts.length; t++) {
					float[][] rows = new float[length][dimensions];
					for (int row = 0; row < length; row++) {
						hidden.get((t * length + row) * dimensions, rows[row], 0, dimensions);
					}
					vectors[t] = Vectors.meanUnit(rows, length);
				}
				return vectors;
			}
		}
	}
}
