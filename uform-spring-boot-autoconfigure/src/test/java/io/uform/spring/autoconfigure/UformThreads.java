package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The live threads uform made, for tests that check that closing a context leaves none behind.
 *
 * <p>What "no uform thread remains" means: every thread an executor owns is gone once the executor
 * is freed, i.e. its workers ({@code uform-<executor>-worker-<i>}) and its deferred-call runner
 * ({@code uform-<executor>-deferred}). One kind of uform thread is not owned by any executor:
 * {@code uform-completion-<n>}, the cached pool of daemon threads (see
 * {@code io.uform.host.DeferredCompletions}) on which the futures of every executor's deferred calls
 * complete. That pool is process-wide and outlives every executor by design: its idle threads exit on
 * their own after its keep-alive (30 s), so a test that waited for them would take half a minute and
 * prove nothing about the executor it closed. They are therefore left out here, and
 * {@link #sharedCompletionThreadsAreDaemons()} checks that they cannot keep the JVM alive.
 */
final class UformThreads {

	/** Name prefix of every thread uform starts. */
	static final String PREFIX = "uform-";

	/** Name prefix of the process-wide completion pool, which no executor owns. */
	static final String SHARED_COMPLETION_PREFIX = "uform-completion-";

	private UformThreads() {
	}

	/**
	 * The names of the live threads owned by some executor: every live {@code uform-*} thread but the
	 * shared completion pool's.
	 * @return the names, sorted
	 */
	static List<String> executorOwned() {
		return names((name) -> name.startsWith(PREFIX) && !name.startsWith(SHARED_COMPLETION_PREFIX));
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
	 * Waits at most {@code max} for every executor-owned thread to exit. Threads end just after
	 * {@code free()} returns (a joined thread is gone; a worker stopped by a given-up free ends when
	 * what it runs returns), so a short wait is fair; a longer one is a leak.
	 * @param max the longest wait
	 * @return the names still alive at the end; empty when none
	 */
	static List<String> awaitNoExecutorOwned(Duration max) throws InterruptedException {
		return await(UformThreads::executorOwned, max);
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
	 * How many live threads the JVM has, the shared completion pool's left out (it grows and shrinks
	 * with load, on its own schedule).
	 * @return the count
	 */
	static int liveThreadsButSharedCompletions() {
		return names((name) -> !name.startsWith(SHARED_COMPLETION_PREFIX)).size();
	}

	/**
	 * Whether every live thread of the shared completion pool is a daemon, so that it can never keep
	 * the JVM from exiting.
	 * @return {@code true} when all are (or there are none)
	 */
	static boolean sharedCompletionThreadsAreDaemons() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.isAlive() && thread.getName().startsWith(SHARED_COMPLETION_PREFIX))
			.allMatch(Thread::isDaemon);
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
