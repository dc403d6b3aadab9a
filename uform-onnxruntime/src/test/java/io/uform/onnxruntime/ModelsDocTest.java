package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** docs/models.md's options table is the record's components, with the defaults the code has. */
class ModelsDocTest {

	private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| ([^|]+) \\|", Pattern.MULTILINE);

	@Test
	void theOptionsTableNamesEveryOptionWithItsDefault() throws IOException {
		String doc = Files.readString(Path.of("..", "docs", "models.md"));
		String table = doc.substring(doc.indexOf("### Options"), doc.indexOf("### What a request does"));
		Map<String, String> documented = new LinkedHashMap<>();
		Matcher row = ROW.matcher(table);
		while (row.find()) {
			documented.put(row.group(1), row.group(2).strip());
		}
		assertThat(documented.keySet()).containsExactlyElementsOf(
				Arrays.stream(TextEmbeddingOptions.class.getRecordComponents()).map(c -> c.getName()).toList());
		TextEmbeddingOptions defaults = TextEmbeddingOptions.defaults();
		assertThat(documented).containsEntry("name", "`" + defaults.name() + "`")
			.containsEntry("pooling", "`" + defaults.pooling() + "`")
			.containsEntry("normalize", "`" + defaults.normalize() + "`")
			.containsEntry("maxTokens", Integer.toString(defaults.maxTokens()))
			.containsEntry("truncation", "`" + defaults.truncation() + "`")
			.containsEntry("maxTexts", Integer.toString(defaults.maxTexts()))
			.containsEntry("maxBatchTokens", Integer.toString(defaults.maxBatchTokens()));
		assertThat(defaults.slotWait()).as("documented as: wait").isNull();
		assertThat(defaults.listener()).as("documented as: none").isSameAs(EmbeddingListener.NONE);
		assertThat(defaults.output()).as("documented as: last_hidden_state, or the only output").isNull();
	}
}
