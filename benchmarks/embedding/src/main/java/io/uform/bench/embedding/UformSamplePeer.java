package io.uform.bench.embedding;

import java.util.Arrays;
import java.util.List;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.sample.embedding.ExecutorEmbedder;
import io.uform.sample.embedding.MiniLm;

/**
 * The "before" figure: the sample's {@link ExecutorEmbedder} on a RAM executor (one session at one
 * intra-op thread; a batch tokenized in one fork and embedded in a second, each text its own session
 * call). One caller's text is a deferred call of its own: the sample had no batching outside its search
 * service.
 */
final class UformSamplePeer implements Peer {

	private final MiniLm model = MiniLm.load();

	private final Executor executor;

	private final ExecutorEmbedder embedder;

	UformSamplePeer(int threads) {
		this.executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(threads));
		this.embedder = new ExecutorEmbedder(this.model, this.executor);
	}

	@Override
	public String name() {
		return "uform-sample";
	}

	@Override
	public float[][] embedAll(List<String> texts) {
		return this.embedder.embed(Arrays.asList(this.embedder.tokenize(texts)));
	}

	@Override
	public float[] embed(String text) {
		return this.executor.defer(() -> embedAll(List.of(text))[0]).join();
	}

	@Override
	public void close() {
		this.model.close();
		this.executor.close();
	}
}
