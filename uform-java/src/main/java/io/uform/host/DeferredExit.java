package io.uform.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What happens to deferred calls still queued when the JVM exits. Executor threads are daemons, so
 * that a forgotten executor never keeps a JVM alive; without this the futures of calls queued at exit
 * would never complete, and whoever waits on them (a request thread, a continuation that logs) would
 * never hear.
 *
 * <p>{@code LIVE} (a concurrent set): every {@link DeferredCalls} whose runner is alive, less those
 * whose owner frees them at exit itself; added by the constructor, removed by the runner as it stops
 * and by {@link #leave}, read by the exit hook.
 */
final class DeferredExit {

	/** How long the exit hook waits, in all, for the continuations of the calls it dropped. */
	static final long EXIT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final Set<DeferredCalls> LIVE = ConcurrentHashMap.newKeySet();

	private DeferredExit() {
	}

	/** Registers calls whose runner is about to start, and uform's exit hook once per JVM. */
	static void join(DeferredCalls calls) {
		ExitHooks.once("uform-jvm-exit", DeferredExit::abandonAllAtExit);
		LIVE.add(calls);
	}

	/** Takes calls out of the exit hook's care: their runner stopped, or their owner frees them at exit. */
	static void leave(DeferredCalls calls) {
		LIVE.remove(calls);
	}

	/**
	 * At JVM exit (an {@link ExitHooks} hook), completes the futures of calls still queued. The
	 * continuations get up to {@link #EXIT_GRACE_NANOS} in all to run, on completion threads; the
	 * running call is not waited for, nor a continuation past that time (one that frees or drains the
	 * executor would wait for the running call): exit must not hang on user code.
	 */
	private static void abandonAllAtExit() {
		List<DroppedCalls> dropped = new ArrayList<>();
		for (DeferredCalls calls : LIVE) {
			calls.shutdown();
			dropped.add(calls.abandonQueued("the JVM is exiting"));
		}
		long deadline = System.nanoTime() + EXIT_GRACE_NANOS;
		for (DroppedCalls some : dropped) {
			some.awaitContinued(deadline);
		}
	}
}
