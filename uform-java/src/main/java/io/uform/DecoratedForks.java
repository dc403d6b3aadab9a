package io.uform;

import java.util.concurrent.atomic.AtomicInteger;

import io.uform.host.HostPool;

/**
 * Forks whose parts run inside a context the forking thread captured ({@link ForkDecorator}), or as
 * plain forks where there is no decorator or the fork is nested in a task (it runs inline on a thread
 * that has the context already). Where there is a context, each
 * thread but the forking one restores it once around its whole part, never per index, and closes it
 * before going back to wait. The pool's fork shapes are kept: a static fork is run as the same static
 * slices, a dynamic one as one part per thread taking indices from a shared cursor. A share the
 * forking thread runs for a late worker runs on the forking thread, which has the context already.
 *
 * <p>Where threads meet: the wrapping task, the captured context and the forking thread are written
 * by the forking thread before the fork and read by the workers; the pool's publication of the fork
 * (a volatile write the workers read first) orders them. Each scope is opened and closed on one
 * worker. The dynamic cursor is an {@link AtomicInteger} every thread of the fork increments.
 */
final class DecoratedForks {

	private DecoratedForks() {
	}

	static void forThreads(HostPool<ThreadTask, ProngTask, SliceTask> pool, ForkDecorator decorator, ThreadTask task) {
		ForkDecorator.Context context = capture(pool, decorator);
		if (context == null) {
			pool.forThreads(task);
		}
		else {
			threadsIn(pool, context, task);
		}
	}

	static void forN(HostPool<ThreadTask, ProngTask, SliceTask> pool, ForkDecorator decorator, int n, ProngTask task) {
		ForkDecorator.Context context = (n == 0) ? null : capture(pool, decorator);
		if (context == null) {
			pool.forN(n, task);
			return;
		}
		// forN's static slices are forSlices' (HostPool): one restore per thread rather than per index.
		slicesIn(pool, context, n, (first, count, thread, colocation) -> {
			for (int index = first, end = first + count; index < end; index++) {
				task.run(index, thread, colocation);
			}
		});
	}

	static void forNDynamic(HostPool<ThreadTask, ProngTask, SliceTask> pool, ForkDecorator decorator, int n,
			ProngTask task) {
		ForkDecorator.Context context = (n == 0) ? null : capture(pool, decorator);
		if (context == null) {
			pool.forNDynamic(n, task);
			return;
		}
		// The pool's own cursor hands out one index per call of the task, with no end to a thread's part
		// that a scope could close at; this cursor does the same inside one part per thread. A thread
		// whose task throws stops taking indices, as in the pool.
		AtomicInteger cursor = new AtomicInteger();
		threadsIn(pool, context, (thread, colocation) -> {
			for (int index = cursor.getAndIncrement(); index < n; index = cursor.getAndIncrement()) {
				task.run(index, thread, colocation);
			}
		});
	}

	static void forSlices(HostPool<ThreadTask, ProngTask, SliceTask> pool, ForkDecorator decorator, int n,
			SliceTask task) {
		ForkDecorator.Context context = (n == 0) ? null : capture(pool, decorator);
		if (context == null) {
			pool.forSlices(n, task);
		}
		else {
			slicesIn(pool, context, n, task);
		}
	}

	/** The context to restore, or {@code null} for a plain fork: no decorator, or a nested fork. */
	private static ForkDecorator.Context capture(HostPool<?, ?, ?> pool, ForkDecorator decorator) {
		return (decorator == null || pool.isInsideTask()) ? null : decorator.capture();
	}

	private static void threadsIn(HostPool<ThreadTask, ProngTask, SliceTask> pool, ForkDecorator.Context context,
			ThreadTask task) {
		Thread forking = Thread.currentThread();
		pool.forThreads((thread, colocation) -> {
			if (Thread.currentThread() == forking) {
				task.run(thread, colocation);
				return;
			}
			try (ExecutorHooks.Scope scope = context.restore()) {
				task.run(thread, colocation);
			}
		});
	}

	private static void slicesIn(HostPool<ThreadTask, ProngTask, SliceTask> pool, ForkDecorator.Context context, int n,
			SliceTask task) {
		Thread forking = Thread.currentThread();
		pool.forSlices(n, (first, count, thread, colocation) -> {
			if (Thread.currentThread() == forking) {
				task.run(first, count, thread, colocation);
				return;
			}
			try (ExecutorHooks.Scope scope = context.restore()) {
				task.run(first, count, thread, colocation);
			}
		});
	}
}
