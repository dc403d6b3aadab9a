package io.uform;

import java.util.concurrent.atomic.AtomicInteger;

import io.uform.host.HostPool;

/**
 * Forks whose parts run inside a context the forking thread captured ({@link ForkDecorator}): each
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

	static void forThreads(HostPool<ThreadTask, ProngTask, SliceTask> pool,
			ForkDecorator.Context context, ThreadTask task) {
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

	static void forN(HostPool<ThreadTask, ProngTask, SliceTask> pool,
			ForkDecorator.Context context, int n, ProngTask task) {
		// forN's static slices are forSlices' (HostPool): one restore per thread rather than per index.
		forSlices(pool, context, n, (first, count, thread, colocation) -> {
			for (int index = first, end = first + count; index < end; index++) {
				task.run(index, thread, colocation);
			}
		});
	}

	static void forNDynamic(HostPool<ThreadTask, ProngTask, SliceTask> pool,
			ForkDecorator.Context context, int n, ProngTask task) {
		// The pool's own cursor hands out one index per call of the task, with no end to a thread's part
		// that a scope could close at; this cursor does the same inside one part per thread. A thread
		// whose task throws stops taking indices, as in the pool.
		AtomicInteger cursor = new AtomicInteger();
		forThreads(pool, context, (thread, colocation) -> {
			for (int index = cursor.getAndIncrement(); index < n; index = cursor.getAndIncrement()) {
				task.run(index, thread, colocation);
			}
		});
	}

	static void forSlices(HostPool<ThreadTask, ProngTask, SliceTask> pool,
			ForkDecorator.Context context, int n, SliceTask task) {
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
