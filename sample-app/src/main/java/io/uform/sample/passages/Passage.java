package io.uform.sample.passages;

/**
 * A few sentences of a document, the unit the service indexes and answers with.
 *
 * @param file the document's path relative to the corpus directory, with {@code /} separators
 * @param heading the heading the passage sits under; the file's name where it has none
 * @param text the passage's text, Markdown links and emphasis reduced to their words
 */
public record Passage(String file, String heading, String text) {
}
