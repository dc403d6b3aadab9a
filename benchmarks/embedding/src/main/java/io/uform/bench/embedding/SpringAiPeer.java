package io.uform.bench.embedding;

import java.util.List;

import org.springframework.ai.transformers.TransformersEmbeddingModel;

/**
 * Spring AI's {@link TransformersEmbeddingModel} at its defaults, given the model file and tokenizer of
 * langchain4j's jar: one ONNX Runtime session at ONNX Runtime's default threading (an intra-op pool of
 * one thread per core), a batch as one call padded to its longest text (DJL's tokenizer pads so by
 * default; the 128 tokens {@code tokenizer.json} fixes are not applied), mean pooling with DJL's PyTorch
 * engine. Caching is off only because the files are already local.
 */
final class SpringAiPeer implements Peer {

	private final TransformersEmbeddingModel model = new TransformersEmbeddingModel();

	SpringAiPeer() throws Exception {
		this.model.setModelResource("classpath:" + ModelFiles.MODEL);
		this.model.setTokenizerResource("classpath:" + ModelFiles.TOKENIZER);
		this.model.setDisableCaching(true);
		this.model.afterPropertiesSet();
	}

	@Override
	public String name() {
		return "spring-ai";
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
	public void close() throws Exception {
		this.model.close();
	}
}
