package io.uform.sample.passages;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.uform.sample.SampleApplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code sample.corpus.path} the sample cannot index fails startup with Boot's failure report, which
 * says what is wrong and what to set, and no stack trace (it was 107 lines of bean creation).
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CorpusFailureReportTest {

	@Test
	void aMissingDirectoryIsAFailureReportNotAStackTrace(CapturedOutput output) {
		startWith("no/such/dir");
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("The sample cannot index its corpus: sample.corpus.path 'no/such/dir' is not a directory (it does not exist)")
			.contains("Set sample.corpus.path to a directory of .md or .txt documents")
			.doesNotContain("\tat ");
	}

	@Test
	void aDirectoryWithoutDocumentsIsAFailureReportToo(@TempDir Path empty, CapturedOutput output) throws Exception {
		Files.writeString(empty.resolve("image.png"), "not a document");
		startWith(empty.toString());
		assertThat(output).contains("holds no .md or .txt file").doesNotContain("\tat ");
	}

	private static void startWith(String path) {
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> new SpringApplicationBuilder(SampleApplication.class)
			.properties("sample.corpus.path=" + path, "server.port=0", "uform.ram.threads=1")
			.run()
			.close());
	}
}
