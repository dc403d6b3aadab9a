package io.uform.sample.search;

/**
 * A lower bound on a text's tokens that costs one pass over its characters and no tokenizer: BERT's
 * basic tokenizer (all-MiniLM-L6-v2's) splits at whitespace, makes each punctuation mark and each CJK
 * ideograph a token of its own, and turns every other word into at least one word piece; {@code [CLS]}
 * and {@code [SEP]} add two. A text whose floor is over the model's limit is refused on the request
 * thread before anything tokenizes it.
 */
final class TokenFloor {

	private TokenFloor() {
	}

	/**
	 * Tokens the text has at least.
	 * @param text the text
	 * @return words, punctuation marks and ideographs, plus two
	 */
	static int of(String text) {
		int tokens = 2;
		boolean inWord = false;
		for (int i = 0; i < text.length();) {
			int c = text.codePointAt(i);
			i += Character.charCount(c);
			if (c == '\t' || c == '\n' || c == '\r' || Character.getType(c) == Character.SPACE_SEPARATOR) {
				inWord = false;
			}
			else if (c == 0 || c == 0xFFFD || Character.isISOControl(c) || Character.getType(c) == Character.FORMAT) {
				// Removed by the tokenizer's normalizer: neither a token nor a break.
				continue;
			}
			else if (isPunctuation(c) || isCjk(c)) {
				tokens++;
				inWord = false;
			}
			else if (!inWord) {
				tokens++;
				inWord = true;
			}
		}
		return tokens;
	}

	/** The CJK blocks whose ideographs BERT's tokenizer splits one by one (its _is_chinese_char). */
	private static boolean isCjk(int c) {
		return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
				|| (c >= 0x2A700 && c <= 0x2CEAF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
	}

	/** As BERT's tokenizer decides it: every ASCII non-alphanumeric symbol, and Unicode's P categories. */
	private static boolean isPunctuation(int c) {
		if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
			return true;
		}
		return switch (Character.getType(c)) {
			case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
					Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
					Character.OTHER_PUNCTUATION -> true;
			default -> false;
		};
	}
}
