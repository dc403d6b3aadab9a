package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The live threads uform made, for tests that check that closing a context leaves none behind.
 *
 * <p>What "no uform thread remains" means: every {@code uform-*} thread is gone once the last
 * executor is freed. An executor owns its workers ({@code uform-<executor>-worker-<i>}) and its
 * deferred-call runner ({@code uform-<executor>-deferred}), gone when it is freed. One kind is owned by
 * no executor: {@code uform-completion-<n>}, the process-wide pool on which every executor's deferred
 * calls complete ({@code io.uform.host.DeferredCompletions}). Its idle threads stay 30 s for reuse while
 * any executor lives, and exit at once when none does; so a test that closes a context and checks for
 * no uform thread at all also proves no executor of the JVM was left alive, its own or an earlier
 * test's.
 */
final class UformThreads {

	/** Name prefix of every thread uform starts. */
	static final String PREFIX = "uform-";

	private UformThreads() {
	}

	/**
	 * The names of every live {@code uform-*} thread, the shared completion pool's included.
	 * @return the names, sorted
	 */
	static List<String> all() {
		return names((name) -> name.startsWith(PREFIX));
	}

	/**
	 * The names of the live threads one executor owns.
	 * @param executorName the executor's {@code name()}, like {@code ram-3}
	 * @return the names, sorted
	 */
	static List<String> ownedBy(String executorName) {
		String prefix = PREFIX + executorName + "-";
		return names((name) -> name.startsWith(prefix));
	}

	/**
	 * Waits at most {@code max} for every uform thread to exit, the completion pool's included: once no
	 * executor lives, its idle threads exit at once, and one still running a continuation when it
	 * returns.
	 * @param max the longest wait
	 * @return the names still alive at the end; empty when none
	 */
	static List<String> awaitNone(Duration max) throws InterruptedException {
		return await(UformThreads::all, max);
	}

	/**
	 * Waits at most {@code max} for every thread of one executor to exit.
	 * @param executorName the executor's {@code name()}
	 * @param max the longest wait
	 * @return the names still alive at the end; empty when none
	 */
	static List<String> awaitNoneOwnedBy(String executorName, Duration max) throws InterruptedException {
		return await(() -> ownedBy(executorName), max);
	}

	/**
	 * How many live threads the JVM has.
	 * @return the count
	 */
	static int liveThreads() {
		return names((name) -> true).size();
	}

	private static List<String> await(java.util.function.Supplier<List<String>> alive, Duration max)
			throws InterruptedException {
		long deadline = System.nanoTime() + max.toNanos();
		List<String> left = alive.get();
		while (!left.isEmpty() && System.nanoTime() - deadline < 0) {
			TimeUnit.MILLISECONDS.sleep(20);
			left = alive.get();
		}
		return left;
	}

	private static List<String> names(Predicate<String> which) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter(which)
			.sorted()
			.toList();
	}
}
