package io.uform.bench.embedding;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;

/**
 * Text embedding side by side in one JVM: uform's model on a RAM executor against Spring AI, langchain4j
 * (defaults and tuned) and ONNX Runtime's own threading, same model file, same texts ({@link Paragraphs}
 * of {@code docs}). Three workloads: 32 callers embedding one text each at a time (256 texts a round),
 * a batch of 64 and a batch of 256. Before timing, each peer's vectors are compared with uform's (the
 * least cosine, and the texts under {@value #MIN_COSINE}; see {@link #check}); then rounds interleave the peers, rotating their order, so the
 * shared machine's slow moments fall on all alike. Ratios are uform's texts/s over the peer's, per round.
 *
 * <p>Arguments: {@code [docs directory] [rounds]}, defaults {@code docs} and 5. Properties: {@code peers}
 * (names, the first the reference), {@code workloads} (indices), {@code uform.before.jar}. Run by
 * {@code benchmarks/embedding.sh}.
 */
public final class EmbeddingPeers {

	static final double MIN_COSINE = 0.999;

	static final double WRONG_COSINE = 0.95;

	static final int CALLERS = 32;

	/** The peers' tokenizer cuts at 128 tokens ({@code tokenizer.json}); longer texts would differ by the cut. */
	static final int MAX_TOKENS = 128;

	private EmbeddingPeers() {
	}

	public static void main(String[] args) throws Exception {
		Path docs = Path.of((args.length > 0) ? args[0] : "docs");
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
		int cores = Runtime.getRuntime().availableProcessors();
		List<String> texts = fitting(Paragraphs.of(docs));
		System.out.printf(Locale.ROOT, "%d cores, Java %s, %d rounds%n", cores, System.getProperty("java.version"),
				rounds);
		List<Workload> workloads = new ArrayList<>(List.of(Workload.callers(CALLERS, texts.subList(0, 256)),
				Workload.batch(texts.subList(0, 64)), Workload.batch(texts.subList(0, 256))));
		// -Dworkloads=0,2 and -Dpeers=uform,langchain4j-tuned narrow a diagnostic run.
		String only = System.getProperty("workloads");
		if (only != null) {
			List<Workload> chosen = new ArrayList<>();
			for (String index : only.split(",")) {
				chosen.add(workloads.get(Integer.parseInt(index.strip())));
			}
			workloads = chosen;
		}
		List<Peer> peers = new ArrayList<>();
		ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
		try {
			List<String> names = List.of(System.getProperty("peers",
					"uform,spring-ai,langchain4j,langchain4j-tuned,ort-own-threads").split(","));
			for (String name : names) {
				peers.add(switch (name.strip()) {
					case "uform" -> new UformPeer(cores);
					case "uform-before" -> new UformJarPeer(Path.of(System.getProperty("uform.before.jar",
							"uform-onnxruntime-before.jar")), cores);
					case "spring-ai" -> new SpringAiPeer();
					case "langchain4j" -> Langchain4jPeer.defaults();
					case "langchain4j-tuned" -> Langchain4jPeer.tuned(cores);
					case "ort-own-threads" -> new OrtOwnThreadsPeer(cores);
					default -> throw new IllegalArgumentException("no peer " + name + "; the peers are uform, uform-before "
							+ "(-Duform.before.jar), spring-ai, langchain4j, langchain4j-tuned, ort-own-threads (the first is "
							+ "the reference)");
				});
			}
			for (Workload workload : workloads) {
				check(workload, peers, callers);
				for (Peer peer : peers) {
					workload.run(peer, callers);
				}
				report(workload, peers, time(workload, peers, callers, rounds));
			}
		}
		finally {
			callers.shutdown();
			for (Peer peer : peers) {
				peer.close();
			}
		}
	}

	/**
	 * Times a workload on every peer, {@link #interleave interleaved}.
	 * @return nanoseconds per peer and round
	 */
	static long[][] time(Workload workload, List<? extends Peer> peers, ExecutorService callers, int rounds)
			throws Exception {
		long[][] nanos = new long[peers.size()][rounds];
		interleave(peers.size(), rounds, (p, r) -> {
			long start = System.nanoTime();
			workload.run(peers.get(p), callers);
			nanos[p][r] = System.nanoTime() - start;
		});
		return nanos;
	}

	/**
	 * Runs every side once a round, the order rotating by one each round, so that the shared machine's
	 * slow moments, and whatever one side leaves behind for the next (a pool still spinning, garbage),
	 * fall on all sides alike.
	 * @param sides how many sides
	 * @param rounds how many rounds
	 * @param turn one side's turn in one round
	 */
	static void interleave(int sides, int rounds, Turn turn) throws Exception {
		for (int r = 0; r < rounds; r++) {
			for (int i = 0; i < sides; i++) {
				turn.run((i + r) % sides, r);
			}
		}
	}

	/** One side's turn in one round of {@link #interleave}. */
	@FunctionalInterface
	interface Turn {

		/**
		 * Runs the side once.
		 * @param side the side's index
		 * @param round the round's index
		 */
		void run(int side, int round) throws Exception;
	}

	/**
	 * Every peer's vectors against uform's (the first peer's). A peer that pads a batch into one call
	 * cannot match to {@value #MIN_COSINE} on this model: its activations are quantized with one scale
	 * per call, padding included, so each vector shifts with its batch. Those are reported, and the run
	 * stops only where a peer is far off ({@value #WRONG_COSINE}: another model or other tokens).
	 */
	static void check(Workload workload, List<? extends Peer> peers, ExecutorService callers) throws Exception {
		float[][] reference = workload.run(peers.get(0), callers);
		StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%n%s, least cosine to %s (texts under %s):",
				workload.name(), peers.get(0).name(), MIN_COSINE));
		for (Peer peer : peers.subList(1, peers.size())) {
			float[][] theirs = workload.run(peer, callers);
			double cosine = Vectors.minCosine(reference, theirs);
			line.append(String.format(Locale.ROOT, " %s %.5f (%d)", peer.name(), cosine,
					Vectors.countUnder(reference, theirs, MIN_COSINE)));
			if (cosine < WRONG_COSINE) {
				throw new IllegalStateException(peer.name() + "'s vectors are not " + peers.get(0).name()
						+ "'s: cosine " + cosine + " under " + WRONG_COSINE + "; is it the same model and tokenizer?");
			}
		}
		System.out.println(line);
	}

	static void report(Workload workload, List<? extends Peer> peers, long[][] nanos) {
		System.out.printf(Locale.ROOT, "%-18s %9s %9s   %s%n", "peer", "texts/s", "median ms",
				peers.get(0).name() + " over it: median [min-max] of rounds");
		for (int p = 0; p < peers.size(); p++) {
			double[] ratios = new double[nanos[p].length];
			for (int r = 0; r < ratios.length; r++) {
				ratios[r] = (double) nanos[p][r] / nanos[0][r];
			}
			Arrays.sort(ratios);
			double median = median(nanos[p]);
			String ratio = (p == 0) ? "" : String.format(Locale.ROOT, "x%.2f [%.2f-%.2f]", ratios[ratios.length / 2],
					ratios[0], ratios[ratios.length - 1]);
			System.out.printf(Locale.ROOT, "%-18s %9.1f %9.1f   %s%n", peers.get(p).name(),
					workload.texts().size() * 1e9 / median, median / 1e6, ratio);
		}
	}

	static double median(long[] values) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		return (sorted.length % 2 == 1) ? sorted[sorted.length / 2]
				: (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2.0;
	}

	/** The paragraphs every peer embeds whole, and what they are. */
	static List<String> fitting(List<String> paragraphs) throws Exception {
		List<String> texts = new ArrayList<>();
		List<Integer> tokens = new ArrayList<>();
		try (InputStream json = ModelFiles.open(ModelFiles.TOKENIZER);
				HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.newInstance(json,
						Map.of("padding", "false", "truncation", "false"))) {
			for (String paragraph : paragraphs) {
				int count = tokenizer.encode(paragraph).getIds().length;
				if (count <= MAX_TOKENS) {
					texts.add(paragraph);
					tokens.add(count);
				}
			}
		}
		if (texts.size() < 256) {
			throw new IllegalStateException("only " + texts.size() + " paragraphs of at most " + MAX_TOKENS
					+ " tokens in the docs; 256 are needed");
		}
		int[] chars = texts.subList(0, 256).stream().mapToInt(String::length).sorted().toArray();
		int[] counts = tokens.subList(0, 256).stream().mapToInt(Integer::intValue).sorted().toArray();
		System.out.printf(Locale.ROOT, "%d paragraphs of %d-%d characters, %d over %d tokens left out; the first 256: "
				+ "characters %d/%d/%d, tokens %d/%d/%d (min/median/max)%n", paragraphs.size(), Paragraphs.SHORTEST,
				Paragraphs.LONGEST, paragraphs.size() - texts.size(), MAX_TOKENS, chars[0], chars[128], chars[255],
				counts[0], counts[128], counts[255]);
		return texts;
	}

	/** What one round asks of a peer. */
	record Workload(String name, List<String> texts, int callers) {

		static Workload callers(int callers, List<String> texts) {
			return new Workload(callers + " callers x 1 text", texts, callers);
		}

		static Workload batch(List<String> texts) {
			return new Workload("batch " + texts.size(), texts, 0);
		}

		float[][] run(Peer peer, ExecutorService pool) throws Exception {
			if (this.callers == 0) {
				return peer.embedAll(this.texts);
			}
			float[][] vectors = new float[this.texts.size()][];
			List<Callable<Void>> tasks = new ArrayList<>();
			for (int c = 0; c < this.callers; c++) {
				int caller = c;
				tasks.add(() -> {
					for (int i = caller; i < vectors.length; i += this.callers) {
						vectors[i] = peer.embed(this.texts.get(i));
					}
					return null;
				});
			}
			for (Future<Void> done : pool.invokeAll(tasks)) {
				done.get();
			}
			return vectors;
		}
	}
}
