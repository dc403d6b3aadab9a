package io.uform.host;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the futures of deferred calls are completed: a cached pool of daemon threads
 * ({@code uform-completion-<n>}) shared by every executor, so that no continuation attached to a
 * future ever runs on an executor's deferred thread.
 *
 * <p>Why a thread of its own: {@link CompletableFuture#complete} runs the continuations attached so
 * far on the completing thread. On the deferred thread, a continuation that blocks would stall every
 * later call, and one that waits for a later deferred call would deadlock it. Why a cached pool and
 * not one thread: a continuation that waits for a later call's future would then block the
 * completion it waits for. The pool grows while continuations block, and its idle threads exit after
 * {@link #KEEP_ALIVE_SECONDS}, so an idle process holds none.
 *
 * <p>Once no executor's deferred-call runner is alive (every executor freed: a closed application
 * context, say) idle threads exit at once instead: completions come only from runners and from the
 * calls a free drops, so nothing is left to reuse them for, and "no uform thread remains after close"
 * holds without a 30 s wait. A thread still running a continuation finishes it first. The next runner
 * to start restores the keep-alive.
 *
 * <p>Threads: {@link #runners} and the pool's keep-alive change together under the class's lock, from
 * the runners' own threads as they start and stop; nothing else reads the count.
 */
final class DeferredCompletions {

	/** How long an idle completion thread lives: long enough to be reused under steady load. */
	static final long KEEP_ALIVE_SECONDS = 30;

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	/** Deferred-call runners alive in this JVM; guarded by the class's lock. */
	private static int runners;

	/** How long a completion waits between attempts while the heap is full. */
	private static final long WAIT_FOR_MEMORY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS,
			TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
				// Shared by every executor and made by whichever thread completes first: inheriting its
				// InheritableThreadLocals would carry one request's context into others' continuations.
				Thread thread = new Thread(null, task, "uform-completion-" + SEQUENCE.incrementAndGet(), 0, false);
				thread.setDaemon(true);
				return thread;
			});

	/**
	 * The executor whose call this thread is completing now, while its continuations run: the call
	 * counts as finished only after they return, so a continuation that waits for the executor's
	 * calls to finish would wait for itself.
	 */
	private static final ThreadLocal<Object> COMPLETING = new ThreadLocal<>();

	private DeferredCompletions() {
	}

	/**
	 * Counts a deferred-call runner that starts, on its own thread: the first one alive keeps idle
	 * completion threads for {@link #KEEP_ALIVE_SECONDS} again.
	 */
	static synchronized void runnerStarted() {
		if (runners++ == 0) {
			POOL.setKeepAliveTime(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
		}
	}

	/**
	 * Counts a deferred-call runner that stops, on its own thread, after its last call: when none is
	 * left, idle completion threads exit at once (the pool wakes them to see the new keep-alive).
	 */
	static synchronized void runnerStopped() {
		if (--runners == 0) {
			POOL.setKeepAliveTime(0, TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * Waits a millisecond before another try at finishing a call while the heap is full: the collector
	 * gets back what the call that filled it left. Allocates nothing; an interrupt, which would make the
	 * wait return at once, is cleared (it was the call's, not the pool's).
	 */
	static void pauseForMemory() {
		Thread.interrupted();
		LockSupport.parkNanos(WAIT_FOR_MEMORY_NANOS);
	}

	/**
	 * Whether this thread is completing a call of {@code owner}: it runs a continuation of that call.
	 * @param owner the calls' owner, as passed to {@link #complete}
	 * @return {@code true} inside such a continuation
	 */
	static boolean isCompletingFor(Object owner) {
		return COMPLETING.get() == owner;
	}

	/**
	 * Completes {@code future} with {@code result}, or exceptionally with {@code thrown}, on a
	 * completion thread, then runs {@code after}. If no thread can be had (the JVM is out of threads),
	 * it completes on the current thread rather than leave the future pending.
	 * @param <T> the result type
	 * @param owner whose call it is, for {@link #isCompletingFor}; {@code null} for a call whose count
	 *        nothing waits for (one dropped by a free)
	 * @param future the future
	 * @param result the value, when {@code thrown} is {@code null}
	 * @param thrown the failure, or {@code null}
	 * @param after run once the future is complete (counts the call finished)
	 */
	static <T> void complete(Object owner, CompletableFuture<T> future, T result, Throwable thrown, Runnable after) {
		try {
			POOL.execute(() -> completeNow(owner, future, result, thrown, after));
		}
		catch (Throwable ex) {
			// No thread (RejectedExecutionException, or OutOfMemoryError: "unable to create native
			// thread"): completing here is better than leaving the future pending for ever.
			completeNow(owner, future, result, thrown, after);
		}
	}

	/**
	 * Completes the future and runs {@code after}; where the heap is full (completing with a failure
	 * allocates), tries again a millisecond later until it goes through, since a future left pending
	 * would make every drain and free of its executor wait for ever. {@code after} must count once
	 * however often it runs.
	 */
	private static <T> void completeNow(Object owner, CompletableFuture<T> future, T result, Throwable thrown,
			Runnable after) {
		while (true) {
			try {
				Object outer = COMPLETING.get();
				COMPLETING.set(owner);
				try {
					if (thrown == null) {
						future.complete(result);
					}
					else {
						future.completeExceptionally(thrown);
					}
				}
				finally {
					COMPLETING.set(outer);
				}
				after.run();
				return;
			}
			catch (OutOfMemoryError ex) {
				pauseForMemory();
			}
		}
	}
}
