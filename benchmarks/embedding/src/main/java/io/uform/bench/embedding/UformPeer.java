package io.uform.bench.embedding;

import java.util.List;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.onnxruntime.ModelSource;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.onnxruntime.TextEmbeddingOptions;

/**
 * uform's {@link TextEmbeddingModel} on a RAM executor of one thread per core, at its defaults: a
 * request is one deferred call that takes every request waiting, and each text is its own session
 * call, sliced across the executor's threads.
 */
final class UformPeer implements Peer {

	private final Executor executor;

	private final TextEmbeddingModel model;

	UformPeer(int threads) {
		this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(threads));
		this.model = TextEmbeddingModel.load(this.executor, ModelSource.classPath(ModelFiles.MODEL),
				ModelSource.classPath(ModelFiles.TOKENIZER), TextEmbeddingOptions.defaults().withName("all-minilm-l6-v2-q"));
	}

	@Override
	public String name() {
		return "uform";
	}

	@Override
	public float[][] embedAll(List<String> texts) {
		return this.model.embed(texts);
	}

	@Override
	public float[] embed(String text) {
		return this.model.embed(text);
	}

	@Override
	public void close() {
		this.model.close();
		this.executor.close();
	}
}
