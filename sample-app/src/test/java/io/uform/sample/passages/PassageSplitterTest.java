package io.uform.sample.passages;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Documents become passages a reader can be shown: a few sentences under their heading, a table row
 * alone, no code, no Markdown syntax.
 */
class PassageSplitterTest {

	@Test
	void paragraphsArePackedUnderTheirHeadingAndCodeIsLeftOut() {
		String markdown = """
				# Guide

				One. Two is [a link](other.md). Three.

				Four **bold**.

				```java
				int ignored = 1;
				```

				## Threads

				- Set `uform.ram.threads` to choose.
				- Another item here.
				""";
		List<Passage> passages = PassageSplitter.split("dir/guide.md", markdown);
		assertThat(passages).containsExactly(new Passage("dir/guide.md", "Guide", "One. Two is a link. Three. Four bold."),
				new Passage("dir/guide.md", "Threads", "Set uform.ram.threads to choose. Another item here."));
	}

	@Test
	void aTableIsKeptWholeAsAPassageOfItsOwnUnderItsHeading() {
		String markdown = """
				## Properties

				The RAM executor's properties:

				| property | default | what it does |
				|---|---|---|
				| `uform.ram.threads` | 7/8 of the cores | Threads taking part in a fork. |
				| `uform.ram.deferred-limit` | 64 | Deferred calls in flight at most. |
				""";
		assertThat(PassageSplitter.split("c.md", markdown)).containsExactly(
				new Passage("c.md", "Properties", "The RAM executor's properties:"),
				new Passage("c.md", "Properties", "property — default — what it does. uform.ram.threads — 7/8 of the "
						+ "cores — Threads taking part in a fork. uform.ram.deferred-limit — 64 — Deferred calls in "
						+ "flight at most."));
	}

	@Test
	void aTableOfMeasuredResultsIsLeftOut() {
		String markdown = """
				## Fork-join latency

				Forks are measured against a thread pool.

				| threads | uform | ForkJoinPool | ratio |
				|---|---|---|---|
				| 2 | 1.2 µs | 8.5 µs | 7.1x |
				| 8 | 2.0 µs | 15 µs | 7.5x |
				""";
		assertThat(PassageSplitter.split("b.md", markdown)).extracting(Passage::text)
			.containsExactly("Forks are measured against a thread pool.");
	}

	@Test
	void passagesStayWithinTheTokenBudgetAndAreCutAtSentences() {
		String sentence = "This sentence has some forty characters. ";
		List<Passage> passages = PassageSplitter.split("a.txt", sentence.repeat(2).repeat(40));
		assertThat(passages).hasSizeGreaterThan(1).allSatisfy((passage) -> {
			assertThat(PassageSplitter.tokens(passage.text())).isLessThanOrEqualTo(PassageSplitter.TOKEN_BUDGET);
			assertThat(passage.text()).startsWith("This sentence").endsWith("characters.");
		});
	}

	@Test
	void aDirectoryOfCodeOnlyIsRefusedAtStartupNotIndexedAsNothing(@TempDir Path directory) throws IOException {
		Files.writeString(directory.resolve("only-code.md"), "```\nint x = 1;\n```\n");
		assertThatIllegalArgumentException().isThrownBy(() -> DocumentSource.passages(directory))
			.withMessageEndingWith("holds 1 documents but no passage of prose (fenced code is left out); point it at "
					+ "documents with sentences to search");
		Files.writeString(directory.resolve("only-code.md"), "not a document any more");
		Files.move(directory.resolve("only-code.md"), directory.resolve("notes.rst"));
		assertThatIllegalArgumentException().isThrownBy(() -> DocumentSource.passages(directory))
			.withMessageEndingWith("holds no .md or .txt file; point it at a directory of documents");
	}

	@Test
	void aDirectoryIsReadInPathOrderMarkdownAndTextOnly() {
		List<Passage> passages = DocumentSource.passages(Path.of("src/test/resources/corpus"));
		assertThat(passages).extracting(Passage::file).containsSubsequence("guide/gpus.md", "kitchen.txt", "threads.md")
			.doesNotContain("notes.rst");
		assertThatIllegalArgumentException().isThrownBy(() -> DocumentSource.passages(Path.of("no/such/dir")))
			.withMessage("sample.corpus.path 'no/such/dir' is not a directory (it does not exist); give a directory of "
					+ ".md or .txt files");
	}
}
