package io.uform.sample.embedding;

import java.time.Duration;

import io.uform.Executor;
import io.uform.onnxruntime.ModelSource;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.onnxruntime.TextEmbeddingOptions;

/**
 * The sample's search model, all-MiniLM-L6-v2 (quantized, 384 dimensions), from the resources of
 * langchain4j's model jar, for the tests and benchmarks that load it without the application (the
 * application's is the {@code uform.models.all-minilm-l6-v2-q} entry of {@code sample-models.yml}, which
 * the starter loads): the model owns the weights, the executor's threads do the work.
 */
public final class MiniLm {

	/** The model's name, in messages and meters. */
	public static final String NAME = "all-minilm-l6-v2-q";

	/** Floats per embedding. */
	public static final int DIMENSIONS = 384;

	/** Word pieces the model takes, {@code [CLS]} and {@code [SEP]} included (its card's max_seq_length). */
	public static final int MAX_TOKENS = 256;

	/** The model's ONNX file, a class-path resource of langchain4j's all-MiniLM-L6-v2 (quantized) jar. */
	public static final String MODEL = "/all-minilm-l6-v2-q.onnx";

	/** The model's tokenizer, beside it in the same jar. */
	public static final String TOKENIZER = "/all-minilm-l6-v2-q-tokenizer.json";

	private MiniLm() {
	}

	/**
	 * Loads the model onto an executor, as its card prescribes (mean pooling, unit vectors, 256 tokens),
	 * refusing texts too long unless a request asks for them to be cut (the indexer does).
	 * @param executor the RAM executor
	 * @param maxTexts texts one request takes at most
	 * @param slotWait how long a request waits for a deferred slot before the executor refuses it
	 * @return the model; close it before the executor is freed
	 */
	public static TextEmbeddingModel load(Executor executor, int maxTexts, Duration slotWait) {
		TextEmbeddingOptions options = TextEmbeddingOptions.defaults()
			.withName(NAME)
			.withMaxTokens(MAX_TOKENS)
			.withMaxTexts(maxTexts)
			.withSlotWait(slotWait);
		return TextEmbeddingModel.load(executor, ModelSource.classPath(MODEL), ModelSource.classPath(TOKENIZER), options);
	}
}
