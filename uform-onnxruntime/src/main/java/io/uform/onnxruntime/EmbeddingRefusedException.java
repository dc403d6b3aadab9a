package io.uform.onnxruntime;

/**
 * A request a model refuses before it costs the executor anything: no texts, too many, an empty text,
 * or one longer than the model takes under {@link Truncation#REFUSE}. The message names the text
 * and says what to do; a service answers it as the client's mistake (400), never as its own.
 */
public final class EmbeddingRefusedException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message what was wrong and how to fix it
	 */
	public EmbeddingRefusedException(String message) {
		super(message);
	}
}
