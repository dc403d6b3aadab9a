package io.uform.sample.search;

/**
 * What a text must be before any model sees it, checked on the request thread without a tokenizer:
 * words in it, at most {@link #MAX_CHARS} characters, and no more tokens than the
 * model takes by the cheap count of {@link TokenFloor}.
 */
public final class TextChecks {

	/** Characters of one text at most: no text of 256 tokens comes near it, and it bounds the body read. */
	public static final int MAX_CHARS = 16 * 1024;

	private TextChecks() {
	}

	/**
	 * Refuses a text no model call should be spent on.
	 * @param text the text
	 * @param what the text as the request names it ({@code query}, {@code texts[2]})
	 * @param maxTokens the model's limit, special tokens included
	 * @throws BadSearchException naming the text and what is wrong with it
	 */
	public static void check(String text, String what, int maxTokens) {
		if (text == null || text.isBlank()) {
			throw new BadSearchException(what + " is " + ((text == null) ? "null" : "blank") + "; every text must have words");
		}
		if (text.length() > MAX_CHARS) {
			throw new BadSearchException(what + " has " + text.length() + " characters; the model takes at most "
					+ maxTokens + " tokens, and this service at most " + MAX_CHARS
					+ " characters: shorten it, or split it into several");
		}
		int floor = TokenFloor.of(text);
		if (floor > maxTokens) {
			throw new BadSearchException(what + " has at least " + floor + " tokens (its words and punctuation marks, "
					+ "[CLS] and [SEP]); the model takes at most " + maxTokens + ", and this service refuses "
					+ "rather than cut a text silently: shorten it, or split it into several");
		}
	}

	/**
	 * The refusal of a text the tokenizer found longer than the model takes.
	 * @param what the text, as the request names it
	 * @param tokens its length in tokens
	 * @param maxTokens the model's limit
	 * @return the exception to throw
	 */
	public static BadSearchException tooLong(String what, int tokens, int maxTokens) {
		return new BadSearchException(what + " is " + tokens + " tokens long; the model takes at most " + maxTokens
				+ " (word pieces, [CLS] and [SEP] included), and this service refuses rather than cut a text "
				+ "silently: shorten it, or split it into several");
	}
}
