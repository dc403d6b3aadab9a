package io.uform.sample.search;

/**
 * A search request the service cannot answer as asked: a wrong dimension, a {@code k} out of range,
 * a value that is not finite, an unknown engine. Answered with 400 and the message.
 */
public class BadSearchException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message what was wrong and what is accepted
	 */
	public BadSearchException(String message) {
		super(message);
	}
}
