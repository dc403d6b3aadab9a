package io.uform.host;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The deferred calls a give-up dropped ({@link DeferredCalls#abandonQueued}): their futures,
 * completed on completion threads.
 * @param futures the dropped calls' futures
 * @param continued counted down once each future is complete and its continuations returned
 */
public record DroppedCalls(List<CompletableFuture<?>> futures, CountDownLatch continued) {

	/**
	 * How many calls were dropped.
	 * @return a count
	 */
	public int count() {
		return this.futures.size();
	}

	/**
	 * Waits until every dropped future is complete (not for its continuations, which are user code),
	 * or the deadline passes: the completion threads only have to be scheduled.
	 * @param deadline a {@link System#nanoTime()} value
	 * @return {@code true} when all are complete
	 */
	public boolean awaitCompleted(long deadline) {
		long pause = TimeUnit.MICROSECONDS.toNanos(20);
		for (CompletableFuture<?> future : this.futures) {
			while (!future.isDone()) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				LockSupport.parkNanos(Math.min(pause, left));
				pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(1));
			}
		}
		return true;
	}

	/**
	 * Waits until every dropped future's continuations returned, or the deadline passes.
	 * @param deadline a {@link System#nanoTime()} value
	 * @return {@code true} when all returned
	 */
	boolean awaitContinued(long deadline) {
		try {
			return this.continued.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}
}
