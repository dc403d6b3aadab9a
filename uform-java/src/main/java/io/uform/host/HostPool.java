package io.uform.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

import io.uform.Mood;
import io.uform.ProngTask;
import io.uform.SliceTask;
import io.uform.ThreadTask;
import io.uform.UformException;

/**
 * The fork-join engine under a RAM executor: {@code threads - 1} worker threads plus the thread that
 * calls a fork, built for the latency of one fork rather than the throughput of many queued tasks
 * (in the spirit of ForkUnion).
 *
 * <h2>How a fork runs</h2>
 * The forking thread (the <em>caller</em>, thread 0) writes the fork's descriptor, publishes it by
 * bumping {@code generation}, unparks any worker that parked, runs its own share, then waits until
 * {@code pending} reaches zero. Each worker waits for {@code generation} to move, runs its share,
 * and decrements {@code pending}. No lock is taken and nothing is allocated between the caller and
 * the workers; the descriptor is reused for every fork.
 *
 * <h2>Shared state and why it is safe</h2>
 * <ul>
 * <li>{@code forkLock} (fair {@link ReentrantLock}): held by the caller for the whole fork. Forks
 * from many application threads are serialised in arrival order; uncontended it costs one CAS.
 * Everything written by a caller below is written under it.</li>
 * <li>Descriptor fields {@code kind}, {@code n}, {@code threadTask}, {@code prongTask},
 * {@code sliceTask} (plain): written only by the caller, before the volatile write of
 * {@code generation}; read by workers only after their volatile read sees that new generation.
 * The volatile write/read pair is the happens-before edge that publishes them. They are not
 * rewritten until {@code pending} is back to zero, i.e. until every worker has stopped reading.</li>
 * <li>{@code generation} ({@link PaddedLong}, volatile): single writer, the caller under
 * {@code forkLock}; read by all workers while they wait.</li>
 * <li>{@code pending} ({@link PaddedLong}): set to {@code threads - 1} by the caller before
 * publishing; decremented atomically by each worker after its share. The worker that takes it to
 * zero unparks the caller if the caller registered in {@code waitingCaller}.</li>
 * <li>{@code cursor} ({@link PaddedLong}): reset by the caller before publishing; claimed with
 * atomic {@code getAndAdd} by every thread in a dynamic fork.</li>
 * <li>{@code failures} (one plain slot per thread) and {@code anyFailure} (plain, only ever set to
 * {@code true} by the threads): a thread whose task throws stores the throwable in its own slot,
 * then counts {@code pending} down; the caller reads them after it has seen {@code pending} at zero,
 * which publishes them, and clears them before the next fork. Recording a failure allocates nothing
 * and calls nothing, so it cannot itself fail, even when the heap is exhausted: a worker always
 * reaches {@code shareDone}, and the caller always waits for its workers (a {@code finally}).</li>
 * <li>{@code stopRequested} (volatile) and {@code stopping} (volatile, written only under
 * {@code forkLock}): {@link #requestStop} sets the first and, if it can take the lock without
 * waiting, the second; otherwise the thread that holds the lock (a fork in progress) sets
 * {@code stopping} when it finishes, and looks again after it unlocks. Both sides write their own
 * variable before they read the other's (Dekker again), so one of them always sets it. Workers exit
 * only when {@code stopping} is set, which never happens while a fork is in progress: a fork's
 * workers never vanish under it.</li>
 * <li>{@code HostWorker.parked} (volatile, one per worker) and {@code waitingCaller} (volatile): the
 * Dekker handshake that makes parking safe. A sleeper first writes its flag, then re-reads the
 * condition it waits for; a waker first changes the condition, then reads the flag. With both
 * volatile (sequentially consistent), at least one side sees the other, so no wake-up is lost;
 * a surplus {@link LockSupport#unpark} only leaves a permit that the next park consumes, and every
 * park sits in a loop that re-checks its condition.</li>
 * <li>{@code mood} (volatile): written by {@code drain}, read by workers between spins.</li>
 * <li>{@code forks} (a plain counter read with opaque mode): single writer under {@code forkLock};
 * readers only need a recent value for statistics.</li>
 * <li>{@code HostWorker.picked} ({@link PaddedLong}, one per worker): the last generation whose share
 * is taken, claimed with a CAS by the worker when it picks the fork up, or by the caller when it
 * runs a missing worker's share itself (see Waiting). Exactly one CAS per worker and fork succeeds,
 * so exactly one thread runs each share and counts {@code pending} down for it.</li>
 * <li>{@code HostWorker.lateIn} ({@link PaddedLong}, one per worker, release write, single writer the
 * caller): the last {@code forThreads} generation that worker had not picked up by the pick-up
 * deadline. Read by the worker after its share (see Waiting).</li>
 * <li>{@code callerCpu} (plain): the caller's CPU, written on its late-worker path before it marks a
 * worker late ({@code lateIn}) or claims its share ({@code picked}); that worker reads it after it
 * has seen the mark or the claim, which publishes it. A hint: a stale value costs at most one
 * needless or missed move.</li>
 * </ul>
 *
 * <h2>Waiting</h2>
 * A waiting thread (a worker between forks, the caller at the end of a fork) backs off in three
 * steps: it spins with {@link Thread#onSpinWait()} for {@code pureSpinNanos}, then calls
 * {@link Thread#yield()} until {@link #SPIN_NANOS} have passed since it began waiting, then parks
 * and uses no CPU.
 * <ul>
 * <li>The yield step matters when a thread shares its core with its partner (a loaded machine, a
 * container quota, a caller and a worker on one core): a pure spin holds the core the partner needs
 * for the whole budget, so each fork would cost two budgets.</li>
 * <li>Yielding at once is not right either: when caller and worker both yield early, Linux tends
 * to put them on one core, which slows every fork on a machine with cores to spare. So the pure spin
 * lasts {@link #PURE_SPIN_NANOS} where each thread can have a core, and only
 * {@value #SPINS_PER_CLOCK_READ} rounds (about 2 us) where the pool has more threads than the JVM
 * has processors ({@link Runtime#availableProcessors()}: affinity mask and container quota).</li>
 * </ul>
 * A worker that has not picked a fork up {@link #PICKUP_NANOS} after it was published is not
 * running: parked, preempted, or queued behind the caller on the caller's own CPU (an application
 * thread is never pinned, so the scheduler can put it there). Waiting for it would cost a switch to
 * it and back at best, and the spin budgets of both threads at worst, so the caller claims that
 * worker's share and runs it itself; the worker, when it runs, finds its share claimed and goes back
 * to waiting, so a fork whose caller and worker share a CPU takes about its serial time rather than
 * that plus both spins ({@code benchmarks/results/2026-11-30-host-pool-waiting.md}). Not in {@code forThreads},
 * whose task must run once on every thread (a VRAM executor's device tasks need their own thread's
 * context): there the caller marks the worker late ({@code lateIn}), skips the rest of its pure spin
 * and yields at once, so a worker queued behind it gets the CPU.
 * <p>
 * Sharing a CPU does not end by itself. Linux does not move a thread that ran within the last half
 * millisecond (it is "cache hot"), and with both threads busy its wake-up path does not look for an
 * idle CPU either: a caller and worker that landed on one CPU stay there for hundreds to thousands of
 * forks, each paying the pick-up deadline, while the other CPU idles. So a late worker (its share
 * claimed, or marked late) that finds itself on the caller's CPU moves off it ({@link CpuEscape}: its
 * affinity mask without that CPU, then the mask again), and one fork pays for the move instead.
 * Where it cannot tell or cannot move, it yields once, so a caller waiting for its CPU gets it at
 * once; on a CPU of its own it does neither (a yield there would only delay its next pick-up). After running a late worker's share the caller yields once too, so a worker queued behind it
 * sees that at once, rather than at the end of the caller's time slice. A pool with more threads
 * than processors never moves: there is no free CPU to move to.
 * <p>
 * A share the caller ran for a worker sees that worker's thread index and colocation, as its worker
 * would; only the thread differs (and a fork nested in it runs inline as the caller's, thread 0).
 * <p>
 * In {@link Mood#GRINDING} workers spin with {@link Thread#onSpinWait()} until the mood changes,
 * which only pays when each has its own core.
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
 */
public final class HostPool {

	/**
	 * How long a waiting thread spins with {@link Thread#onSpinWait()} before it starts yielding its
	 * core, when each thread can have a core of its own: 5 microseconds, several times a fork's
	 * round trip between two cores.
	 */
	public static final long PURE_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(5);

	/** Spins between two looks at the clock (a clock read costs about as much as 64 spins). */
	static final int SPINS_PER_CLOCK_READ = 64;

	/**
	 * How long a waiting thread stays awake (spinning, then yielding) before it parks: 50
	 * microseconds, so back-to-back forks find the workers awake while an idle pool sleeps.
	 */
	public static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

	/** How deep a fork probes the caller's stack first; see "A caller at the end of its stack". */
	static final int STACK_PROBE_DEPTH = 16;

	/**
	 * How long after publishing a fork the caller still expects a spinning worker to pick it up: 4
	 * microseconds, many cross-core round trips, and under {@link #PURE_SPIN_NANOS} so that an empty
	 * fork still claims before its caller yields. A worker that has not picked the fork up by then is
	 * not running: parked, preempted, or queued behind the caller on the caller's own CPU. Not 2: a
	 * spinning worker on a virtual CPU missed that often enough to put empty {@code forSlices}' p99 at
	 * 6x (benchmarks/results/2026-12-02-pickup-deadline.md).
	 */
	static final long PICKUP_NANOS = TimeUnit.MICROSECONDS.toNanos(4);

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
		ForkFailure.copyForCaller(new IllegalStateException("warm-up"));
	}

	private static final int KIND_THREADS = 0;

	private static final int KIND_STATIC = 1;

	private static final int KIND_DYNAMIC = 2;

	private static final int KIND_SLICES = 3;

	final String name;

	private final int threads;

	private final int[] colocationOfThread;

	private final HostWorker[] workers;

	private final ReentrantLock forkLock = new ReentrantLock(true);

	final PaddedLong generation = new PaddedLong(0);

	private final PaddedLong pending = new PaddedLong(0);

	private final PaddedLong cursor = new PaddedLong(0);

	/** The caller's CPU when it last found a worker late; see the class comment. */
	private int callerCpu = -1;

	/** Moves a late worker off the caller's CPU; {@code null} where the pool never moves one. */
	private final CpuEscape escape;

	// Fork descriptor: see the class comment for who writes it and how it is published.
	private int kind;

	private int n;

	private ThreadTask threadTask;

	private ProngTask prongTask;

	private SliceTask sliceTask;

	/** Each thread's failure in the current fork, by thread index; see the class comment. */
	private final Throwable[] failures;

	private boolean anyFailure;

	private volatile Thread waitingCaller;

	volatile Mood mood = Mood.PARKED;

	private volatile boolean stopRequested;

	/** Run once, by whichever thread sees the stop take (see {@link #whenStopped}). */
	private final java.util.concurrent.atomic.AtomicReference<Runnable> whenStopped =
			new java.util.concurrent.atomic.AtomicReference<>();

	volatile boolean stopping;

	private long forks;

	/** How long waits spin before yielding: {@link #PURE_SPIN_NANOS}, or none when oversubscribed. */
	final long pureSpinNanos;

	/**
	 * Starts the worker threads.
	 * @param name the executor's name; worker threads are called {@code uform-<name>-worker-<index>}
	 * @param threads threads taking part in a fork, the caller included; at least 1
	 * @param colocationOfThread for every thread index, the index of its memory domain
	 * @param workerStart run first on each worker thread with its index (pinning hooks in here); a
	 *        failure there, even an {@link Error}, is the hook's to report: the worker starts regardless
	 * @throws UformException {@link UformException.Status#OUT_OF_MEMORY} when the JVM cannot start
	 *         another thread; the workers already started are stopped and joined first
	 */
	public HostPool(String name, int threads, int[] colocationOfThread, IntConsumer workerStart) {
		this(name, threads, colocationOfThread, workerStart, Thread::start);
	}

	/**
	 * Starts the worker threads through {@code threadStart}, which tests replace to fail part way.
	 * @param name the executor's name
	 * @param threads threads taking part in a fork, the caller included
	 * @param colocationOfThread for every thread index, the index of its memory domain
	 * @param workerStart run first on each worker thread with its index
	 * @param threadStart starts one thread ({@link Thread#start()} outside tests)
	 */
	public HostPool(String name, int threads, int[] colocationOfThread, IntConsumer workerStart, Consumer<Thread> threadStart) {
		this(name, threads, colocationOfThread, workerStart, threadStart, CpuEscape.SYSTEM);
	}

	/**
	 * Starts the worker threads, with the escape late workers use to leave the caller's CPU.
	 * @param name the executor's name
	 * @param threads threads taking part in a fork, the caller included
	 * @param colocationOfThread for every thread index, the index of its memory domain
	 * @param workerStart run first on each worker thread with its index
	 * @param threadStart starts one thread
	 * @param escape how a late worker leaves the caller's CPU ({@link CpuEscape#SYSTEM} outside tests)
	 */
	HostPool(String name, int threads, int[] colocationOfThread, IntConsumer workerStart, Consumer<Thread> threadStart,
			CpuEscape escape) {
		if (threads < 1 || colocationOfThread.length != threads) {
			throw new IllegalArgumentException("threads " + threads + " with " + colocationOfThread.length + " colocations");
		}
		this.name = name;
		this.threads = threads;
		boolean oversubscribed = threads > Runtime.getRuntime().availableProcessors();
		this.pureSpinNanos = oversubscribed ? 0 : PURE_SPIN_NANOS;
		this.escape = oversubscribed ? null : escape;
		this.colocationOfThread = colocationOfThread.clone();
		this.failures = new Throwable[threads];
		this.workers = new HostWorker[threads];
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
				throw new UformException(UformException.Status.OUT_OF_MEMORY, "Executor '" + name + "' could not start worker "
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
		return this.colocationOfThread[thread];
	}

	/**
	 * Forks run so far, nested ones not counted.
	 * @return a recent count
	 */
	public long forks() {
		return (long) FORKS.getOpaque(this);
	}

	/**
	 * The mood idle workers are in.
	 * @return the current mood
	 */
	public Mood mood() {
		return this.mood;
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
	public void forThreads(ThreadTask task) {
		if (isInsideTask()) {
			int thread = currentThreadIndex();
			task.run(thread, this.colocationOfThread[thread]);
			return;
		}
		fork(KIND_THREADS, this.threads, task, null, null);
	}

	/**
	 * Runs {@code n} indices in static slices: thread {@code t} takes indices
	 * {@code [t*n/threads, (t+1)*n/threads)}.
	 * @param n how many indices, at least 0
	 * @param task the task run for each index
	 */
	public void forN(int n, ProngTask task) {
		if (n == 0) {
			return;
		}
		if (isInsideTask()) {
			runInline(n, task);
			return;
		}
		fork(KIND_STATIC, n, null, task, null);
	}

	/**
	 * Runs {@code n} indices handed out one at a time from a shared cursor, so threads that finish
	 * early take more: for indices of uneven cost.
	 * @param n how many indices, at least 0
	 * @param task the task run for each index
	 */
	public void forNDynamic(int n, ProngTask task) {
		if (n == 0) {
			return;
		}
		if (isInsideTask()) {
			runInline(n, task);
			return;
		}
		fork(KIND_DYNAMIC, n, null, task, null);
	}

	/**
	 * Runs {@code n} indices as one contiguous slice per thread (the static slices of
	 * {@link #forN}); threads whose slice is empty are not called.
	 * @param n how many indices, at least 0
	 * @param task the task run for each non-empty slice
	 */
	public void forSlices(int n, SliceTask task) {
		if (n == 0) {
			return;
		}
		if (isInsideTask()) {
			int thread = currentThreadIndex();
			task.run(0, n, thread, this.colocationOfThread[thread]);
			return;
		}
		fork(KIND_SLICES, n, null, null, task);
	}

	private void runInline(int count, ProngTask task) {
		int thread = currentThreadIndex();
		int colocation = this.colocationOfThread[thread];
		for (int i = 0; i < count; i++) {
			task.run(i, thread, colocation);
		}
	}

	private int currentThreadIndex() {
		return (Thread.currentThread() instanceof HostWorker worker && worker.pool == this) ? worker.index : 0;
	}

	private void fork(int forkKind, int count, ThreadTask threads, ProngTask prongs, SliceTask slices) {
		// Overflows here, before anything is published, where the stack cannot hold the wait below.
		probeStack(STACK_PROBE_DEPTH);
		ReentrantLock lock = this.forkLock;
		lock.lock();
		try {
			if (this.stopping || this.stopRequested) {
				throw new UformException(UformException.Status.FREED,
						"Executor '" + this.name + "' was freed; make a new executor to run more work");
			}
			this.kind = forkKind;
			this.n = count;
			this.threadTask = threads;
			this.prongTask = prongs;
			this.sliceTask = slices;
			FORKS.setOpaque(this, this.forks + 1);
			this.cursor.setRelease(0);
			long published = System.nanoTime();
			boolean forked = false;
			try {
				if (this.threads > 1) {
					this.pending.setRelease(this.threads - 1);
					// The volatile write below publishes the descriptor and the two resets above.
					this.generation.setVolatile(this.generation.getVolatile() + 1);
					forked = true;
					wakeParkedWorkers();
				}
				runShare(0);
			}
			catch (Throwable ex) {
				// Only an Error at a frame's entry gets here (runShare keeps the task's own failures): the
				// calling thread's failure, thrown below once the workers are done. No call here, nor in
				// the catch below: a call could fail in turn.
				if (this.failures[0] == null) {
					this.failures[0] = ex;
				}
				this.anyFailure = true;
			}
			// Whatever happened on this thread, the workers may still be reading the descriptor: the
			// lock must not pass to the next fork before they are done.
			if (forked) {
				try {
					awaitWorkers(published);
				}
				catch (Throwable ex) {
					// Out of stack (or memory) in the wait itself, in spite of probeStack: wait with volatile
					// reads, waking parked workers again on the way, since one parked before it was woken
					// would never arrive. No onSpinWait(): in the interpreter it is a call too.
					if (this.failures[0] == null) {
						this.failures[0] = ex;
					}
					this.anyFailure = true;
					while (this.pending.value != 0) {
						try {
							wakeParkedWorkers();
						}
						catch (Throwable again) {
							// Still out of stack: try again.
						}
					}
				}
			}
			this.threadTask = null;
			this.prongTask = null;
			this.sliceTask = null;
			if (this.anyFailure) {
				throwUnchecked(collectFailure());
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
	 * Takes the current fork's failures (see "Failures" in the class comment) and clears them.
	 * @return what the fork throws
	 */
	private Throwable collectFailure() {
		this.anyFailure = false;
		return ForkFailure.ofFork(this.failures, this.name);
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

	private void awaitWorkers(long published) {
		PaddedLong remaining = this.pending;
		long start = System.nanoTime();
		long current = this.generation.getVolatile();
		int spins = 0;
		boolean missing = false;
		while (remaining.getVolatile() != 0) {
			// Checked on entry too: a caller whose share took longer than PICKUP_NANOS knows at once
			// whether a worker is missing, and a worker that shares its CPU runs only once it yields.
			if (spins++ % SPINS_PER_CLOCK_READ == 0) {
				long now = System.nanoTime();
				// The pick-up first: a caller preempted past both deadlines still finds a worker that
				// shares its CPU late, or that worker would never move off it. An oversubscribed pool has no
				// pure spin and never claims: its workers wait for a CPU, which yielding gives them.
				if (this.pureSpinNanos > 0 && now - published > PICKUP_NANOS && !allPickedUp(current)) {
					missing = true;
					break;
				}
				if (now - start > this.pureSpinNanos) {
					break;
				}
			}
			Thread.onSpinWait();
		}
		if (missing) {
			// Written before the late worker can see its mark or its claimed share, which publish it.
			this.callerCpu = lateForkCpu();
			if (this.kind == KIND_THREADS) {
				markLate(current);
			}
			else if (runMissingShares(current)) {
				// A worker queued behind this thread on its CPU runs now, and finds its share taken.
				Thread.yield();
			}
		}
		long spinUntil = start + SPIN_NANOS;
		while (remaining.getVolatile() != 0) {
			if (System.nanoTime() - spinUntil < 0) {
				// Yield rather than spin: if a worker shares this core it gets it now, not 50 us later.
				Thread.yield();
				continue;
			}
			this.waitingCaller = Thread.currentThread();
			boolean interrupted = false;
			while (remaining.getVolatile() != 0) {
				LockSupport.park(this);
				// park() returns at once while the interrupt flag is set: clear it so the wait
				// sleeps instead of spinning, and restore it for the caller afterwards.
				interrupted |= Thread.interrupted();
			}
			this.waitingCaller = null;
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			return;
		}
	}

	/** Whether every worker has picked up generation {@code current}. */
	private boolean allPickedUp(long current) {
		HostWorker[] all = this.workers;
		for (int t = 1; t < all.length; t++) {
			if (all[t].picked.getVolatile() != current) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Runs, on the caller, the share of every worker that has not picked up generation
	 * {@code current}, claiming each with a CAS on the worker's {@code picked} so that exactly one
	 * thread runs it. A worker that arrives later finds its share claimed and skips it. Not for
	 * {@code forThreads}, whose task must run once on every thread.
	 * @return whether the caller ran any share
	 */
	private boolean runMissingShares(long current) {
		HostWorker[] all = this.workers;
		boolean ran = false;
		for (int t = 1; t < all.length; t++) {
			PaddedLong claim = all[t].picked;
			long before = claim.getVolatile();
			if (before != current && claim.compareAndSet(before, current)) {
				ran = true;
				try {
					runShare(t);
				}
				finally {
					this.pending.addAndGet(-1);
				}
			}
		}
		return ran;
	}

	/** Marks late every worker that has not picked up {@code forThreads} generation {@code current}. */
	private void markLate(long current) {
		HostWorker[] all = this.workers;
		for (int t = 1; t < all.length; t++) {
			if (all[t].picked.getVolatile() != current) {
				all[t].lateIn.setRelease(current);
			}
		}
	}

	/** Counts a fork with a late worker and gives the caller's CPU, or -1; never throws. */
	private int lateForkCpu() {
		CpuEscape cpus = this.escape;
		if (cpus == null) {
			return -1;
		}
		try {
			cpus.lateFork();
			return cpus.currentCpu();
		}
		catch (Throwable ex) {
			// Out of memory or stack in the count or the native call: the move is a hint, the fork is not.
			return -1;
		}
	}

	/**
	 * Called on a worker that was late for a fork: moves it off the caller's CPU if it is there; where
	 * it cannot tell or cannot move, yields once (see "Waiting" in the class comment). Never throws: a
	 * worker that died here would leave every later fork waiting for it.
	 */
	void afterLate() {
		try {
			CpuEscape cpus = this.escape;
			int cpu = (cpus != null) ? cpus.currentCpu() : -1;
			int callers = this.callerCpu;
			if (cpu >= 0 && callers >= 0 && (cpu != callers || cpus.leave(cpu))) {
				// Moved, or on a CPU of its own already: nobody waits for this one.
				return;
			}
			Thread.yield();
		}
		catch (Throwable ex) {
			// Out of memory or stack in the native call (a task may have filled the heap): stay and serve.
		}
	}

	/** Runs thread {@code thread}'s share of the current fork; never throws. */
	void runShare(int thread) {
		int colocation = this.colocationOfThread[thread];
		try {
			switch (this.kind) {
				case KIND_THREADS -> this.threadTask.run(thread, colocation);
				case KIND_STATIC -> {
					int first = sliceStart(thread);
					int end = sliceStart(thread + 1);
					ProngTask task = this.prongTask;
					for (int i = first; i < end; i++) {
						task.run(i, thread, colocation);
					}
				}
				case KIND_DYNAMIC -> {
					ProngTask task = this.prongTask;
					int count = this.n;
					PaddedLong next = this.cursor;
					for (long i = next.getAndAdd(1); i < count; i = next.getAndAdd(1)) {
						task.run((int) i, thread, colocation);
					}
				}
				case KIND_SLICES -> {
					int first = sliceStart(thread);
					int end = sliceStart(thread + 1);
					if (end > first) {
						this.sliceTask.run(first, end - first, thread, colocation);
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

	/** Called by a worker after its share: the last one wakes the caller if it parked. */
	void shareDone() {
		if (this.pending.addAndGet(-1) == 0) {
			Thread caller = this.waitingCaller;
			if (caller != null) {
				LockSupport.unpark(caller);
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
	 * Sets what idle workers do: spin ({@link Mood#GRINDING}) or sleep ({@link Mood#PARKED}).
	 * @param newMood the mood
	 */
	public void setMood(Mood newMood) {
		this.mood = newMood;
		// Parked workers only notice a mood change when woken; grinding ones poll it.
		for (int t = 1; t < this.workers.length; t++) {
			LockSupport.unpark(this.workers[t]);
		}
	}

	/**
	 * Refuses new forks and tells the workers to exit once the fork in progress, if any, is done;
	 * never waits. Later forks fail with {@link UformException.Status#FREED}. Calling it again does
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
	 * {@link UformException.Status#FREED}. Calling it again does nothing more.
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
