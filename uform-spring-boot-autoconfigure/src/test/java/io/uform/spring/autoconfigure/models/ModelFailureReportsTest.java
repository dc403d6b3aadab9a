package io.uform.spring.autoconfigure.models;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a user reads when a model entry stops the application: a real {@code SpringApplication} fails to
 * start, and Boot's report names the property, its value, where it was set, and what to do.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class ModelFailureReportsTest {

	@Test
	void aMissingModelFileNamesThePathTriedAndTheResourcesBesideIt(CapturedOutput output) {
		String report = failedStart(output, "--uform.models.minilm.model=classpath:/all-minilm-l6-v2.onnx",
				"--uform.models.minilm.tokenizer=" + MiniLm.TOKENIZER);
		assertThat(report).contains("Invalid value 'classpath:/all-minilm-l6-v2.onnx' for configuration property "
				+ "'uform.models.minilm.model' (originating from '\"uform.models.minilm.model\" from property source "
				+ "\"commandLineArgs\"')")
			.contains("there is no class path resource [all-minilm-l6-v2.onnx]")
			.contains("all-minilm-l6-v2-q.onnx")
			.contains("all-minilm-l6-v2-q-tokenizer.json");
	}

	@Test
	void aMissingFileOnDiskListsItsFolder(CapturedOutput output, @TempDir Path folder) throws Exception {
		Files.writeString(folder.resolve("tokenizer.json"), "{}");
		Files.writeString(folder.resolve("model-q8.onnx"), "");
		String report = failedStart(output, "--uform.models.minilm.model=file:" + folder.resolve("model.onnx"),
				"--uform.models.minilm.tokenizer=" + MiniLm.TOKENIZER);
		assertThat(report).contains("'uform.models.minilm.model'")
			.contains("In folder " + folder + ": model-q8.onnx, tokenizer.json");
	}

	@Test
	void aBarePathToAFileThatExistsSaysToWriteItWithFile(CapturedOutput output, @TempDir Path folder) throws Exception {
		Path model = Files.writeString(folder.resolve("model.onnx"), "");
		String report = failedStart(output, "--uform.models.minilm.model=" + model,
				"--uform.models.minilm.tokenizer=" + MiniLm.TOKENIZER);
		assertThat(report).contains("'uform.models.minilm.model'")
			.contains("a location without a prefix is looked up on the class path; the file " + model
					+ " exists: write it as 'file:" + model + "'");
	}

	@Test
	void aModelWithoutItsFileSaysWhatToSet(CapturedOutput output) {
		String report = failedStart(output, "--uform.models.minilm.tokenizer=" + MiniLm.TOKENIZER);
		assertThat(report).contains("Invalid value '(unset)' for configuration property 'uform.models.minilm.model'")
			.contains("model 'minilm' needs its ONNX file")
			.contains("Set uform.models.minilm.model in your configuration, as the reason above says.")
			.doesNotContain("derives it from this machine");
	}

	@Test
	void aFileThatIsNotAModelNamesTheProperty(CapturedOutput output) {
		String report = failedStart(output, "--uform.models.minilm.model=" + MiniLm.TOKENIZER,
				"--uform.models.minilm.tokenizer=" + MiniLm.TOKENIZER);
		assertThat(report).contains("for configuration property 'uform.models.minilm.model'")
			.contains("ONNX Runtime could not load model 'minilm'");
	}

	@Test
	void aMaxTokensBelowTwoIsRefusedWhileBinding(CapturedOutput output) {
		String report = failedStart(output, "--uform.models.minilm.model=" + MiniLm.MODEL,
				"--uform.models.minilm.tokenizer=" + MiniLm.TOKENIZER, "--uform.models.minilm.max-tokens=1");
		assertThat(report).contains("uform.models.minilm.max-tokens = 1 is invalid")
			.contains("must be at least 2")
			.contains("Update uform.models.minilm.max-tokens in your configuration: it takes a whole number, such as 8; "
					+ "see docs/models.md");
	}

	@Test
	void aMaxTextsBelowOneIsRefusedWhileBinding(CapturedOutput output) {
		String report = failedStart(output, entry("--uform.models.minilm.max-texts=0"));
		assertThat(report).contains("uform.models.minilm.max-texts = 0 is invalid")
			.contains("must be at least 1 text per request")
			.contains("Update uform.models.minilm.max-texts in your configuration: it takes a whole number, such as 8; "
					+ "see docs/models.md");
	}

	@Test
	void aNegativeSlotWaitIsRefusedWhileBindingSayingHowToWait(CapturedOutput output) {
		String report = failedStart(output, entry("--uform.models.minilm.slot-wait=-1s"));
		assertThat(report).contains("uform.models.minilm.slot-wait = -1s is invalid")
			.contains("\"uform.models.minilm.slot-wait\" from property source \"commandLineArgs\"")
			.contains("leave it unset to wait for a slot")
			.contains("Update uform.models.minilm.slot-wait in your configuration: it takes a duration such as 30s");
	}

	@Test
	void aSlotWaitThatIsNoDurationSaysWhatADurationLooksLike(CapturedOutput output) {
		String report = failedStart(output, entry("--uform.models.minilm.slot-wait=1 second"));
		assertThat(report).contains("uform.models.minilm.slot-wait = 1 second is invalid")
			.contains("a duration such as 30s, 500ms, 2m or PT2M");
	}

	@Test
	void aPoolingUformDoesNotKnowListsTheOnesItDoes(CapturedOutput output) {
		String report = failedStart(output, entry("--uform.models.minilm.pooling=max"));
		assertThat(report).contains("uform.models.minilm.pooling = max is invalid")
			.contains("it takes mean or cls; see docs/models.md");
	}

	@Test
	void anExecutorThatIsNoBeanListsTheExecutorBeans(CapturedOutput output) {
		String report = failedStart(output, entry("--uform.models.minilm.executor=gpuExecutor"));
		assertThat(report).contains("Invalid value 'gpuExecutor' for configuration property 'uform.models.minilm.executor'")
			.contains("there is no io.uform.Executor bean named 'gpuExecutor'. Executor beans: [uformRamExecutor");
	}

	@Test
	void aVramModelWithoutAVramExecutorSaysHowToGetOne(CapturedOutput output) {
		String report = failedStart(output, entry("--uform.models.minilm.executor=vram", "--uform.vram.enabled=false"));
		assertThat(report).contains("Invalid value 'vram' for configuration property 'uform.models.minilm.executor'")
			.contains("there is no VRAM executor")
			.contains("set uform.vram.enabled=true");
	}

	@Test
	void aVramModelOnSimulatedDevicesFailsWithTheCudaProviderMessageNotACrash(CapturedOutput output) {
		// This module's tests see two simulated devices: the VRAM executor exists, ONNX Runtime's CUDA
		// provider (onnxruntime_gpu) does not.
		String report = failedStart(output, entry("--uform.models.minilm.executor=vram"));
		assertThat(report).contains("Invalid value 'vram' for configuration property 'uform.models.minilm.executor'")
			.contains("model 'minilm' cannot run on executor bean 'uformVramExecutor'")
			.contains("onnxruntime_gpu");
	}

	private static String[] entry(String... more) {
		String[] args = new String[more.length + 3];
		String[] entry = MiniLm.entry("minilm");
		for (int i = 0; i < 3; i++) {
			args[i] = "--" + entry[i];
		}
		System.arraycopy(more, 0, args, 3, more.length);
		return args;
	}

	/** Starts the application, expects it to fail, and returns Boot's failure report. */
	private static String failedStart(CapturedOutput output, String... args) {
		int from = output.getAll().length();
		assertThatThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "uform.ram.threads=1")
			.run(args)
			.close()).isNotNull();
		String printed = output.getAll().substring(from);
		int at = printed.indexOf("APPLICATION FAILED TO START");
		assertThat(at).as("a failure report was printed").isNotNegative();
		return printed.substring(at);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ UformAutoConfiguration.class, UformModelsAutoConfiguration.class })
	static class App {

	}
}
