package io.uform.bench.embedding;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.transformers.TransformersEmbeddingModel;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.spring.autoconfigure.models.ModelReports;

/**
 * Issue #41's performance section: one Spring Boot application (non-web, every auto-configuration on this
 * class path, the uform starter among them) in three forms, side by side in one JVM, each asked for Spring
 * AI's {@link EmbeddingModel} and measured through that interface only.
 * <ul>
 * <li>{@code uform}: the starter's model, from {@code uform.models.minilm} (the bean the starter makes);</li>
 * <li>{@code spring-ai}: Spring AI's own {@link TransformersEmbeddingModel} as the application's bean, at its
 * defaults, which are also its fairest tuning: it has no setting for threads (it makes its ONNX Runtime
 * session with default options, adding only a GPU where asked), and its tokenizer already pads a batch only
 * to the batch's longest text (DJL's default, whatever {@code tokenizer.json} fixes);</li>
 * <li>{@code base}: the application with no model at all (startup only).</li>
 * </ul>
 * Same model file and tokenizer ({@link ModelFiles}), same texts ({@link Paragraphs}, those
 * {@link EmbeddingPeers#fitting} keeps). Startup: each form is started and closed once a round, the order
 * {@link EmbeddingPeers#interleave rotating}; a round records the start ({@code SpringApplication.run}), the
 * model's load time (uform's as the starter reports it, through {@link ModelReports}; Spring AI's as its
 * {@code afterPropertiesSet}, timed by a bean post-processor) and the first call. What the starter adds beyond
 * its model's load is, per round, {@code uform start - base start - uform load}. Throughput: the two forms with
 * a model run at once, each its own context, and the workloads of {@link EmbeddingPeers} (32 callers of one
 * text, batches of 64 and 256) are timed interleaved; ratios are uform's texts/s over the peer's, per round.
 * Batch 256 holds the 32 callers' texts, so uform's rate there over Spring AI's at 32 callers bounds the
 * callers' ratio.
 *
 * <p>Arguments: {@code [docs directory] [rounds]}, defaults {@code docs} and 5; startup takes three times as many
 * rounds (they are short), or {@code -DstartupRounds}. Run by
 * {@code MAIN=io.uform.bench.embedding.SpringEmbeddingPeers benchmarks/embedding.sh}.
 */
public final class SpringEmbeddingPeers {

	static final String MODEL_NAME = "minilm";

	private SpringEmbeddingPeers() {
	}

	public static void main(String[] args) throws Exception {
		Path docs = Path.of((args.length > 0) ? args[0] : "docs");
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
		List<String> texts = EmbeddingPeers.fitting(Paragraphs.of(docs));
		System.out.printf(Locale.ROOT, "%d cores, Java %s (%s), %d rounds%n", Runtime.getRuntime().availableProcessors(),
				System.getProperty("java.version"), System.getProperty("java.vm.name"), rounds);
		startup(texts.get(0), Integer.getInteger("startupRounds", 3 * rounds));
		throughput(texts, rounds);
	}

	/** The application's forms, each started as its own context. */
	enum Form {

		BASE("base"), UFORM("uform"), SPRING_AI("spring-ai");

		final String label;

		Form(String label) {
			this.label = label;
		}

		ConfigurableApplicationContext start() {
			SpringApplicationBuilder builder = new SpringApplicationBuilder(Application.class)
				.web(WebApplicationType.NONE)
				.bannerMode(Banner.Mode.OFF)
				.logStartupInfo(false)
				.registerShutdownHook(false);
			return switch (this) {
				case BASE -> builder.run();
				case UFORM -> builder.properties(
						"uform.models." + MODEL_NAME + ".model=classpath:/" + ModelFiles.MODEL,
						"uform.models." + MODEL_NAME + ".tokenizer=classpath:/" + ModelFiles.TOKENIZER,
						"uform.models." + MODEL_NAME + ".max-tokens=256")
					.run();
				case SPRING_AI -> builder.sources(SpringAiModel.class).run();
			};
		}

		/** The model's load time in this context, as reported (uform) or timed (Spring AI); 0 where none. */
		long loadMillis(ConfigurableApplicationContext context) {
			return switch (this) {
				case BASE -> 0;
				case UFORM -> context.getBean(ModelReports.class).reports().get(MODEL_NAME).loadMillis();
				case SPRING_AI -> context.getBean(InitTimer.class).nanos / 1_000_000;
			};
		}
	}

	private static void startup(String text, int rounds) throws Exception {
		List<Form> forms = List.of(Form.BASE, Form.UFORM, Form.SPRING_AI);
		long[][] start = new long[forms.size()][rounds];
		long[][] load = new long[forms.size()][rounds];
		long[][] first = new long[forms.size()][rounds];
		System.out.printf(Locale.ROOT, "%nStartup: each form started and closed once a round (ms)%n%-6s %-10s %8s %8s %11s%n",
				"round", "form", "start", "load", "first call");
		// The JVM's first start of each form, in this order, before the rounds: its first call is the one a
		// freshly started service's first request pays (Spring AI's loads DJL's PyTorch engine then).
		for (int f = 0; f < forms.size(); f++) {
			startOnce(forms.get(f), text, "cold", null, null, null, 0);
		}
		EmbeddingPeers.interleave(forms.size(), rounds,
				(f, r) -> startOnce(forms.get(f), text, String.valueOf(r + 1), start[f], load[f], first[f], r));
		System.out.printf(Locale.ROOT, "%n%-10s %26s %24s %24s%n", "form", "start ms: median [min, max]",
				"load ms", "first call ms");
		for (int f = 0; f < forms.size(); f++) {
			System.out.printf(Locale.ROOT, "%-10s %26s %24s %24s%n", forms.get(f).label, spread(start[f]),
					spread(load[f]), spread(first[f]));
		}
		for (int f = 1; f < forms.size(); f++) {
			long[] beyond = new long[rounds];
			for (int r = 0; r < rounds; r++) {
				beyond[r] = start[f][r] - start[0][r] - load[f][r];
			}
			System.out.printf(Locale.ROOT, "%s start - base start - its model's load, per round: %s%n", forms.get(f).label,
					spread(beyond));
		}
	}

	private static void startOnce(Form form, String text, String round, long[] start, long[] load, long[] first,
			int r) {
		long began = System.nanoTime();
		ConfigurableApplicationContext context = form.start();
		long started = System.nanoTime() - began;
		try {
			long loaded = form.loadMillis(context);
			long firstCall = 0;
			if (form != Form.BASE) {
				EmbeddingModel model = context.getBean(EmbeddingModel.class);
				long call = System.nanoTime();
				model.embed(text);
				firstCall = System.nanoTime() - call;
			}
			System.out.printf(Locale.ROOT, "%-6s %-10s %8.1f %8d %11s%n", round, form.label, started / 1e6, loaded,
					(form == Form.BASE) ? "-" : String.format(Locale.ROOT, "%.1f", firstCall / 1e6));
			if (start != null) {
				start[r] = started / 1_000;
				load[r] = loaded * 1_000;
				first[r] = firstCall / 1_000;
			}
		}
		finally {
			context.close();
		}
	}

	private static void throughput(List<String> texts, int rounds) throws Exception {
		List<ContextPeer> peers = new ArrayList<>();
		ExecutorService callers = Executors.newFixedThreadPool(EmbeddingPeers.CALLERS);
		try {
			for (Form form : List.of(Form.UFORM, Form.SPRING_AI)) {
				peers.add(new ContextPeer(form.label, form.start()));
			}
			// Batch 256 is the 32 callers' texts as one batch: uform's rate there bounds its rate for the callers,
			// who ask for the same session calls one text at a time.
			List<EmbeddingPeers.Workload> workloads = List.of(
					EmbeddingPeers.Workload.callers(EmbeddingPeers.CALLERS, texts.subList(0, 256)),
					EmbeddingPeers.Workload.batch(texts.subList(0, 64)), EmbeddingPeers.Workload.batch(texts.subList(0, 256)));
			List<long[][]> timed = new ArrayList<>();
			for (EmbeddingPeers.Workload workload : workloads) {
				EmbeddingPeers.check(workload, peers, callers);
				for (ContextPeer peer : peers) {
					workload.run(peer, callers);
				}
				long[][] nanos = EmbeddingPeers.time(workload, peers, callers, rounds);
				System.out.printf(Locale.ROOT, "texts/s per round:%n");
				for (int p = 0; p < peers.size(); p++) {
					StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-18s", peers.get(p).name()));
					for (long round : nanos[p]) {
						line.append(String.format(Locale.ROOT, " %7.1f", workload.texts().size() * 1e9 / round));
					}
					System.out.println(line);
				}
				EmbeddingPeers.report(workload, peers, nanos);
				timed.add(nanos);
			}
			double[] bound = new double[rounds];
			for (int r = 0; r < rounds; r++) {
				bound[r] = (double) timed.get(0)[1][r] / timed.get(2)[0][r];
			}
			Arrays.sort(bound);
			System.out.printf(Locale.ROOT, "%nBound at 32 callers: uform's batch-256 texts/s over %s's at 32 callers, "
					+ "per round: x%.2f [%.2f-%.2f]%n", peers.get(1).name(), bound[rounds / 2], bound[0], bound[rounds - 1]);
		}
		finally {
			callers.shutdown();
			for (ContextPeer peer : peers) {
				peer.close();
			}
		}
	}

	/** Median [min, max] of microseconds, in milliseconds. */
	private static String spread(long[] micros) {
		long[] sorted = micros.clone();
		Arrays.sort(sorted);
		return String.format(Locale.ROOT, "%.1f [%.1f, %.1f]", EmbeddingPeers.median(sorted) / 1e3, sorted[0] / 1e3,
				sorted[sorted.length - 1] / 1e3);
	}

	/** A running application, embedding through the Spring AI {@link EmbeddingModel} it injects. */
	static final class ContextPeer implements Peer {

		private final String name;

		private final ConfigurableApplicationContext context;

		private final EmbeddingModel model;

		ContextPeer(String name, ConfigurableApplicationContext context) {
			this.name = name;
			this.context = context;
			this.model = context.getBean(EmbeddingModel.class);
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public float[][] embedAll(List<String> texts) {
			return this.model.embed(texts).toArray(float[][]::new);
		}

		@Override
		public float[] embed(String text) {
			return this.model.embed(text);
		}

		@Override
		public void close() {
			this.context.close();
		}
	}

	/**
	 * The application: every auto-configuration on the class path (the uform starter's among them), no
	 * component scan, so that each form adds only what it names.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

	/**
	 * Spring AI's model as an application declares it, on the files of {@link ModelFiles}; caching off only
	 * because they are local already.
	 */
	@Configuration(proxyBeanMethods = false)
	static class SpringAiModel {

		@Bean
		TransformersEmbeddingModel transformersEmbeddingModel() {
			TransformersEmbeddingModel model = new TransformersEmbeddingModel();
			model.setModelResource("classpath:" + ModelFiles.MODEL);
			model.setTokenizerResource("classpath:" + ModelFiles.TOKENIZER);
			model.setDisableCaching(true);
			return model;
		}

		@Bean
		static InitTimer initTimer() {
			return new InitTimer();
		}
	}

	/**
	 * Times Spring AI's model's initialisation ({@code afterPropertiesSet}: reading the files, the tokenizer,
	 * the session), which Spring runs between these two callbacks: the counterpart of the load time the
	 * starter reports for its own.
	 */
	static final class InitTimer implements BeanPostProcessor {

		// Both callbacks run on the thread that makes the bean (the one starting the context); nanos is read
		// after the context has started, on that thread too: volatile only so that no other reader is wrong.
		private long began;

		volatile long nanos;

		@Override
		public Object postProcessBeforeInitialization(Object bean, String beanName) {
			if (bean instanceof TransformersEmbeddingModel) {
				this.began = System.nanoTime();
			}
			return bean;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof TransformersEmbeddingModel) {
				this.nanos = System.nanoTime() - this.began;
			}
			return bean;
		}
	}
}
