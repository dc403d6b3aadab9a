package io.uform.sample.passages;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Cuts a Markdown or plain-text document into passages the way a retrieval pipeline does: section by
 * section (a passage never spans a heading, and is searched under it), paragraphs packed together up to
 * a token budget, a paragraph over the budget cut at sentence ends, a table kept whole with its heading
 * (or cut between rows, never inside one); fenced code and tables of measured results are left out,
 * being no prose for the model (a row of numbers matched every question about speed and answered none).
 */
public final class PassageSplitter {

	/**
	 * Tokens of one passage at most, estimated ({@link #tokens}): big enough to hold a paragraph or a
	 * property table's rows, well below the model's 256 once the heading is put in front.
	 */
	static final int TOKEN_BUDGET = 160;

	/** Characters of one passage at most, unless a single sentence is longer. */
	static final int MAX_CHARS = 1200;

	private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?:])\\s+(?=[A-Z`(\\[\"])");

	private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");

	private static final Pattern EMPHASIS = Pattern.compile("\\*\\*");

	private static final Pattern TABLE_RULE = Pattern.compile("^\\|?\\s*:?-{2,}.*");

	private static final Pattern LIST_ITEM = Pattern.compile("^\\s*([-*+]|\\d+[.)])\\s+.*");

	/** A cell that is a measurement: a number with a unit, a ratio, a percentage, a range. */
	private static final Pattern MEASURED = Pattern.compile("^[~≈<>±+\\-−]?\\s*[\\d.,]+\\s*(x|×|%|[µμnm]?s|ms|ns|us|[KMG]i?B|MB/s|GB/s|/s|ops/s)?"
			+ "(\\s*(±|\\+/-|–|-|to)\\s*[\\d.,]+\\s*\\S*)?$");

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
		Section section = new Section(file, fallback, passages);
		StringBuilder paragraph = new StringBuilder();
		List<String> table = new ArrayList<>();
		boolean inCode = false;
		for (String line : text.split("\\R")) {
			String stripped = line.strip();
			if (!stripped.startsWith("|") && !table.isEmpty()) {
				section.table(table);
			}
			if (stripped.startsWith("```") || stripped.startsWith("~~~")) {
				section.paragraph(paragraph);
				inCode = !inCode;
				continue;
			}
			if (inCode) {
				continue;
			}
			if (stripped.startsWith("#")) {
				section.paragraph(paragraph);
				section.end();
				String title = clean(stripped.replaceFirst("^#+\\s*", ""));
				section = new Section(file, title.isEmpty() ? fallback : title, passages);
			}
			else if (stripped.startsWith("|")) {
				section.paragraph(paragraph);
				if (!TABLE_RULE.matcher(stripped).matches()) {
					table.add(stripped);
				}
			}
			else if (stripped.isEmpty()) {
				section.paragraph(paragraph);
			}
			else {
				if (LIST_ITEM.matcher(line).matches() && line.indexOf(stripped.charAt(0)) == 0) {
					// A top-level list item starts its own paragraph: items rarely continue each other's sentences.
					section.paragraph(paragraph);
				}
				if (!paragraph.isEmpty()) {
					paragraph.append(' ');
				}
				paragraph.append(stripped.replaceFirst("^([-*+]|\\d+[.)])\\s+", ""));
			}
		}
		if (!table.isEmpty()) {
			section.table(table);
		}
		section.paragraph(paragraph);
		section.end();
		return passages;
	}

	/**
	 * Tokens a text comes to, roughly: its words and punctuation marks, and a third more for the words
	 * the tokenizer cuts into pieces (identifiers, property names).
	 * @param text the text
	 * @return the estimate
	 */
	static int tokens(String text) {
		int pieces = 0;
		boolean inWord = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isWhitespace(c)) {
				inWord = false;
			}
			else if (!Character.isLetterOrDigit(c)) {
				pieces++;
				inWord = false;
			}
			else if (!inWord) {
				pieces++;
				inWord = true;
			}
		}
		return pieces + pieces / 3;
	}

	/** One heading's content, packed into passages as it comes. */
	private static final class Section {

		private final String file;

		private final String heading;

		private final List<Passage> into;

		private final StringBuilder passage = new StringBuilder();

		Section(String file, String heading, List<Passage> into) {
			this.file = file;
			this.heading = heading;
			this.into = into;
		}

		/** A paragraph ends: its sentences join the passage, or start the next one where it is full. */
		void paragraph(StringBuilder paragraph) {
			if (paragraph.isEmpty()) {
				return;
			}
			String text = clean(paragraph.toString());
			paragraph.setLength(0);
			if (fits(text)) {
				append(text);
				return;
			}
			for (String sentence : SENTENCE_END.split(text)) {
				append(sentence);
			}
		}

		/** A table ends: kept whole where it fits, else cut between rows; results tables are left out. */
		void table(List<String> rows) {
			List<List<String>> cells = new ArrayList<>();
			for (String row : rows) {
				List<String> cellsOfRow = new ArrayList<>();
				for (String cell : row.replaceAll("^\\||\\|$", "").split("\\s*\\|\\s*")) {
					cellsOfRow.add(clean(cell));
				}
				cells.add(cellsOfRow);
			}
			rows.clear();
			if (isResults(cells)) {
				return;
			}
			// A table is its own passage (or passages): its rows read badly glued to a paragraph's end.
			flush();
			for (List<String> row : cells) {
				String text = String.join(" — ", row.stream().filter((cell) -> !cell.isBlank()).toList());
				append(text.matches(".*[.!?:]$") ? text : text + ".");
			}
			flush();
		}

		void end() {
			flush();
		}

		private boolean fits(String text) {
			String joined = this.passage.isEmpty() ? text : this.passage + " " + text;
			return tokens(joined) <= TOKEN_BUDGET && joined.length() <= MAX_CHARS;
		}

		private void append(String text) {
			if (!this.passage.isEmpty() && !fits(text)) {
				flush();
			}
			if (!this.passage.isEmpty()) {
				this.passage.append(' ');
			}
			this.passage.append(text);
		}

		private void flush() {
			String text = this.passage.toString().strip();
			this.passage.setLength(0);
			// A passage needs a word or two: a lone "---" or a table cell with a dash tells the reader nothing.
			if (text.codePoints().filter(Character::isLetter).count() >= 3) {
				this.into.add(new Passage(this.file, this.heading, text));
			}
		}
	}

	/** A table of measurements: most of the cells below its header row are numbers. */
	private static boolean isResults(List<List<String>> cells) {
		int body = 0;
		int measured = 0;
		for (List<String> row : cells.subList(Math.min(1, cells.size()), cells.size())) {
			for (String cell : row) {
				if (!cell.isBlank()) {
					body++;
					measured += MEASURED.matcher(cell.strip()).matches() ? 1 : 0;
				}
			}
		}
		return body > 0 && measured * 2 >= body;
	}

	/** Links to their words, bold and backticks dropped, whitespace collapsed. */
	private static String clean(String markdown) {
		String text = LINK.matcher(markdown).replaceAll("$1");
		text = EMPHASIS.matcher(text).replaceAll("");
		return text.replace("`", "").replaceAll("\\s+", " ").strip();
	}
}
