package io.uform.onnxruntime;

/**
 * A request a model refuses before it costs the executor anything: no texts, too many, an empty text,
 * or one longer than the model takes under {@link Truncation#REFUSE}. The message names the text
 * and says what to do; a service answers it as the client's mistake (400), never as its own, and may
 * word it its own way from {@link #text()} and {@link #tokens()}.
 */
public final class EmbeddingRefusedException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final int text;

	private final int tokens;

	/**
	 * @param message what was wrong and how to fix it
	 * @param text the refused text's position in the request, or {@code -1} when the request as a
	 *        whole was refused
	 * @param tokens the refused text's tokens when it was too long, else {@code -1}
	 */
	public EmbeddingRefusedException(String message, int text, int tokens) {
		super(message);
		this.text = text;
		this.tokens = tokens;
	}

	/**
	 * The text refused.
	 * @return its position in the request, or {@code -1} when the request as a whole was refused
	 */
	public int text() {
		return this.text;
	}

	/**
	 * How long the refused text was.
	 * @return its tokens, special tokens included, when it was too long; {@code -1} otherwise
	 */
	public int tokens() {
		return this.tokens;
	}
}
