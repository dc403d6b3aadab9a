package io.uform.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

import io.uform.failure.FailureFactory;

/**
 * The fork-join engine under a RAM executor: {@code threads - 1} worker threads plus the thread that
 * calls a fork, built for the latency of one fork rather than the throughput of many queued tasks
 * (in the spirit of ForkUnion). It runs the API's tasks as they are, through the {@link ForkBodies}
 * it is given: {@code T} runs once on every thread, {@code P} for one index, {@code S} for one slice.
 *
 * <h2>How a fork runs</h2>
 * The forking thread (the <em>caller</em>, thread 0) writes the fork's descriptor
 * ({@link ForkDescriptor}), publishes it by bumping {@code generation}, unparks any worker that
 * parked, runs its own share, then waits until every worker's share is done ({@link ForkWait}). Each
 * worker waits for {@code generation} to move, runs its share, and counts itself done. No lock is
 * taken and nothing is allocated between the caller and the workers; the descriptor is reused for
 * every fork.
 *
 * <h2>Shared state and why it is safe</h2>
 * The descriptor's fields and the threads' failures are in {@link ForkDescriptor}'s table; the
 * caller's wait ({@code pending}, {@code waitingCaller}) and the claims on a late worker's share
 * ({@code HostWorker.picked}, {@code HostWorker.arrived}, {@code HostWorker.claimedBy},
 * {@code HostWorker.lateIn}, {@code claimedLastFork}, {@code callerCpu}) in {@link ForkWait}'s.
 * Here:
 * <ul>
 * <li>{@code forkLock} (fair {@link ReentrantLock}): held by the caller for the whole fork. Forks
 * from many application threads are serialised in arrival order; uncontended it costs one CAS.
 * Everything a caller writes, here, in the descriptor and in the wait, is written under it.</li>
 * <li>{@code generation} ({@link PaddedLong}, volatile): single writer, the caller under
 * {@code forkLock}; read by all workers while they wait. Its volatile write, after the caller has
 * written the descriptor, and a worker's volatile read of the new value are the happens-before edge
 * that publishes the descriptor to that worker.</li>
 * <li>{@code stopRequested} (volatile) and {@code stopping} (volatile, written only under
 * {@code forkLock}): {@link #requestStop} sets the first and, if it can take the lock without
 * waiting, the second; otherwise the thread that holds the lock (a fork in progress) sets
 * {@code stopping} when it finishes, and looks again after it unlocks. Both sides write their own
 * variable before they read the other's (Dekker again), so one of them always sets it. Workers exit
 * only when {@code stopping} is set, which never happens while a fork is in progress: a fork's
 * workers never vanish under it.</li>
 * <li>{@code HostWorker.parked} (volatile, one per worker): the workers' half of the Dekker
 * handshake that makes parking safe (the caller's half, {@code waitingCaller}, is in
 * {@link ForkWait}). A worker first writes its flag, then re-reads the generation and the stop and
 * mood flags it waits on; a waker ({@link #wakeParkedWorkers}, {@link #setGrinding},
 * {@link #requestStop}) first changes them, then reads the flag or unparks regardless. With both
 * volatile (sequentially consistent), at least one side sees the other, so no wake-up is lost; a
 * surplus {@link LockSupport#unpark} only leaves a permit that the next park consumes, and every park
 * sits in a loop that re-checks its condition.</li>
 * <li>{@code grinding} (volatile, the executor's mood): written by {@code drain}, read by workers
 * between spins.</li>
 * <li>{@code forks} (a plain counter read with opaque mode): single writer under {@code forkLock};
 * readers only need a recent value for statistics.</li>
 * </ul>
 *
 * <h2>Waiting</h2>
 * A waiting thread (a worker between forks, the caller at the end of a fork) spins, then yields, then
 * parks; a caller whose worker has not picked a fork up in time runs that worker's share itself, and
 * a worker that finds itself queued behind the caller on one CPU moves off it. {@link ForkWait} says
 * how and why.
 * <p>
 * While grinding ({@link #setGrinding}) workers spin with {@link Thread#onSpinWait()} until the mood
 * changes, which only pays when each has its own core.
 *
 * <h2>Forks inside tasks</h2>
 * A fork started from inside a task of the same pool (on a worker, or on the caller while it holds
 * the fork) cannot wait for threads that are busy running the outer fork. It therefore runs inline:
 * the current thread runs every index itself, and every prong sees the current thread's own index
 * and colocation, so per-thread state indexed by thread stays race-free. A nested
 * {@code forThreads} therefore runs its task once, for the current thread.
 *
 * <h2>Failures</h2>
 * A thread whose task throws stops taking indices of that fork; the others finish theirs. The fork
 * then throws the failure of the lowest-numbered thread that failed. Where that is the only failure
 * and it happened on the calling thread, it is thrown as itself. Otherwise the caller throws a fresh
 * copy of the same class and message (so it carries the caller's frames) whose cause is the task's
 * own throwable, with the other threads' failures suppressed into the copy: the tasks' own
 * throwables are never modified, so a task that throws a cached exception leaks nothing. A
 * {@link VirtualMachineError} (out of memory, stack overflow), or a class that cannot be copied (no
 * public {@code (String, Throwable)} or {@code (String)} constructor), is thrown as itself, without
 * the others.
 *
 * <h2>A caller at the end of its stack</h2>
 * A fork from a thread whose stack is nearly used up must fail before it publishes anything, never
 * inside its own wait: a {@link StackOverflowError} thrown by the pool's frames after publishing
 * would let the caller unlock while workers still read the descriptor, and a stale
 * {@code shareDone} would then hang every later fork (and one thrown inside {@code unlock} would
 * leave the lock held). So a fork first calls deeper than its own frames ever go
 * ({@link #STACK_PROBE_DEPTH}) and only then takes the lock; where that
 * probe overflows, the fork throws the {@code StackOverflowError} with nothing changed. Should the
 * wait fail all the same, the caller still waits, by reading {@code pending} in a loop without a
 * call, and throws what failed.
 *
 * <h2>Interrupts</h2>
 * An interrupt is a message to a thread's current task, not to the pool: a worker clears its flag
 * before each task, so an interrupt one task leaves behind never reaches the next, and an idle worker
 * parks instead of spinning. The caller's flag is the caller's and is kept.
 *
 * @param <T> the task a fork runs once on every thread
 * @param <P> the task a fork runs for one index
 * @param <S> the task a fork runs for one contiguous slice of its indices
 */
public final class HostPool<T, P, S> {

	/** How deep a fork probes the caller's stack first; see "A caller at the end of its stack". */
	static final int STACK_PROBE_DEPTH = 16;

	private static final VarHandle FORKS;

	static {
		try {
			FORKS = MethodHandles.lookup().findVarHandle(HostPool.class, "forks", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
		// The first call through a VarHandle, and the first use of a class, allocate. Do both now, while
		// memory is plentiful: a worker whose shareDone() first ran when a task had filled the heap died
		// of an OutOfMemoryError there, and left every later fork waiting for it.
		PaddedLong warm = new PaddedLong(0);
		warm.setRelease(warm.getAndAdd(1));
		warm.setVolatile(warm.addAndGet(1) + warm.getVolatile());
		warm.compareAndSet(warm.getVolatile(), 0);
		warm.setOpaque(warm.getOpaque() + 1);
		ForkFailure.copyForCaller(new IllegalStateException("warm-up"), null);
	}

	final String name;

	/** Makes the exceptions a fork and a failed start throw. */
	private final FailureFactory errors;

	private final int threads;

	private final HostWorker[] workers;

	private final ReentrantLock forkLock = new ReentrantLock(true);

	final PaddedLong generation = new PaddedLong(0);

	/** What the current fork runs; see its class comment. */
	final ForkDescriptor<T, P, S> fork;

	/** Runs the tasks of a fork that runs inline. */
	private final ForkBodies<T, P, S> bodies;

	/** How the caller waits for the workers; see its class comment. */
	final ForkWait wait;

	/** Whether idle workers spin rather than park (the executor's mood); written by {@code drain}. */
	volatile boolean grinding;

	private volatile boolean stopRequested;

	/** Run once, by whichever thread sees the stop take (see {@link #whenStopped}). */
	private final java.util.concurrent.atomic.AtomicReference<Runnable> whenStopped =
			new java.util.concurrent.atomic.AtomicReference<>();

	volatile boolean stopping;

	private long forks;

	/**
	 * Starts the worker threads.
	 * @param name the executor's name; worker threads are called {@code uform-<name>-worker-<index>}
	 * @param threads threads taking part in a fork, the caller included; at least 1
	 * @param colocationOfThread for every thread index, the index of its memory domain
	 * @param workerStart run first on each worker thread with its index (pinning hooks in here); a
	 *        failure there, even an {@link Error}, is the hook's to report: the worker starts regardless
	 * @param bodies runs the tasks
	 * @param errors makes the exceptions it throws
	 * @throws RuntimeException {@code OUT_OF_MEMORY} when the JVM cannot start another
	 *         thread; the workers already started are stopped and joined first
	 */
	public HostPool(String name, int threads, int[] colocationOfThread, IntConsumer workerStart,
			ForkBodies<T, P, S> bodies, FailureFactory errors) {
		this(name, threads, colocationOfThread, workerStart, Thread::start, bodies, errors);
	}

	/**
	 * Starts the worker threads through {@code threadStart}, which tests replace to fail part way.
	 * @param name the executor's name
	 * @param threads threads taking part in a fork, the caller included
	 * @param colocationOfThread for every thread index, the index of its memory domain
	 * @param workerStart run first on each worker thread with its index
	 * @param threadStart starts one thread ({@link Thread#start()} outside tests)
	 * @param bodies runs the tasks
	 * @param errors makes the exceptions it throws
	 */
	public HostPool(String name, int threads, int[] colocationOfThread, IntConsumer workerStart, Consumer<Thread> threadStart,
			ForkBodies<T, P, S> bodies, FailureFactory errors) {
		this(name, threads, colocationOfThread, workerStart, threadStart, CpuEscape.SYSTEM, bodies, errors);
	}

	/**
	 * Starts the worker threads, with the escape late workers use to leave the caller's CPU.
	 * @param name the executor's name
	 * @param threads threads taking part in a fork, the caller included
	 * @param colocationOfThread for every thread index, the index of its memory domain
	 * @param workerStart run first on each worker thread with its index
	 * @param threadStart starts one thread
	 * @param escape how a late worker leaves the caller's CPU ({@link CpuEscape#SYSTEM} outside tests)
	 * @param bodies runs the tasks
	 * @param errors makes the exceptions it throws
	 */
	HostPool(String name, int threads, int[] colocationOfThread, IntConsumer workerStart, Consumer<Thread> threadStart,
			CpuEscape escape, ForkBodies<T, P, S> bodies, FailureFactory errors) {
		if (threads < 1 || colocationOfThread.length != threads) {
			throw new IllegalArgumentException("threads " + threads + " with " + colocationOfThread.length + " colocations");
		}
		this.name = name;
		this.errors = errors;
		this.threads = threads;
		boolean oversubscribed = threads > Runtime.getRuntime().availableProcessors();
		this.bodies = bodies;
		this.fork = new ForkDescriptor<>(threads, colocationOfThread.clone(), bodies);
		this.workers = new HostWorker[threads];
		this.wait = new ForkWait(this.workers, this.fork, oversubscribed, escape);
		// The constructor returns only once every worker has run its start hook, so an executor is
		// fully placed (and its pinning outcome known) by the time anyone can describe it.
		CountDownLatch started = new CountDownLatch(threads - 1);
		for (int t = 1; t < threads; t++) {
			this.workers[t] = new HostWorker(this, t, workerStart, started);
		}
		int running = 1;
		try {
			for (; running < threads; running++) {
				threadStart.accept(this.workers[running]);
			}
		}
		catch (Throwable ex) {
			// Threads already started would otherwise wait forever for a fork: stop and join them.
			stopStarted(running);
			if (ex instanceof OutOfMemoryError) {
				throw errors.outOfMemory("Executor '" + name + "' could not start worker "
						+ running + " of its " + (threads - 1) + " (" + ex.getMessage() + "); the " + (running - 1)
						+ " started were stopped. Ask for fewer threads, or raise the process's thread limit (ulimit -u, "
						+ "a container's pids limit)", ex);
			}
			throw ex;
		}
		boolean interrupted = false;
		while (true) {
			try {
				started.await();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Stops and joins workers {@code 1 .. running-1}, the ones that started, after a failed start. No
	 * fork can exist yet, so {@code stopping} is written without the lock here.
	 */
	private void stopStarted(int running) {
		this.stopRequested = true;
		this.stopping = true;
		boolean interrupted = false;
		for (int t = 1; t < running; t++) {
			LockSupport.unpark(this.workers[t]);
			while (true) {
				try {
					this.workers[t].join();
					break;
				}
				catch (InterruptedException ie) {
					interrupted = true;
				}
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Threads taking part in a fork, the caller included.
	 * @return at least 1
	 */
	public int threads() {
		return this.threads;
	}

	/**
	 * The colocation (memory-domain index) of a thread.
	 * @param thread a thread index
	 * @return its colocation
	 */
	public int colocationOf(int thread) {
		return this.fork.colocationOf(thread);
	}

	/**
	 * Forks run so far, nested ones not counted.
	 * @return a recent count
	 */
	public long forks() {
		return (long) FORKS.getOpaque(this);
	}

	/**
	 * Whether idle workers spin rather than park (the executor's mood).
	 * @return {@code true} while grinding
	 */
	public boolean isGrinding() {
		return this.grinding;
	}

	/**
	 * Whether the current thread is running a task of this pool right now (a worker, or a caller
	 * inside its fork). Forks from such a thread run inline.
	 * @return {@code true} inside a task of this pool
	 */
	public boolean isInsideTask() {
		Thread current = Thread.currentThread();
		return (current instanceof HostWorker worker && worker.pool == this) || this.forkLock.isHeldByCurrentThread();
	}

	/**
	 * Runs a task once on every thread.
	 * @param task the task
	 */
	public void forThreads(T task) {
		if (isInsideTask()) {
			int thread = currentThreadIndex();
			this.bodies.runThread(task, thread, this.fork.colocationOf(thread));
			return;
		}
		fork(ForkDescriptor.KIND_THREADS, this.threads, task, null, null);
	}

	/**
	 * Runs {@code n} indices in static slices: thread {@code t} takes indices
	 * {@code [t*n/threads, (t+1)*n/threads)}.
	 * @param n how many indices, at least 0
	 * @param task the task run for each index
	 */
	public void forN(int n, P task) {
		if (n == 0) {
			return;
		}
		if (isInsideTask()) {
			runInline(n, task);
			return;
		}
		fork(ForkDescriptor.KIND_STATIC, n, null, task, null);
	}

	/**
	 * Runs {@code n} indices handed out one at a time from a shared cursor, so threads that finish
	 * early take more: for indices of uneven cost.
	 * @param n how many indices, at least 0
	 * @param task the task run for each index
	 */
	public void forNDynamic(int n, P task) {
		if (n == 0) {
			return;
		}
		if (isInsideTask()) {
			runInline(n, task);
			return;
		}
		fork(ForkDescriptor.KIND_DYNAMIC, n, null, task, null);
	}

	/**
	 * Runs {@code n} indices as one contiguous slice per thread (the static slices of
	 * {@link #forN}); threads whose slice is empty are not called.
	 * @param n how many indices, at least 0
	 * @param task the task run for each non-empty slice
	 */
	public void forSlices(int n, S task) {
		if (n == 0) {
			return;
		}
		if (isInsideTask()) {
			int thread = currentThreadIndex();
			this.bodies.runSlice(task, 0, n, thread, this.fork.colocationOf(thread));
			return;
		}
		fork(ForkDescriptor.KIND_SLICES, n, null, null, task);
	}

	private void runInline(int count, P task) {
		int thread = currentThreadIndex();
		int colocation = this.fork.colocationOf(thread);
		ForkBodies<T, P, S> run = this.bodies;
		for (int i = 0; i < count; i++) {
			run.runProng(task, i, thread, colocation);
		}
	}

	private int currentThreadIndex() {
		return (Thread.currentThread() instanceof HostWorker worker && worker.pool == this) ? worker.index : 0;
	}

	private void fork(int forkKind, int count, T threadTask, P prongs, S slices) {
		// Overflows here, before anything is published, where the stack cannot hold the wait below.
		probeStack(STACK_PROBE_DEPTH);
		ReentrantLock lock = this.forkLock;
		lock.lock();
		try {
			if (this.stopping || this.stopRequested) {
				throw this.errors.freed("Executor '" + this.name + "' was freed; make a new executor to run more "
						+ "work");
			}
			ForkDescriptor<T, P, S> descriptor = this.fork;
			descriptor.describe(forkKind, count, threadTask, prongs, slices);
			FORKS.setOpaque(this, this.forks + 1);
			long published = System.nanoTime();
			long current = 0;
			boolean forked = false;
			try {
				if (this.threads > 1) {
					this.wait.expect(this.threads - 1);
					// The volatile write below publishes the descriptor and the count above.
					current = this.generation.getVolatile() + 1;
					this.generation.setVolatile(current);
					forked = true;
					wakeParkedWorkers();
				}
				descriptor.runShare(0);
			}
			catch (Throwable ex) {
				// Only an Error at a frame's entry gets here (runShare keeps the task's own failures): the
				// calling thread's failure, thrown below once the workers are done. The call records it
				// with plain stores only, as the catch below does: anything more could fail in turn.
				descriptor.callerFailed(ex);
			}
			// Whatever happened on this thread, the workers may still be reading the descriptor: the
			// lock must not pass to the next fork before they are done.
			if (forked) {
				try {
					this.wait.awaitWorkers(published, current);
				}
				catch (Throwable ex) {
					// Out of stack (or memory) in the wait itself, in spite of probeStack: wait with volatile
					// reads, waking parked workers again on the way, since one parked before it was woken
					// would never arrive. No onSpinWait(): in the interpreter it is a call too.
					descriptor.callerFailed(ex);
					while (!this.wait.allDone()) {
						try {
							wakeParkedWorkers();
						}
						catch (Throwable again) {
							// Still out of stack: try again.
						}
					}
				}
			}
			descriptor.clearTasks();
			if (descriptor.anyFailure) {
				throwUnchecked(descriptor.collectFailure(this.name, this.errors));
			}
		}
		finally {
			if (this.stopRequested) {
				this.stopping = true;
			}
			lock.unlock();
			afterUnlock();
		}
	}

	/** Finishes a stop that was requested while this thread held the lock (see the class comment). */
	private void afterUnlock() {
		if (this.stopRequested) {
			requestStop();
		}
	}

	/**
	 * Registers an action to run once the stop takes ({@link #isStopping()}): at once if it already
	 * has, else on the thread that makes it take (a {@link #requestStop()} caller, or the caller of the
	 * fork that was in progress, when that fork ends). A VRAM executor releases its devices there,
	 * since no task can touch them any more.
	 * @param action run at most once; what it throws reaches that thread
	 */
	public void whenStopped(Runnable action) {
		this.whenStopped.set(action);
		if (this.stopping) {
			runWhenStopped();
		}
	}

	private void runWhenStopped() {
		Runnable action = this.whenStopped.getAndSet(null);
		if (action != null) {
			action.run();
		}
	}

	/**
	 * Calls itself {@code depth} levels deep and returns, so that a caller whose stack cannot hold a
	 * fork's deepest paths gets its {@link StackOverflowError} here, before the fork takes its lock.
	 * Those paths are five or six frames below {@code fork}: taking and releasing the lock (which
	 * parks or unparks inside the lock's own frames), the wait, waking workers. An overflow in
	 * {@code unlock} would leave the lock held for ever. {@link #STACK_PROBE_DEPTH} levels, since the
	 * JIT inlines one level of a recursion into the next, and the probe's frames are small.
	 */
	private static int probeStack(int depth) {
		return (depth <= 0) ? 0 : probeStack(depth - 1) + 1;
	}

	private void wakeParkedWorkers() {
		HostWorker[] all = this.workers;
		for (int t = 1; t < all.length; t++) {
			if (all[t].parked) {
				LockSupport.unpark(all[t]);
			}
		}
	}

	/**
	 * Waits at most until {@code deadline} for the fork in progress, if any, to finish.
	 * @param deadline a {@link System#nanoTime()} value
	 * @return {@code true} when no fork was in progress by then
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitIdle(long deadline) throws InterruptedException {
		// Timed even without a deadline (Long.MAX_VALUE - now is centuries): the untimed lock() cannot
		// be interrupted, and a free() waiting here must be.
		if (!this.forkLock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
			return false;
		}
		this.forkLock.unlock();
		// A requestStop() that found the lock held by this wait left the stop to the holder, as it does
		// to a fork's caller: finish it here, or no one would.
		afterUnlock();
		return true;
	}

	/**
	 * Sets what idle workers do: spin (grinding) or sleep.
	 * @param spin {@code true} to spin, {@code false} to park
	 */
	public void setGrinding(boolean spin) {
		this.grinding = spin;
		// Parked workers only notice a mood change when woken; grinding ones poll it.
		for (int t = 1; t < this.workers.length; t++) {
			LockSupport.unpark(this.workers[t]);
		}
	}

	/**
	 * Refuses new forks and tells the workers to exit once the fork in progress, if any, is done;
	 * never waits. Later forks fail with {@code FREED}. Calling it again does
	 * nothing more.
	 */
	public void requestStop() {
		this.stopRequested = true;
		// The lock is reentrant: a thread inside its own fork must not stop the workers under it (its
		// fork's end will).
		if (!this.stopping && !this.forkLock.isHeldByCurrentThread() && this.forkLock.tryLock()) {
			try {
				this.stopping = true;
			}
			finally {
				this.forkLock.unlock();
			}
		}
		if (this.stopping) {
			for (int t = 1; t < this.workers.length; t++) {
				LockSupport.unpark(this.workers[t]);
			}
			runWhenStopped();
		}
	}

	/**
	 * Whether the stop took: no fork is in progress, and none will start. Set by
	 * {@link #requestStop()} when it could take the fork lock at once, else by the fork in progress
	 * when it ends.
	 * @return {@code true} once stopping
	 */
	public boolean isStopping() {
		return this.stopping;
	}

	/**
	 * Waits for the fork in progress, stops every worker and joins it. Later forks fail with
	 * {@code FREED}. Calling it again does nothing more.
	 * @throws InterruptedException if interrupted while joining; the workers are stopping regardless
	 */
	public void stop() throws InterruptedException {
		stop(Long.MAX_VALUE);
	}

	/**
	 * Requests a stop ({@link #requestStop()}) and waits at most until {@code deadline} for the fork
	 * in progress, if any, to end and every worker to exit. A fork still in progress then keeps its
	 * workers until it ends.
	 * @param deadline a {@link System#nanoTime()} value, or {@link Long#MAX_VALUE} for no limit
	 * @return {@code true} when the stop took (no fork in progress) and every worker has exited
	 * @throws InterruptedException if interrupted while waiting; the workers are stopping regardless
	 */
	public boolean stop(long deadline) throws InterruptedException {
		requestStop();
		if (!this.stopping) {
			// A fork is in progress: wait for it (its end makes the stop take), up to the deadline.
			if (!awaitIdle(deadline)) {
				return false;
			}
			requestStop();
		}
		for (int t = 1; t < this.workers.length; t++) {
			HostWorker worker = this.workers[t];
			if (deadline == Long.MAX_VALUE) {
				worker.join();
			}
			else {
				long left = deadline - System.nanoTime();
				if (left > 0) {
					TimeUnit.NANOSECONDS.timedJoin(worker, left);
				}
				if (worker.isAlive()) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * The worker threads still alive, for a report of what a stop could not join.
	 * @return their names
	 */
	public java.util.List<String> liveWorkers() {
		java.util.List<String> alive = new java.util.ArrayList<>();
		for (int t = 1; t < this.workers.length; t++) {
			if (this.workers[t].isAlive()) {
				alive.add(this.workers[t].getName());
			}
		}
		return alive;
	}

	@SuppressWarnings("unchecked")
	private static <E extends Throwable> void throwUnchecked(Throwable ex) throws E {
		throw (E) ex;
	}
}
