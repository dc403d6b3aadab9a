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
	void sentencesAreGroupedUnderTheirHeadingAndCodeIsLeftOut() {
		String markdown = """
				# Guide

				One. Two is [a link](other.md). Three. Four **bold**.

				```java
				int ignored = 1;
				```

				## Threads

				- Set `uform.ram.threads` to choose.
				- Another item here.
				""";
		List<Passage> passages = PassageSplitter.split("dir/guide.md", markdown);
		assertThat(passages).containsExactly(new Passage("dir/guide.md", "Guide", "One. Two is a link. Three."),
				new Passage("dir/guide.md", "Guide", "Four bold."),
				new Passage("dir/guide.md", "Threads", "Set uform.ram.threads to choose."),
				new Passage("dir/guide.md", "Threads", "Another item here."));
	}

	@Test
	void eachTableRowIsAPassageAndTheRuleIsNot() {
		String markdown = """
				| property | what it does |
				|---|---|
				| `uform.ram.threads` | Threads taking part in a fork. |
				""";
		assertThat(PassageSplitter.split("c.md", markdown)).extracting(Passage::text)
			.containsExactly("property what it does", "uform.ram.threads Threads taking part in a fork.");
		assertThat(PassageSplitter.split("c.md", markdown)).extracting(Passage::heading).containsOnly("c.md");
	}

	@Test
	void longParagraphsAreCutAtSentencesBelowTheCharacterLimit() {
		String sentence = "This sentence has some forty characters. ";
		List<Passage> passages = PassageSplitter.split("a.txt", sentence.repeat(2).repeat(20));
		assertThat(passages).hasSizeGreaterThan(1);
		assertThat(passages).allSatisfy((passage) -> assertThat(passage.text().length())
			.isLessThanOrEqualTo(PassageSplitter.MAX_CHARS));
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
