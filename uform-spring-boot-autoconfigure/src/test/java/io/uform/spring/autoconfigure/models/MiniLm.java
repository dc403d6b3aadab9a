package io.uform.spring.autoconfigure.models;

/**
 * The test model, all-MiniLM-L6-v2 (quantized, 384 dimensions, 256 tokens): the ONNX file and its
 * tokenizer from langchain4j's model jar on the test class path, as {@code uform.models.minilm.*}.
 */
final class MiniLm {

	static final String MODEL = "classpath:/all-minilm-l6-v2-q.onnx";

	static final String TOKENIZER = "classpath:/all-minilm-l6-v2-q-tokenizer.json";

	static final int DIMENSIONS = 384;

	/** The properties of one entry of that name, with the model card's 256 tokens. */
	static String[] entry(String name) {
		return new String[] { "uform.models." + name + ".model=" + MODEL,
				"uform.models." + name + ".tokenizer=" + TOKENIZER, "uform.models." + name + ".max-tokens=256" };
	}

	private MiniLm() {
	}
}
