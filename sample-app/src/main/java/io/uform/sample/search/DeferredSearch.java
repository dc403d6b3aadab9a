package io.uform.sample.search;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.uform.UformException;

/**
 * Waits for a search that runs as a deferred call, rethrowing what the call threw as itself, so that
 * an error in the scan reaches the web layer unwrapped.
 */
final class DeferredSearch {

	private DeferredSearch() {
	}

	/**
	 * Waits for a deferred call's result.
	 * @param <T> the result type
	 * @param call the call's future
	 * @return its result
	 */
	static <T> T await(CompletableFuture<T> call) {
		try {
			return call.get();
		}
		catch (InterruptedException ex) {
			// The request thread is being stopped: the call need not run any more.
			call.cancel(false);
			Thread.currentThread().interrupt();
			throw new UformException(UformException.Status.INTERRUPTED, "interrupted while waiting for a search");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException("a search failed", cause);
		}
	}
}
