package io.uform.sample.passages;

/**
 * {@code sample.corpus.path} names no directory of documents the sample can index: missing, not a
 * directory, without a {@code .md} or {@code .txt} file, or without a passage of prose. Startup fails
 * with it, and {@code CorpusFailureAnalyzer} reports it in a few lines rather than a stack trace.
 */
public class UnusableCorpusException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message what is wrong with the directory, naming the property and its value
	 */
	public UnusableCorpusException(String message) {
		super(message);
	}
}
