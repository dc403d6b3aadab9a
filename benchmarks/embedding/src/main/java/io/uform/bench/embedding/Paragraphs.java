package io.uform.bench.embedding;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The texts every path embeds: the prose paragraphs of the project's {@code docs/**.md}, in file order
 * (files sorted by path), each a block between blank lines, or a list item, with its lines joined. Headings, tables,
 * fenced code, HTML comments and blocks outside 40 to 900 characters are left out; nothing else is
 * chosen, so the lengths are what the docs hold, not what suits any path.
 */
final class Paragraphs {

	/** A list item starts a paragraph of its own. */
	private static final Pattern LIST_ITEM = Pattern.compile("([-*+]|\\d+\\.) ");

	static final int SHORTEST = 40;

	static final int LONGEST = 900;

	private Paragraphs() {
	}

	/**
	 * Reads the paragraphs.
	 * @param docs the {@code docs} directory
	 * @return the paragraphs, in order
	 */
	static List<String> of(Path docs) {
		List<String> paragraphs = new ArrayList<>();
		try (Stream<Path> files = Files.walk(docs)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".md")).sorted().toList()) {
				read(Files.readAllLines(file), paragraphs);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot read the paragraphs of " + docs + " (run from the repository root, "
					+ "or pass the docs directory as the first argument)", ex);
		}
		return paragraphs;
	}

	private static void read(List<String> lines, List<String> paragraphs) {
		StringBuilder block = new StringBuilder();
		boolean fenced = false;
		for (String raw : lines) {
			String line = raw.strip();
			if (line.startsWith("```")) {
				fenced = !fenced;
				keep(block, paragraphs);
				continue;
			}
			if (fenced || line.isEmpty() || line.startsWith("#") || line.startsWith("|") || line.startsWith("<!--")) {
				keep(block, paragraphs);
				continue;
			}
			if (LIST_ITEM.matcher(line).lookingAt()) {
				keep(block, paragraphs);
			}
			if (!block.isEmpty()) {
				block.append(' ');
			}
			block.append(line);
		}
		keep(block, paragraphs);
	}

	private static void keep(StringBuilder block, List<String> paragraphs) {
		if (block.length() >= SHORTEST && block.length() <= LONGEST) {
			paragraphs.add(block.toString());
		}
		block.setLength(0);
	}
}
