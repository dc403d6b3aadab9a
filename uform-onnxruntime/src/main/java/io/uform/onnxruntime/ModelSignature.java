package io.uform.onnxruntime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;

/**
 * The inputs and outputs an ONNX text model declares, read from the file rather than assumed:
 * {@code input_ids} and {@code attention_mask} (int64), {@code token_type_ids} where the model has
 * it, and the output to pool, {@code [batch, tokens, dimensions]} (a hidden state) or
 * {@code [batch, dimensions]} (already pooled).
 *
 * @param tokenTypes whether the model takes {@code token_type_ids}
 * @param output the output's name
 * @param pooled whether the output is already one vector per text
 */
record ModelSignature(boolean tokenTypes, String output, boolean pooled) {

	static final String INPUT_IDS = "input_ids";

	static final String ATTENTION_MASK = "attention_mask";

	static final String TOKEN_TYPE_IDS = "token_type_ids";

	static final String LAST_HIDDEN_STATE = "last_hidden_state";

	/**
	 * Reads a session's signature.
	 * @param session the session
	 * @param wanted the output asked for, or {@code null} to pick one
	 * @param model the model, for messages
	 * @return the signature
	 * @throws IllegalArgumentException naming what is missing or unknown, and what the file has
	 */
	static ModelSignature read(OrtSession session, String wanted, String model) throws OrtException {
		Map<String, NodeInfo> inputs = session.getInputInfo();
		for (String required : List.of(INPUT_IDS, ATTENTION_MASK)) {
			if (!inputs.containsKey(required)) {
				throw new IllegalArgumentException("model '" + model + "' has no input '" + required + "' (its inputs: "
						+ inputs.keySet() + "); a text embedding model takes input_ids and attention_mask");
			}
		}
		List<String> unknown = new ArrayList<>();
		for (Map.Entry<String, NodeInfo> input : inputs.entrySet()) {
			String name = input.getKey();
			if (!name.equals(INPUT_IDS) && !name.equals(ATTENTION_MASK) && !name.equals(TOKEN_TYPE_IDS)) {
				unknown.add(name);
			}
			else if (!(input.getValue().getInfo() instanceof TensorInfo tensor)
					|| tensor.type != OnnxJavaType.INT64) {
				throw new IllegalArgumentException("model '" + model + "' declares input '" + name + "' as "
						+ input.getValue().getInfo() + "; uform feeds int64 token tensors");
			}
		}
		if (!unknown.isEmpty()) {
			throw new IllegalArgumentException("model '" + model + "' takes inputs uform does not know how to feed: "
					+ unknown + " (it feeds input_ids, attention_mask and token_type_ids)");
		}
		Map<String, NodeInfo> outputs = session.getOutputInfo();
		String output = wanted;
		if (output == null) {
			output = outputs.containsKey(LAST_HIDDEN_STATE) ? LAST_HIDDEN_STATE
					: (outputs.size() == 1) ? outputs.keySet().iterator().next() : null;
			if (output == null) {
				throw new IllegalArgumentException("model '" + model + "' has no output '" + LAST_HIDDEN_STATE
						+ "' and several others " + outputs.keySet() + ": name the one to pool with "
						+ "TextEmbeddingOptions.withOutput(...)");
			}
		}
		NodeInfo info = outputs.get(output);
		if (info == null) {
			throw new IllegalArgumentException("model '" + model + "' has no output '" + output + "'; its outputs are "
					+ outputs.keySet() + ": name one of them with TextEmbeddingOptions.withOutput(...)");
		}
		if (!(info.getInfo() instanceof TensorInfo tensor) || tensor.type != OnnxJavaType.FLOAT
				|| (tensor.getShape().length != 2 && tensor.getShape().length != 3)) {
			throw new IllegalArgumentException("model '" + model + "' declares output '" + output + "' as "
					+ info.getInfo() + "; uform pools float [batch, tokens, dimensions] or takes float "
					+ "[batch, dimensions] as it is");
		}
		return new ModelSignature(inputs.containsKey(TOKEN_TYPE_IDS), output, tensor.getShape().length == 2);
	}
}
