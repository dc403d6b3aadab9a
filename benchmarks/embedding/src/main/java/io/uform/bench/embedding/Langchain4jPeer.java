package io.uform.bench.embedding;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * langchain4j's in-process model: {@code embedAll} hands each text to an executor, which embeds it as
 * its own session call (no padding). At its defaults ({@link AllMiniLmL6V2QuantizedEmbeddingModel}) the
 * executor has one thread per core and the session ONNX Runtime's default intra-op pool (one per core),
 * so two pools share the cores. Tuned, through its public extension point
 * ({@link AbstractInProcessEmbeddingModel} with an {@link OnnxBertBiEncoder} over our own session), the
 * session runs at one intra-op thread and the executor has one thread per core: the same split of work
 * as uform's, without the batching of concurrent callers.
 */
final class Langchain4jPeer implements Peer {

	private final String name;

	private final EmbeddingModel model;

	private final OrtSession session;

	private final ExecutorService executor;

	private Langchain4jPeer(String name, EmbeddingModel model, OrtSession session, ExecutorService executor) {
		this.name = name;
		this.model = model;
		this.session = session;
		this.executor = executor;
	}

	/** At its defaults. */
	static Langchain4jPeer defaults() {
		return new Langchain4jPeer("langchain4j", new AllMiniLmL6V2QuantizedEmbeddingModel(), null, null);
	}

	/** Tuned: one intra-op thread per session call, {@code threads} calls at once. */
	static Langchain4jPeer tuned(int threads) throws OrtException {
		OrtEnvironment environment = OrtEnvironment.getEnvironment();
		OrtSession session;
		try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
			options.setIntraOpNumThreads(1);
			options.setInterOpNumThreads(1);
			options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
			session = environment.createSession(ModelFiles.read(ModelFiles.MODEL), options);
		}
		OnnxBertBiEncoder encoder = new OnnxBertBiEncoder(environment, session, ModelFiles.open(ModelFiles.TOKENIZER),
				PoolingMode.MEAN);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		EmbeddingModel model = new AbstractInProcessEmbeddingModel(executor) {
			@Override
			protected OnnxBertBiEncoder model() {
				return encoder;
			}

			@Override
			protected Integer knownDimension() {
				return 384;
			}
		};
		return new Langchain4jPeer("langchain4j-tuned", model, session, executor);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public float[][] embedAll(List<String> texts) {
		return this.model.embedAll(texts.stream().map(TextSegment::from).toList())
			.content()
			.stream()
			.map((embedding) -> embedding.vector())
			.toArray(float[][]::new);
	}

	@Override
	public float[] embed(String text) {
		return this.model.embed(text).content().vector();
	}

	@Override
	public void close() throws Exception {
		if (this.executor != null) {
			this.executor.shutdown();
			this.session.close();
		}
	}
}
