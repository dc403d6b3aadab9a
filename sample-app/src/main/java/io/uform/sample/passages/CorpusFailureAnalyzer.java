package io.uform.sample.passages;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@code sample.corpus.path} the sample cannot index as Boot's "APPLICATION FAILED TO START"
 * does a port in use: what is wrong, and what to set, without the hundred lines of bean-creation
 * stack trace that would bury it. Registered in {@code META-INF/spring.factories}.
 */
class CorpusFailureAnalyzer extends AbstractFailureAnalyzer<UnusableCorpusException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnusableCorpusException cause) {
		return new FailureAnalysis("The sample cannot index its corpus: " + cause.getMessage() + ".",
				"Set sample.corpus.path to a directory of .md or .txt documents with some prose in them, "
						+ "or remove it to search the docs bundled into the jar.", cause);
	}
}
