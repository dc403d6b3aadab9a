package io.uform.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
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
 * <li>{@code failure} (volatile, CAS): the first throwable of a fork; later ones are added to it as
 * suppressed ({@link Throwable#addSuppressed} is synchronised). Read and cleared by the caller
 * after {@code pending} is zero.</li>
 * <li>{@code Worker.parked} (volatile, one per worker) and {@code waitingCaller} (volatile): the
 * Dekker handshake that makes parking safe. A sleeper first writes its flag, then re-reads the
 * condition it waits for; a waker first changes the condition, then reads the flag. With both
 * volatile (sequentially consistent), at least one side sees the other, so no wake-up is lost;
 * a surplus {@link LockSupport#unpark} only leaves a permit that the next park consumes, and every
 * park sits in a loop that re-checks its condition.</li>
 * <li>{@code mood}, {@code stopping} (volatile): written by {@code drain}/{@code stop}, read by
 * workers between spins.</li>
 * <li>{@code forks} (a plain counter read with opaque mode): single writer under {@code forkLock};
 * readers only need a recent value for statistics.</li>
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
 * for the whole budget, so each fork would cost two budgets (measured: 110 us per empty fork with
 * two threads on one core, where a thread pool takes 12 us).</li>
 * <li>Yielding at once is not right either: when caller and worker both yield early, Linux tends
 * to put them on one core (measured: the two-core p90 rose from 0.6 us to 8 us). So the pure spin
 * lasts {@link #PURE_SPIN_NANOS} where each thread can have a core, and only
 * {@value #SPINS_PER_CLOCK_READ} rounds (about 2 us) where the pool has more threads than the JVM
 * has processors ({@link Runtime#availableProcessors()}: affinity mask and container quota).</li>
 * </ul>
 * In {@link Mood#GRINDING} workers spin with {@link Thread#onSpinWait()} until the mood changes,
 * which only pays when each has its own core.
 *
 * <h2>Forks inside tasks</h2>
 * A fork started from inside a task of the same pool (on a worker, or on the caller while it holds
 * the fork) cannot wait for threads that are busy running the outer fork. It therefore runs inline:
 * the current thread runs every index itself, and every prong sees the current thread's own index
 * and colocation, so per-thread state indexed by thread stays race-free. A nested
 * {@code forThreads} therefore runs its task once, for the current thread.
 */
public final class HostPool {

	/**
	 * How long a waiting thread spins with {@link Thread#onSpinWait()} before it starts yielding its
	 * core, when each thread can have a core of its own: 5 microseconds, several times a fork's
	 * round trip between two cores.
	 */
	public static final long PURE_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(5);

	/** Spins between two looks at the clock (a clock read costs about as much as 64 spins). */
	private static final int SPINS_PER_CLOCK_READ = 64;

	/**
	 * How long a waiting thread stays awake (spinning, then yielding) before it parks: 50
	 * microseconds, so back-to-back forks find the workers awake while an idle pool sleeps.
	 */
	public static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

	private static final VarHandle FAILURE;

	private static final VarHandle FORKS;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			FAILURE = lookup.findVarHandle(HostPool.class, "failure", Throwable.class);
			FORKS = lookup.findVarHandle(HostPool.class, "forks", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private static final int KIND_THREADS = 0;

	private static final int KIND_STATIC = 1;

	private static final int KIND_DYNAMIC = 2;

	private static final int KIND_SLICES = 3;

	private final String name;

	private final int threads;

	private final int[] colocationOfThread;

	private final Worker[] workers;

	private final ReentrantLock forkLock = new ReentrantLock(true);

	private final PaddedLong generation = new PaddedLong(0);

	private final PaddedLong pending = new PaddedLong(0);

	private final PaddedLong cursor = new PaddedLong(0);

	// Fork descriptor: see the class comment for who writes it and how it is published.
	private int kind;

	private int n;

	private ThreadTask threadTask;

	private ProngTask prongTask;

	private SliceTask sliceTask;

	private volatile Throwable failure;

	private volatile Thread waitingCaller;

	private volatile Mood mood = Mood.PARKED;

	private volatile boolean stopping;

	private long forks;

	/** How long waits spin before yielding: {@link #PURE_SPIN_NANOS}, or none when oversubscribed. */
	private final long pureSpinNanos;

	/**
	 * Starts the worker threads.
	 * @param name prefix of the worker threads' names, which start with {@code uform-}
	 * @param threads threads taking part in a fork, the caller included; at least 1
	 * @param colocationOfThread for every thread index, the index of its memory domain
	 * @param workerStart run first on each worker thread with its index (pinning hooks in here); a
	 *        failure there is the hook's to report, the worker starts regardless
	 */
	public HostPool(String name, int threads, int[] colocationOfThread, IntConsumer workerStart) {
		if (threads < 1 || colocationOfThread.length != threads) {
			throw new IllegalArgumentException("threads " + threads + " with " + colocationOfThread.length + " colocations");
		}
		this.name = name;
		this.threads = threads;
		this.pureSpinNanos = (threads > Runtime.getRuntime().availableProcessors()) ? 0 : PURE_SPIN_NANOS;
		this.colocationOfThread = colocationOfThread.clone();
		this.workers = new Worker[threads];
		// The constructor returns only once every worker has run its start hook, so an executor is
		// fully placed (and its pinning outcome known) by the time anyone can describe it.
		CountDownLatch started = new CountDownLatch(threads - 1);
		for (int t = 1; t < threads; t++) {
			Worker worker = new Worker(this, t, workerStart, started);
			this.workers[t] = worker;
		}
		for (int t = 1; t < threads; t++) {
			this.workers[t].start();
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
		return (current instanceof Worker worker && worker.pool == this) || this.forkLock.isHeldByCurrentThread();
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
		return (Thread.currentThread() instanceof Worker worker && worker.pool == this) ? worker.index : 0;
	}

	private void fork(int forkKind, int count, ThreadTask threads, ProngTask prongs, SliceTask slices) {
		ReentrantLock lock = this.forkLock;
		lock.lock();
		try {
			if (this.stopping) {
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
			if (this.threads > 1) {
				this.pending.setRelease(this.threads - 1);
				// The volatile write below publishes the descriptor and the two resets above.
				this.generation.setVolatile(this.generation.getVolatile() + 1);
				wakeParkedWorkers();
			}
			runShare(0);
			if (this.threads > 1) {
				awaitWorkers();
			}
			this.threadTask = null;
			this.prongTask = null;
			this.sliceTask = null;
			Throwable thrown = this.failure;
			if (thrown != null) {
				this.failure = null;
				throwUnchecked(thrown);
			}
		}
		finally {
			lock.unlock();
		}
	}

	private void wakeParkedWorkers() {
		Worker[] all = this.workers;
		for (int t = 1; t < all.length; t++) {
			if (all[t].parked) {
				LockSupport.unpark(all[t]);
			}
		}
	}

	private void awaitWorkers() {
		PaddedLong remaining = this.pending;
		long start = System.nanoTime();
		int spins = 0;
		while (remaining.getVolatile() != 0) {
			Thread.onSpinWait();
			if (++spins % SPINS_PER_CLOCK_READ == 0 && System.nanoTime() - start > this.pureSpinNanos) {
				break;
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
			recordFailure(ex);
		}
	}

	private int sliceStart(int thread) {
		return (int) ((long) thread * this.n / this.threads);
	}

	private void recordFailure(Throwable ex) {
		if (!FAILURE.compareAndSet(this, null, ex)) {
			Throwable first = this.failure;
			if (first != ex) {
				first.addSuppressed(ex);
			}
		}
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
	 * Waits for the fork in progress, if any, to finish.
	 */
	public void awaitIdle() {
		this.forkLock.lock();
		this.forkLock.unlock();
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
	 * Waits for the fork in progress, stops every worker and joins it. Later forks fail with
	 * {@link UformException.Status#FREED}. Calling it again does nothing.
	 * @throws InterruptedException if interrupted while joining; the workers are stopping regardless
	 */
	public void stop() throws InterruptedException {
		this.forkLock.lock();
		try {
			this.stopping = true;
		}
		finally {
			this.forkLock.unlock();
		}
		for (int t = 1; t < this.workers.length; t++) {
			LockSupport.unpark(this.workers[t]);
		}
		for (int t = 1; t < this.workers.length; t++) {
			this.workers[t].join();
		}
	}

	@SuppressWarnings("unchecked")
	private static <E extends Throwable> void throwUnchecked(Throwable ex) throws E {
		throw (E) ex;
	}

	/** One worker thread: waits for a generation, runs its share, reports done. */
	static final class Worker extends Thread {

		final HostPool pool;

		final int index;

		private final IntConsumer start;

		private final CountDownLatch started;

		volatile boolean parked;

		Worker(HostPool pool, int index, IntConsumer start, CountDownLatch started) {
			super(pool.name + "-worker-" + index);
			this.pool = pool;
			this.index = index;
			this.start = start;
			this.started = started;
			setDaemon(true);
		}

		@Override
		public void run() {
			try {
				this.start.accept(this.index);
			}
			catch (RuntimeException ex) {
				// The hook reports its own failures (pinning is best effort); the worker still serves.
			}
			finally {
				this.started.countDown();
			}
			HostPool owner = this.pool;
			long seen = 0;
			while (true) {
				long next = awaitGeneration(owner, seen);
				if (next == seen) {
					return;
				}
				seen = next;
				owner.runShare(this.index);
				owner.shareDone();
			}
		}

		/** Returns the new generation, or {@code seen} when the pool is stopping. */
		private long awaitGeneration(HostPool owner, long seen) {
			PaddedLong generation = owner.generation;
			int spins = 0;
			long spinUntil = 0;
			long pureUntil = 0;
			while (true) {
				long current = generation.getVolatile();
				if (current != seen) {
					return current;
				}
				if (owner.stopping) {
					return seen;
				}
				if (owner.mood == Mood.GRINDING) {
					Thread.onSpinWait();
					// Back from grinding, the backoff starts afresh.
					spins = 0;
					spinUntil = 0;
					continue;
				}
				if (++spins % SPINS_PER_CLOCK_READ != 0) {
					Thread.onSpinWait();
					continue;
				}
				long now = System.nanoTime();
				if (spinUntil == 0) {
					// The first clock read starts the budget: ~64 spins late, which is noise.
					spinUntil = now + SPIN_NANOS;
					pureUntil = now + owner.pureSpinNanos;
				}
				if (now - pureUntil < 0) {
					continue;
				}
				if (now - spinUntil < 0) {
					// Yield rather than spin: a caller or worker sharing this core gets it at once.
					Thread.yield();
					continue;
				}
				// A task may have interrupted its worker; the flag means nothing to the pool, and while
				// set it would make park() return at once and the idle worker spin.
				Thread.interrupted();
				this.parked = true;
				if (generation.getVolatile() == seen && !owner.stopping && owner.mood == Mood.PARKED) {
					LockSupport.park(owner);
				}
				this.parked = false;
			}
		}
	}
}
