package io.uform.sample.openai;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * OpenAI's embeddings API, so that existing clients (OpenAI's SDKs, Spring AI's and langchain4j's
 * OpenAI embedding models) can use the sample's models: {@code POST /v1/embeddings} and
 * {@code GET /v1/models}. What OpenAI documents is honoured or refused by name, never ignored:
 * {@code input} is a string or an array of strings (token arrays are refused), {@code model} one of
 * {@link ServedModels}, {@code encoding_format} {@code float} or {@code base64} (little-endian float32),
 * {@code dimensions} only the model's own (these models cannot shorten their vectors).
 */
@RestController
@ConditionalOnBooleanProperty(name = "sample.embedding.enabled", matchIfMissing = true)
public class OpenAiEmbeddingsController {

	private final ServedModels models;

	private final long created = Instant.now().getEpochSecond();

	OpenAiEmbeddingsController(ServedModels models) {
		this.models = models;
	}

	/**
	 * Embeds the input with the model named.
	 * @param body OpenAI's embeddings request
	 * @return OpenAI's embeddings response
	 */
	@PostMapping("/v1/embeddings")
	public Map<String, Object> embeddings(@RequestBody(required = false) @Nullable JsonNode body) {
		if (body == null || !body.isObject()) {
			throw OpenAiException.invalid(null, "the body must be a JSON object like {\"model\": \"" + ids().get(0)
					+ "\", \"input\": \"a sentence\"}");
		}
		ServedModels.ServedModel model = model(body.get("model"));
		List<String> input = input(body.get("input"), model);
		boolean base64 = base64(body.get("encoding_format"));
		JsonNode dimensions = body.get("dimensions");
		if (dimensions != null && !dimensions.isNull()
				&& !(dimensions.isIntegralNumber() && dimensions.asLong() == model.dimensions())) {
			throw OpenAiException.invalid("dimensions", "dimensions must be " + model.dimensions() + ", the dimension of "
					+ model.id() + ", or left out (its vectors cannot be shortened); was " + dimensions);
		}
		ServedModels.Embedded embedded = model.embed(input, "input");
		List<Map<String, Object>> data = new ArrayList<>(input.size());
		long tokens = 0;
		for (int i = 0; i < input.size(); i++) {
			float[] vector = embedded.vectors()[i];
			data.add(Map.of("object", "embedding", "index", i, "embedding", base64 ? encode(vector) : vector));
			tokens += embedded.tokens()[i];
		}
		return Map.of("object", "list", "data", data, "model", model.id(), "usage",
				Map.of("prompt_tokens", tokens, "total_tokens", tokens));
	}

	/**
	 * The models served.
	 * @return OpenAI's model list
	 */
	@GetMapping("/v1/models")
	public Map<String, Object> models() {
		List<Map<String, Object>> data = new ArrayList<>();
		for (ServedModels.ServedModel model : this.models.all()) {
			data.add(describe(model));
		}
		return Map.of("object", "list", "data", data);
	}

	/**
	 * One model.
	 * @param id its id
	 * @return OpenAI's model object
	 */
	@GetMapping("/v1/models/{id}")
	public Map<String, Object> model(@PathVariable String id) {
		return describe(this.models.named(id).orElseThrow(() -> notFound(id)));
	}

	private Map<String, Object> describe(ServedModels.ServedModel model) {
		return Map.of("id", model.id(), "object", "model", "created", this.created, "owned_by", "uform-sample");
	}

	private ServedModels.ServedModel model(@Nullable JsonNode model) {
		if (model == null || model.isNull()) {
			throw OpenAiException.invalid("model", "model is missing: name one of " + ids());
		}
		if (!model.isString()) {
			throw OpenAiException.invalid("model", "model must be a string, one of " + ids() + "; was " + model);
		}
		return this.models.named(model.asString()).orElseThrow(() -> notFound(model.asString()));
	}

	private OpenAiException notFound(String id) {
		return new OpenAiException(HttpStatus.NOT_FOUND, "model", "model_not_found",
				"The model '" + id + "' does not exist; this server has " + ids());
	}

	private List<String> input(@Nullable JsonNode input, ServedModels.ServedModel model) {
		int maxTexts = model.maxTexts();
		if (input == null || input.isNull()) {
			throw OpenAiException.invalid("input", "input is missing: give a string, or an array of 1 to " + maxTexts
					+ " strings");
		}
		if (input.isString()) {
			return List.of(input.asString());
		}
		if (!input.isArray() || input.isEmpty()) {
			throw OpenAiException.invalid("input", "input must be a string, or an array of 1 to " + maxTexts
					+ " strings; was " + (input.isArray() ? "an empty array" : input.getNodeType().name().toLowerCase()));
		}
		if (input.size() > maxTexts) {
			throw OpenAiException.invalid("input", "input has " + input.size() + " strings, at most " + maxTexts
					+ " per request for " + model.id() + " (uform.models." + model.id() + ".max-texts); split them over several "
					+ "requests");
		}
		List<String> texts = new ArrayList<>(input.size());
		for (int i = 0; i < input.size(); i++) {
			JsonNode text = input.get(i);
			if (!text.isString()) {
				throw OpenAiException.invalid("input", "input[" + i + "] must be a string; was " + text
						+ (text.isNumber() || text.isArray() ? " (token ids are not taken: send the text)" : ""));
			}
			texts.add(text.asString());
		}
		return texts;
	}

	private static boolean base64(@Nullable JsonNode format) {
		if (format == null || format.isNull() || (format.isString() && format.asString().equals("float"))) {
			return false;
		}
		if (format.isString() && format.asString().equals("base64")) {
			return true;
		}
		throw OpenAiException.invalid("encoding_format", "encoding_format must be float or base64; was " + format);
	}

	/** As OpenAI sends it: the float32 values, little-endian, in base64. */
	static String encode(float[] vector) {
		ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
		for (float value : vector) {
			bytes.putFloat(value);
		}
		return Base64.getEncoder().encodeToString(bytes.array());
	}

	private List<String> ids() {
		return this.models.all().stream().map(ServedModels.ServedModel::id).collect(Collectors.toList());
	}
}
