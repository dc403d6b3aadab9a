package io.uform;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.uform.host.DeferredCalls;
import io.uform.host.WrappedCall;

/**
 * A deferred call inside its {@link DeferredCallDecorator.Decoration}: the scope opens and closes
 * around the call on the deferred thread, and the decoration hears how the call's future completed,
 * or that {@code defer} refused it. The future returned is the deferred calls' own, so cancelling it
 * still means a call that has not started never runs. Reports about a running call name the
 * application's call ({@link WrappedCall}).
 *
 * @param <T> the call's result type
 */
final class DecoratedDeferredCall<T> implements Callable<T>, WrappedCall {

	private final DeferredCallDecorator.Decoration decoration;

	private final Callable<T> call;

	private DecoratedDeferredCall(DeferredCallDecorator.Decoration decoration, Callable<T> call) {
		this.decoration = decoration;
		this.call = call;
	}

	static <T> CompletableFuture<T> submit(DeferredCalls deferred, DeferredCallDecorator.Decoration decoration,
			Callable<T> call, Duration maxWait) {
		CompletableFuture<T> future;
		try {
			future = deferred.submit(new DecoratedDeferredCall<>(decoration, call), maxWait);
		}
		catch (Throwable ex) {
			refused(decoration, ex);
			throw ex;
		}
		future.whenComplete((result, failure) -> decoration.completed(failure));
		return future;
	}

	/**
	 * As {@link #submit}, for a call submitted without a future
	 * ({@link DeferredCalls#submitWithoutFuture}): the decoration hears the end on the deferred thread,
	 * just before {@code ended} does.
	 */
	static void submitWithoutFuture(DeferredCalls deferred, DeferredCallDecorator.Decoration decoration,
			Callable<?> call, Duration maxWait, Consumer<Throwable> ended) {
		try {
			deferred.submitWithoutFuture(new DecoratedDeferredCall<>(decoration, call), maxWait, (failure) -> {
				try {
					decoration.completed(failure);
				}
				finally {
					ended.accept(failure);
				}
			});
		}
		catch (Throwable ex) {
			refused(decoration, ex);
			throw ex;
		}
	}

	/** A call {@code defer} refused (or out of memory) was never queued: the decoration hears it here. */
	private static void refused(DeferredCallDecorator.Decoration decoration, Throwable ex) {
		try {
			decoration.completed(ex);
		}
		catch (Throwable hookFailure) {
			ex.addSuppressed(hookFailure);
		}
	}

	@Override
	public Object wrapped() {
		return this.call;
	}

	@Override
	public T call() throws Exception {
		try (ExecutorHooks.Scope scope = this.decoration.open()) {
			return this.call.call();
		}
	}

}
