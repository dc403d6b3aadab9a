package io.uform.host;

import io.uform.failure.FailureFactory;

/**
 * What the current fork of a {@link HostPool} runs, and how its indices are shared among the
 * threads: one object per pool, rewritten for every fork, so that a fork allocates nothing. The tasks
 * are held as the API passed them and run through the pool's {@link ForkBodies}.
 *
 * <h2>Shared state and why it is safe</h2>
 * <ul>
 * <li>{@code kind}, {@code n}, {@code threadTask}, {@code prongTask}, {@code sliceTask} (plain):
 * written only by the fork's caller under the pool's {@code forkLock} ({@link #describe}), before
 * its volatile write of the pool's {@code generation}; read by workers only after their volatile
 * read sees that new generation. The volatile write/read pair is the happens-before edge that
 * publishes them. They are not rewritten until the pool's {@code pending} is back to zero, i.e.
 * until every worker has stopped reading.</li>
 * <li>{@code cursor} ({@link PaddedLong}): reset by the caller in {@link #describe}, before
 * publishing; claimed with atomic {@code getAndAdd} by every thread in a dynamic fork.</li>
 * <li>{@code failures} (one plain slot per thread) and {@code anyFailure} (plain, only ever set to
 * {@code true} by the threads): a thread whose task throws stores the throwable in its own slot,
 * then counts {@code pending} down; the caller reads them after it has seen {@code pending} at zero,
 * which publishes them, and clears them before the next fork. Recording a failure allocates nothing
 * and calls nothing, so it cannot itself fail, even when the heap is exhausted: a worker always
 * reaches {@code shareDone}, and the caller always waits for its workers (a {@code finally}).</li>
 * <li>{@code threads}, {@code colocationOfThread} and {@code bodies}: final, never written after
 * construction.</li>
 * </ul>
 */
final class ForkDescriptor<T, P, S> {

	static final int KIND_THREADS = 0;

	static final int KIND_STATIC = 1;

	static final int KIND_DYNAMIC = 2;

	static final int KIND_SLICES = 3;

	private final int threads;

	private final int[] colocationOfThread;

	private final ForkBodies<T, P, S> bodies;

	private final PaddedLong cursor = new PaddedLong(0);

	int kind;

	private int n;

	private T threadTask;

	private P prongTask;

	private S sliceTask;

	/** Each thread's failure in the current fork, by thread index. */
	private final Throwable[] failures;

	boolean anyFailure;

	ForkDescriptor(int threads, int[] colocationOfThread, ForkBodies<T, P, S> bodies) {
		this.threads = threads;
		this.colocationOfThread = colocationOfThread;
		this.bodies = bodies;
		this.failures = new Throwable[threads];
	}

	int colocationOf(int thread) {
		return this.colocationOfThread[thread];
	}

	/** Writes the next fork's descriptor; the caller publishes it with its next generation. */
	void describe(int forkKind, int count, T threads, P prongs, S slices) {
		this.kind = forkKind;
		this.n = count;
		this.threadTask = threads;
		this.prongTask = prongs;
		this.sliceTask = slices;
		this.cursor.setRelease(0);
	}

	/** Drops the fork's tasks once every thread is done with them, so the pool holds none. */
	void clearTasks() {
		this.threadTask = null;
		this.prongTask = null;
		this.sliceTask = null;
	}

	/** Runs thread {@code thread}'s share of the current fork; never throws. */
	void runShare(int thread) {
		int colocation = this.colocationOfThread[thread];
		try {
			switch (this.kind) {
				case KIND_THREADS -> this.bodies.runThread(this.threadTask, thread, colocation);
				case KIND_STATIC -> {
					int first = sliceStart(thread);
					int end = sliceStart(thread + 1);
					ForkBodies<T, P, S> run = this.bodies;
					P task = this.prongTask;
					for (int i = first; i < end; i++) {
						run.runProng(task, i, thread, colocation);
					}
				}
				case KIND_DYNAMIC -> {
					ForkBodies<T, P, S> run = this.bodies;
					P task = this.prongTask;
					int count = this.n;
					PaddedLong next = this.cursor;
					for (long i = next.getAndAdd(1); i < count; i = next.getAndAdd(1)) {
						run.runProng(task, (int) i, thread, colocation);
					}
				}
				case KIND_SLICES -> {
					int first = sliceStart(thread);
					int end = sliceStart(thread + 1);
					if (end > first) {
						this.bodies.runSlice(this.sliceTask, first, end - first, thread, colocation);
					}
				}
				default -> throw new IllegalStateException("fork kind " + this.kind);
			}
		}
		catch (Throwable ex) {
			// A plain store into this thread's own slot: no allocation, no call, so it cannot fail.
			this.failures[thread] = ex;
			this.anyFailure = true;
		}
	}

	private int sliceStart(int thread) {
		return (int) ((long) thread * this.n / this.threads);
	}

	/**
	 * Records a failure of the calling thread outside its task (an {@link Error} at a frame's entry),
	 * unless its task already failed. No call: a call could fail in turn.
	 */
	void callerFailed(Throwable ex) {
		if (this.failures[0] == null) {
			this.failures[0] = ex;
		}
		this.anyFailure = true;
	}

	/**
	 * Takes the current fork's failures (see "Failures" in {@link HostPool}'s class comment) and
	 * clears them.
	 * @param executor the executor's name, for a failure that was lost
	 * @param errors copies the API's own exceptions
	 * @return what the fork throws
	 */
	Throwable collectFailure(String executor, FailureFactory errors) {
		this.anyFailure = false;
		return ForkFailure.ofFork(this.failures, executor, errors);
	}
}
