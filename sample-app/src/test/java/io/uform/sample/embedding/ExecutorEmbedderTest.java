package io.uform.sample.embedding;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * The real model, sliced across a real RAM executor: a batch embeds to exactly the vectors of the same
 * texts embedded one at a time on one thread (each text is its own session call, so nothing a text is
 * batched with can change its vector), every vector is of unit length, and the vectors mean what the
 * model card says (a question lands nearer its answer than an unrelated text).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutorEmbedderTest {

	private static MiniLm model;

	private static Executor executor;

	@BeforeAll
	static void load() {
		model = MiniLm.load();
		executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(3));
	}

	@AfterAll
	static void free() {
		executor.free();
		model.close();
	}

	@Test
	void aBatchSlicedAcrossThreadsEqualsTheTextsEmbeddedOneByOne() {
		List<String> texts = new ArrayList<>();
		for (int i = 0; i < 17; i++) {
			texts.add("Passage " + i + ": the executor owns the threads, " + "and the model owns the weights. ".repeat(i % 4));
		}
		ExecutorEmbedder embedder = new ExecutorEmbedder(model, executor);
		float[][] batch = embedder.embed(List.of(embedder.tokenize(texts)));
		for (int i = 0; i < texts.size(); i++) {
			// Tolerance 0: the same session call on the same ids, whichever thread makes it.
			assertThat(batch[i]).as("text %d", i).containsExactly(model.embed(model.tokenize(texts.get(i))));
			assertThat(length(batch[i])).isCloseTo(1.0, within(1e-5));
		}
	}

	@Test
	void aQuestionLandsNearerItsAnswerThanAnUnrelatedText() {
		float[] question = embed("How do I choose the number of threads?");
		float[] answer = embed("Set uform.ram.threads to choose how many threads take part in a fork.");
		float[] bread = embed("Bread rises when yeast ferments the sugars in the dough.");
		assertThat(dot(question, answer)).isGreaterThan(dot(question, bread) + 0.2f);
	}

	@Test
	void aPaddedBatchInOneCallComesCloseToOneByOneButNotExactly() {
		// ONNX Runtime's own way to batch, which the benchmark compares against: the quantized model scales
		// activations per call, so padding and batch-mates move each vector a little.
		List<String> texts = List.of("short", "a somewhat longer sentence about executors and threads and models");
		long[][] ids = { model.tokenize(texts.get(0)), model.tokenize(texts.get(1)) };
		float[][] padded = model.embedPadded(ids);
		for (int i = 0; i < ids.length; i++) {
			assertThat(dot(padded[i], model.embed(ids[i]))).as("cosine, text %d", i).isGreaterThan(0.95f);
		}
		// Why the service embeds one text per call: padded, the short text's vector is not its own.
		assertThat(padded[0]).isNotEqualTo(model.embed(ids[0]));
	}

	@Test
	void textsLongerThanTheModelTakesAreCutKeepingTheSeparatorLast() {
		long[] ids = model.tokenize("word ".repeat(400));
		assertThat(ids).hasSize(402);
		long[] cut = model.truncate(ids);
		assertThat(cut).hasSize(MiniLm.MAX_TOKENS);
		assertThat(cut[MiniLm.MAX_TOKENS - 1]).isEqualTo(ids[ids.length - 1]);
		assertThat(model.truncate(cut)).isSameAs(cut);
		assertThatIllegalArgumentException().isThrownBy(() -> model.embed(ids))
			.withMessageContaining("at most 256 tokens, was given 402");
	}

	private static float[] embed(String text) {
		return model.embed(model.tokenize(text));
	}

	private static float dot(float[] a, float[] b) {
		float sum = 0;
		for (int i = 0; i < a.length; i++) {
			sum += a[i] * b[i];
		}
		return sum;
	}

	private static double length(float[] v) {
		return Math.sqrt(dot(v, v));
	}
}
