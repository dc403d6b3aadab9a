package io.uform.sample.search;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.onnxruntime.Truncation;
import io.uform.sample.embedding.MiniLm;
import io.uform.sample.passages.DocumentSource;
import io.uform.sample.passages.Passage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Does search answer? Each question of {@code eval/questions.txt} names the file and headings of the
 * pinned corpus ({@code eval/corpus/}, a copy of this project's docs, so that the live docs may change)
 * that answer it; the passages are split and embedded as the sample does, and recall@3 (the share of
 * questions with an answering passage among the first three hits) and the mean reciprocal rank over the
 * first ten must stay above their floors.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SearchEvaluationTest {

	/**
	 * Measured with this splitter: recall@3 0.96, MRR@10 0.82 (258 passages); with the splitter before
	 * it (three sentences or one table row per passage, result tables in): 0.70 and 0.70 (735 passages).
	 */
	static final double RECALL_AT_3_FLOOR = 0.90;

	static final double MRR_FLOOR = 0.75;

	@Test
	void questionsFindTheirAnswersInTheFirstHits() throws IOException {
		List<Question> questions = Question.read(Path.of("src/test/resources/eval/questions.txt"));
		assertThat(questions).hasSizeGreaterThanOrEqualTo(20);
		List<Passage> passages = DocumentSource.passages(Path.of("src/test/resources/eval/corpus"));
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
				TextEmbeddingModel model = MiniLm.load(executor, 64, null)) {
			// As the indexer embeds them: the heading in front, cut to the model's tokens where longer.
			List<float[]> vectors = new ArrayList<>();
			for (int first = 0; first < passages.size(); first += 64) {
				List<String> texts = new ArrayList<>();
				passages.subList(first, Math.min(passages.size(), first + 64))
					.forEach((passage) -> texts.add(passage.heading() + ": " + passage.text()));
				vectors.addAll(List.of(model.embedDetailed(texts, Truncation.TRUNCATE).vectors()));
			}
			int found = 0;
			double reciprocalRanks = 0;
			StringBuilder report = new StringBuilder();
			for (Question question : questions) {
				float[] query = model.embed(question.text());
				List<Integer> ranked = rank(query, vectors, 10);
				int rank = 0;
				for (int r = 0; r < ranked.size() && rank == 0; r++) {
					Passage hit = passages.get(ranked.get(r));
					if (question.answers().contains(hit.file() + "#" + hit.heading())) {
						rank = r + 1;
					}
				}
				found += (rank >= 1 && rank <= 3) ? 1 : 0;
				reciprocalRanks += (rank > 0) ? 1.0 / rank : 0;
				Passage first = passages.get(ranked.get(0));
				report.append(String.format("%n  %-4s %-60s first: %s#%s", (rank > 0) ? "#" + rank : "-", question.text(),
						first.file(), first.heading()));
			}
			double recall = (double) found / questions.size();
			double mrr = reciprocalRanks / questions.size();
			System.out.printf("[search evaluation] %d passages, %d questions: recall@3 %.2f, MRR@10 %.2f%s%n",
					passages.size(), questions.size(), recall, mrr, report);
			assertThat(recall).as("recall@3").isGreaterThanOrEqualTo(RECALL_AT_3_FLOOR);
			assertThat(mrr).as("MRR@10").isGreaterThanOrEqualTo(MRR_FLOOR);
		}
	}

	/** The rows of the k highest dot products, best first. */
	private static List<Integer> rank(float[] query, List<float[]> vectors, int k) {
		List<Integer> rows = new ArrayList<>();
		for (int i = 0; i < vectors.size(); i++) {
			rows.add(i);
		}
		float[] scores = new float[vectors.size()];
		for (int i = 0; i < vectors.size(); i++) {
			float sum = 0;
			for (int d = 0; d < query.length; d++) {
				sum += query[d] * vectors.get(i)[d];
			}
			scores[i] = sum;
		}
		rows.sort((a, b) -> Float.compare(scores[b], scores[a]));
		return rows.subList(0, Math.min(k, rows.size()));
	}

	/** A question and the file#heading entries that answer it. */
	record Question(String text, Set<String> answers) {

		static List<Question> read(Path file) throws IOException {
			List<Question> questions = new ArrayList<>();
			for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
				if (line.isBlank() || line.startsWith("#")) {
					continue;
				}
				String[] parts = line.split("\\|", 2);
				questions.add(new Question(parts[0], Set.of(parts[1].split(";"))));
			}
			return questions;
		}
	}
}
