package io.uform.sample.passages;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Cuts a Markdown or plain-text document into passages of a few sentences, each kept with its file
 * and the heading above it. Paragraphs are split at sentence ends and their sentences grouped up to
 * {@link #MAX_SENTENCES} or {@link #MAX_CHARS}; each table row is a passage of its own (a row of a
 * properties table answers one question); fenced code is left out, being no prose for the model.
 */
public final class PassageSplitter {

	/** Sentences grouped into one passage at most. */
	static final int MAX_SENTENCES = 3;

	/** Characters of one passage at most, unless a single sentence is longer: well within 256 tokens. */
	static final int MAX_CHARS = 600;

	private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?:])\\s+(?=[A-Z`(\\[\"])");

	private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");

	private static final Pattern EMPHASIS = Pattern.compile("\\*\\*");

	private static final Pattern TABLE_RULE = Pattern.compile("^\\|?\\s*:?-{2,}.*");

	private static final Pattern LIST_ITEM = Pattern.compile("^\\s*([-*+]|\\d+[.)])\\s+.*");

	private PassageSplitter() {
	}

	/**
	 * Splits one document.
	 * @param file its path relative to the corpus, as passages report it
	 * @param text its content
	 * @return its passages, in document order
	 */
	public static List<Passage> split(String file, String text) {
		List<Passage> passages = new ArrayList<>();
		String fallback = file.substring(file.lastIndexOf('/') + 1);
		String heading = fallback;
		StringBuilder paragraph = new StringBuilder();
		boolean inCode = false;
		for (String line : text.split("\\R")) {
			String stripped = line.strip();
			if (stripped.startsWith("```") || stripped.startsWith("~~~")) {
				flush(file, heading, paragraph, passages);
				inCode = !inCode;
				continue;
			}
			if (inCode) {
				continue;
			}
			if (stripped.startsWith("#")) {
				flush(file, heading, paragraph, passages);
				String title = clean(stripped.replaceFirst("^#+\\s*", ""));
				heading = title.isEmpty() ? fallback : title;
			}
			else if (stripped.startsWith("|")) {
				flush(file, heading, paragraph, passages);
				if (!TABLE_RULE.matcher(stripped).matches()) {
					String row = clean(String.join(" ", stripped.replaceAll("^\\||\\|$", "").split("\\s*\\|\\s*"))).strip();
					add(file, heading, row, passages);
				}
			}
			else if (stripped.isEmpty()) {
				flush(file, heading, paragraph, passages);
			}
			else {
				if (LIST_ITEM.matcher(line).matches() && line.indexOf(stripped.charAt(0)) == 0) {
					// A top-level list item starts its own paragraph: items rarely continue each other's sentences.
					flush(file, heading, paragraph, passages);
				}
				if (!paragraph.isEmpty()) {
					paragraph.append(' ');
				}
				paragraph.append(stripped.replaceFirst("^([-*+]|\\d+[.)])\\s+", ""));
			}
		}
		flush(file, heading, paragraph, passages);
		return passages;
	}

	private static void flush(String file, String heading, StringBuilder paragraph, List<Passage> into) {
		if (paragraph.isEmpty()) {
			return;
		}
		String text = clean(paragraph.toString());
		paragraph.setLength(0);
		StringBuilder passage = new StringBuilder();
		int sentences = 0;
		for (String sentence : SENTENCE_END.split(text)) {
			if (sentences > 0 && (sentences == MAX_SENTENCES || passage.length() + 1 + sentence.length() > MAX_CHARS)) {
				add(file, heading, passage.toString(), into);
				passage.setLength(0);
				sentences = 0;
			}
			if (!passage.isEmpty()) {
				passage.append(' ');
			}
			passage.append(sentence);
			sentences++;
		}
		add(file, heading, passage.toString(), into);
	}

	private static void add(String file, String heading, String text, List<Passage> into) {
		// A passage needs a word or two: a lone "---" or a table cell with a dash tells the reader nothing.
		if (text.codePoints().filter(Character::isLetter).count() >= 3) {
			into.add(new Passage(file, heading, text));
		}
	}

	/** Links to their words, bold and backticks dropped, whitespace collapsed. */
	private static String clean(String markdown) {
		String text = LINK.matcher(markdown).replaceAll("$1");
		text = EMPHASIS.matcher(text).replaceAll("");
		return text.replace("`", "").replaceAll("\\s+", " ").strip();
	}
}
