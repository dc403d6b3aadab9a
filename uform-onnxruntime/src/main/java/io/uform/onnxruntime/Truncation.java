package io.uform.onnxruntime;

/** What happens to a text longer than the model's maximum tokens. */
public enum Truncation {

	/** Refuse it, naming the text and its length: nothing is cut silently. */
	REFUSE,

	/** Keep its first tokens and the closing special token (what TEI and OpenAI offer). */
	TRUNCATE
}
