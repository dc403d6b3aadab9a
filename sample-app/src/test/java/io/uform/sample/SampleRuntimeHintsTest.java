package io.uform.sample;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import io.uform.sample.embedding.MiniLm;
import io.uform.sample.passages.DocumentSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's own runtime hints: every resource it reads by name is one a native image keeps.
 */
class SampleRuntimeHintsTest {

	private final RuntimeHints hints = new RuntimeHints();

	SampleRuntimeHintsTest() {
		new SampleRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void theApplicationImportsThem() {
		ImportRuntimeHints imported = SampleApplication.class.getAnnotation(ImportRuntimeHints.class);
		assertThat(imported).isNotNull();
		assertThat(imported.value()).contains(SampleRuntimeHints.class);
	}

	@Test
	void theModelAndItsTokenizerAreResources() {
		for (String name : new String[] { MiniLm.MODEL, MiniLm.TOKENIZER }) {
			assertThat(MiniLm.class.getResource(name)).as("%s on the class path", name).isNotNull();
			assertThat(RuntimeHintsPredicates.resource().forResource(name)).as(name).accepts(this.hints);
		}
	}

	@Test
	void everyBundledDocsPageIsAResource() throws IOException {
		Resource[] pages = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + DocumentSource.BUNDLED + "/**/*.md");
		assertThat(pages).as("the docs pages the build bundles").hasSizeGreaterThan(5);
		for (Resource page : pages) {
			String url = page.getURL().toString();
			String name = url.substring(url.lastIndexOf(DocumentSource.BUNDLED + "/"));
			assertThat(RuntimeHintsPredicates.resource().forResource(name)).as(name).accepts(this.hints);
		}
	}
}
