package io.uform.sample;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

import io.uform.sample.passages.DocumentSource;

/**
 * {@link RuntimeHintsRegistrar} for the class-path resources the sample reads by name: the files its
 * {@code uform.models} entries name ({@code sample-models.yml}: both all-MiniLM-L6-v2 models and their
 * tokenizers, from langchain4j's model jars), and the docs pages bundled as its default corpus. uform's own hints come
 * with the starter; the beans, controllers and their JSON types Spring's AOT processing finds itself.
 *
 * <p>ONNX Runtime and DJL's tokenizers load their native libraries from their jars and call back
 * into Java through JNI: a native image of the sample needs those libraries' own reachability
 * metadata, which neither publishes, so it is not given here (docs/aot.md says what is verified).
 */
class SampleRuntimeHints implements RuntimeHintsRegistrar {

	/** The models' files and their tokenizers, as sample-models.yml names them. */
	static final String MODELS = "all-minilm-l6-v2*";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources()
			.registerPattern(MODELS)
			.registerPattern(DocumentSource.BUNDLED + "/**")
			.registerPattern(SampleModels.RESOURCE);
	}
}
