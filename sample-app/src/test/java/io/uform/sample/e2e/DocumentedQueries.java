package io.uform.sample.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The PromQL expressions a Markdown page shows in its {@code ```promql} blocks, as a reader would
 * copy them: comment lines ({@code #}) and blank lines separate expressions, and so does a line that
 * starts at the left margin once the parentheses so far are balanced; an indented line, or one inside
 * open parentheses, continues the expression before it.
 */
final class DocumentedQueries {

	private DocumentedQueries() {
	}

	static List<String> read(Path page) throws IOException {
		List<String> expressions = new ArrayList<>();
		StringBuilder current = null;
		int depth = 0;
		boolean inBlock = false;
		for (String line : Files.readAllLines(page)) {
			if (!inBlock) {
				inBlock = line.strip().equals("```promql");
				continue;
			}
			boolean blockEnds = line.strip().equals("```");
			boolean separator = line.isBlank() || line.strip().startsWith("#");
			boolean newAtMargin = !separator && depth == 0 && !Character.isWhitespace(line.charAt(0));
			if ((blockEnds || separator || newAtMargin) && current != null) {
				expressions.add(current.toString().strip());
				current = null;
				depth = 0;
			}
			if (blockEnds) {
				inBlock = false;
				continue;
			}
			if (separator) {
				continue;
			}
			current = (current == null) ? new StringBuilder() : current.append('\n');
			current.append(line);
			for (char c : line.toCharArray()) {
				depth += (c == '(') ? 1 : (c == ')') ? -1 : 0;
			}
		}
		return expressions;
	}
}
