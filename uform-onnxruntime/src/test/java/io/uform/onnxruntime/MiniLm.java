package io.uform.onnxruntime;

/**
 * The test model: all-MiniLM-L6-v2 (quantized, 384 dimensions, 256 tokens), the ONNX file and the
 * tokenizer from langchain4j's model jar on the test class path. Never committed.
 */
final class MiniLm {

	static final ModelSource MODEL = ModelSource.classPath("all-minilm-l6-v2-q.onnx");

	static final ModelSource TOKENIZER = ModelSource.classPath("all-minilm-l6-v2-q-tokenizer.json");

	/** Its card: mean pooling, unit vectors, 256 tokens. */
	static final TextEmbeddingOptions OPTIONS = TextEmbeddingOptions.defaults().withName("all-minilm-l6-v2-q")
		.withMaxTokens(256);

	static final int DIMENSIONS = 384;

	/** Texts of several lengths. */
	static final java.util.List<String> TEXTS = java.util.List.of("How many threads does an executor own?",
			"A model owns its weights; an executor owns the threads and the scratch, so one executor serves several "
					+ "models and the cost of spawning threads is visible at the line that makes the executor.",
			"GPU", "Deferred calls run later, in submission order, one at a time, and may fork over all the threads.",
			"The mesh joins when its bean is made, so the web server opens only after the mesh is complete.",
			"Sequential execution, no spinning, intra-op and inter-op at one thread: the caller computes.",
			"uform", "Bad input gets a clear error naming what was wrong and how to fix it.");

	private MiniLm() {
	}
}
