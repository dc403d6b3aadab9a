package io.uform.sample.search;

/**
 * A text search or embedding that came before the passage index was built: answered 503 with
 * {@code Retry-After}, as readiness says {@code REFUSING_TRAFFIC} meanwhile.
 */
public class IndexNotReadyException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message how far the index is, or why it failed
	 */
	public IndexNotReadyException(String message) {
		super(message);
	}
}
