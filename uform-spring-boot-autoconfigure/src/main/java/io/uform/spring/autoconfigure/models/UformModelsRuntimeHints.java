package io.uform.spring.autoconfigure.models;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * {@link RuntimeHintsRegistrar} for what the models load by name, where {@code uform-onnxruntime} is on
 * the class path: ONNX Runtime's natives ({@code ai/onnxruntime/native/**}, unpacked from its jar when it
 * loads) and the classes its JNI library makes and reads from C; DJL's tokenizer natives
 * ({@code native/lib/**}) and the class its JNI library makes. The model and tokenizer files themselves
 * are the application's resources, which Spring registers where a {@code classpath:} location names them
 * only if the application does: {@code docs/aot.md} says so.
 */
public class UformModelsRuntimeHints implements RuntimeHintsRegistrar {

	/** ONNX Runtime's libraries in its jar, by platform. */
	static final String ONNXRUNTIME_NATIVES = "ai/onnxruntime/native/**";

	/** DJL's tokenizer library in its jar, by platform, and the version file it reads first. */
	static final String TOKENIZER_NATIVES = "native/lib/**";

	/** Classes ONNX Runtime's JNI library makes, calls or reads fields of. */
	static final String[] ONNXRUNTIME_JNI = { "ai.onnxruntime.OnnxTensor", "ai.onnxruntime.OnnxSequence",
			"ai.onnxruntime.OnnxMap", "ai.onnxruntime.OnnxSparseTensor", "ai.onnxruntime.OrtException",
			"ai.onnxruntime.OrtSession$Result", "ai.onnxruntime.TensorInfo", "ai.onnxruntime.SequenceInfo",
			"ai.onnxruntime.MapInfo", "ai.onnxruntime.NodeInfo", "ai.onnxruntime.OrtSession",
			"ai.onnxruntime.OrtEnvironment", "ai.onnxruntime.OnnxValue" };

	/** The class DJL's tokenizer library makes. */
	static final String TOKENIZER_JNI = "ai.djl.huggingface.tokenizers.jni.CharSpan";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent("io.uform.onnxruntime.TextEmbeddingModel", classLoader)) {
			return;
		}
		hints.resources().registerPattern(ONNXRUNTIME_NATIVES).registerPattern(TOKENIZER_NATIVES);
		for (String type : ONNXRUNTIME_JNI) {
			hints.jni()
				.registerType(TypeReference.of(type), MemberCategory.INVOKE_DECLARED_CONSTRUCTORS,
						MemberCategory.INVOKE_DECLARED_METHODS, MemberCategory.ACCESS_DECLARED_FIELDS);
		}
		hints.jni()
			.registerType(TypeReference.of(TOKENIZER_JNI), MemberCategory.INVOKE_DECLARED_CONSTRUCTORS,
					MemberCategory.ACCESS_DECLARED_FIELDS);
	}
}
