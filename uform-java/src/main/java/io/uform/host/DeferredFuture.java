package io.uform.host;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a deferred call, which refuses a blocking wait from its executor's deferred thread
 * while the call is pending: calls run one at a time on that thread, so a pending call runs only after
 * the one that waits for it returns, and the wait would last for ever (hanging every later call, and
 * the executor's free). Refused, the waiter gets an {@code INVALID_ARGUMENT} saying what to do instead.
 * A wait from any other thread, and every non-blocking method, behaves as {@link CompletableFuture}'s;
 * dependent stages are plain {@link CompletableFuture}s ({@link CompletableFuture#newIncompleteFuture()}).
 *
 * @param <T> the call's result type
 */
final class DeferredFuture<T> extends CompletableFuture<T> {

	private final DeferredCalls owner;

	DeferredFuture(DeferredCalls owner) {
		this.owner = owner;
	}

	@Override
	public T get() throws InterruptedException, ExecutionException {
		refuseWaitFromRunner("get()");
		return super.get();
	}

	@Override
	public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
		refuseWaitFromRunner("get(timeout)");
		return super.get(timeout, unit);
	}

	@Override
	public T join() {
		refuseWaitFromRunner("join()");
		return super.join();
	}

	private void refuseWaitFromRunner(String what) {
		if (!isDone() && this.owner.isRunnerThread()) {
			throw this.owner.waitsBehindItself(what);
		}
	}
}
