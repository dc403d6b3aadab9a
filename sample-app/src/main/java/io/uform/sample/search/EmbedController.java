package io.uform.sample.search;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import io.uform.onnxruntime.Embeddings;

/**
 * {@code POST /embed}: the model's vectors for a client's own texts, embedded on the RAM executor.
 */
@RestController
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
public class EmbedController {

	private final TextSearch text;

	EmbedController(TextSearch text) {
		this.text = text;
	}

	/**
	 * Embeds texts.
	 * @param request the texts
	 * @return a unit vector per text
	 */
	@PostMapping("/embed")
	public EmbedResponse embed(@RequestBody @Nullable EmbedRequest request) {
		if (request == null) {
			throw new BadSearchException("the body is empty: send {\"texts\": [\"a sentence\", ...]}, 1 to "
					+ this.text.maxTexts() + " texts");
		}
		Embeddings embeddings = this.text.embed(request.texts());
		return new EmbedResponse(this.text.model().name(), this.text.model().dimensions(), TextSearch.EMBEDDING_PATH,
				this.text.threads(), embeddings.batch().nanos() / 1_000, embeddings.tokens(), embeddings.vectors());
	}

	/**
	 * The body of {@code POST /embed}.
	 *
	 * @param texts the texts, each at most the model's {@code max-tokens}
	 */
	public record EmbedRequest(@Nullable List<String> texts) {
	}

	/**
	 * The vectors.
	 *
	 * @param model the model that made them, by its {@code uform.models} name
	 * @param dimensions floats per vector
	 * @param path what embedded them
	 * @param threads threads the batch was sliced across
	 * @param tookMicros time to embed the batch that served them on the executor
	 * @param tokens each text's tokens
	 * @param vectors a unit vector per text, in order
	 */
	public record EmbedResponse(String model, int dimensions, String path, int threads, long tookMicros, int[] tokens,
			float[][] vectors) {
	}
}
