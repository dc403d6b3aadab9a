package io.uform.host;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The end of a {@link HostPool} fork: how its caller waits for the workers' shares, and what it does
 * about a worker that is late.
 *
 * <h2>Shared state and why it is safe</h2>
 * <ul>
 * <li>{@code pending} ({@link PaddedLong}): set to {@code threads - 1} by the caller
 * ({@link #expect}) before it publishes the fork; decremented atomically by each worker after its
 * share ({@link #shareDone}), or by the caller for a share it ran itself. The worker that takes it to
 * zero unparks the caller if the caller registered in {@code waitingCaller}.</li>
 * <li>{@code waitingCaller} (volatile): the caller's half of the Dekker handshake that makes parking
 * safe (the workers' half, {@code HostWorker.parked}, is in {@link HostPool}'s table). The caller
 * first writes it, then re-reads {@code pending}; the last worker first counts {@code pending} down,
 * then reads it. With both volatile (sequentially consistent), at least one side sees the other, so
 * no wake-up is lost; every park sits in a loop that re-checks {@code pending}.</li>
 * <li>{@code HostWorker.picked} ({@link PaddedLong}, one per worker): the last generation whose share
 * is taken, claimed with a CAS by the worker when it picks the fork up, or by the caller when it
 * runs a missing worker's share itself ({@link #runMissingShares}). Exactly one CAS per worker and
 * fork succeeds, so exactly one thread runs each share and counts {@code pending} down for it.</li>
 * <li>{@code HostWorker.lateIn} ({@link PaddedLong}, one per worker, release write, single writer the
 * caller): the last {@code forThreads} generation that worker had not picked up by the pick-up
 * deadline. Read by the worker after its share.</li>
 * <li>{@code HostWorker.arrived} ({@link PaddedLong}, opaque, single writer the worker): the last
 * generation the worker has seen, written as it sees it. Read by the caller only after it ran that
 * worker's share, against {@code HostWorker.claimedBy} and {@code claimedLastFork} (plain, the caller's
 * alone under the pool's fork lock). A hint: a stale value costs one claim the worker did not need, or
 * one pick-up deadline waited out; the claim itself is still the CAS on {@code picked}.</li>
 * <li>{@code callerCpu} (plain): the caller's CPU, written on its late-worker path before it marks a
 * worker late ({@code lateIn}) or claims its share ({@code picked}); that worker reads it after it
 * has seen the mark or the claim, which publishes it. A hint: a stale value costs at most one
 * needless or missed move.</li>
 * <li>{@code workers}, {@code fork}, {@code escape}, {@code pureSpinNanos}: final, set before any
 * worker starts.</li>
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
 * that plus both spins ({@code benchmarks/results/2026-11-30-host-pool-waiting.md}). A worker whose
 * share was claimed and that has not been seen since is still away, so the next forks claim its share
 * at once instead of waiting out the deadline in each; once it has seen a fork, it is waited for again.
 * Not in {@code forThreads},
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
 * once; on a CPU of its own it does neither (a yield there would only delay its next pick-up). After
 * running a late worker's share the caller yields once too, so a worker queued behind it sees that at
 * once, rather than at the end of the caller's time slice. A pool with more threads than processors
 * never moves: there is no free CPU to move to.
 * <p>
 * A share the caller ran for a worker sees that worker's thread index and colocation, as its worker
 * would; only the thread differs (and a fork nested in it runs inline as the caller's, thread 0).
 */
final class ForkWait {

	/**
	 * How long a waiting thread spins with {@link Thread#onSpinWait()} before it starts yielding its
	 * core, when each thread can have a core of its own: 5 microseconds, several times a fork's
	 * round trip between two cores.
	 */
	static final long PURE_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(5);

	/** Spins between two looks at the clock (a clock read costs about as much as 64 spins). */
	static final int SPINS_PER_CLOCK_READ = 64;

	/**
	 * How long a waiting thread stays awake (spinning, then yielding) before it parks: 50
	 * microseconds, so back-to-back forks find the workers awake while an idle pool sleeps.
	 */
	static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

	/**
	 * How long after publishing a fork the caller still expects a spinning worker to pick it up: 4
	 * microseconds, many cross-core round trips, and under {@link #PURE_SPIN_NANOS} so that an empty
	 * fork still claims before its caller yields. A worker that has not picked the fork up by then is
	 * not running: parked, preempted, or queued behind the caller on the caller's own CPU. Not 2: a
	 * spinning worker on a virtual CPU missed that often enough to put empty {@code forSlices}' p99 at
	 * 6x (benchmarks/results/2026-12-02-pickup-deadline.md).
	 */
	static final long PICKUP_NANOS = TimeUnit.MICROSECONDS.toNanos(4);

	private final PaddedLong pending = new PaddedLong(0);

	/** The pool's workers, index 0 unused (thread 0 is the caller). */
	private final HostWorker[] workers;

	private final ForkDescriptor<?, ?, ?> fork;

	/** Moves a late worker off the caller's CPU; {@code null} where the pool never moves one. */
	private final CpuEscape escape;

	/** How long waits spin before yielding: {@link #PURE_SPIN_NANOS}, or none when oversubscribed. */
	final long pureSpinNanos;

	private volatile Thread waitingCaller;

	/** Whether the caller ran a missing worker's share in the last fork; the caller's alone, under the fork lock. */
	private boolean claimedLastFork;

	/** The caller's CPU when it last found a worker late; see the class comment. */
	private int callerCpu = -1;

	/**
	 * @param workers the pool's workers, filled in before any fork
	 * @param fork the pool's descriptor, whose shares the caller runs for late workers
	 * @param oversubscribed whether the pool has more threads than the JVM has processors
	 * @param escape how a late worker leaves the caller's CPU
	 */
	ForkWait(HostWorker[] workers, ForkDescriptor<?, ?, ?> fork, boolean oversubscribed, CpuEscape escape) {
		this.workers = workers;
		this.fork = fork;
		this.pureSpinNanos = oversubscribed ? 0 : PURE_SPIN_NANOS;
		this.escape = oversubscribed ? null : escape;
	}

	/** Sets how many workers' shares the next fork waits for; before the fork is published. */
	void expect(int count) {
		this.pending.setRelease(count);
	}

	/** Whether every share is done; a volatile read and no call, for a caller out of stack. */
	boolean allDone() {
		return this.pending.value == 0;
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
	 * Waits, on the caller, until every worker's share of generation {@code current} is done, backing
	 * off as the class comment says and running the shares of workers that are late.
	 * @param published when the fork was published ({@link System#nanoTime()})
	 * @param current the fork's generation
	 */
	void awaitWorkers(long published, long current) {
		PaddedLong remaining = this.pending;
		long start = System.nanoTime();
		int spins = 0;
		boolean missing = false;
		if (this.claimedLastFork) {
			// Claimed at once: waiting PICKUP_NANOS for a worker already known to be away would add that
			// wait to every fork of its absence.
			this.claimedLastFork = false;
			if (remaining.getVolatile() != 0 && this.fork.kind != ForkDescriptor.KIND_THREADS
					&& runSharesOfAway(current)) {
				this.claimedLastFork = true;
			}
		}
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
			if (this.fork.kind == ForkDescriptor.KIND_THREADS) {
				markLate(current);
			}
			else if (runMissingShares(current)) {
				this.claimedLastFork = true;
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
			if (claimAndRun(t, current)) {
				all[t].claimedBy = current;
				ran = true;
			}
		}
		return ran;
	}

	/**
	 * Runs, on the caller, the share of every worker whose share it claimed in the last fork and that
	 * has not come back since (its {@code arrived} is behind that claim): it is still not running, so
	 * waiting {@link #PICKUP_NANOS} for it would add that wait to every fork of its absence. A worker
	 * that has come back is waited for as usual, so a claim never makes the next one.
	 * @return whether the caller ran any share
	 */
	private boolean runSharesOfAway(long current) {
		HostWorker[] all = this.workers;
		boolean ran = false;
		for (int t = 1; t < all.length; t++) {
			HostWorker worker = all[t];
			if (worker.arrived.getOpaque() < worker.claimedBy) {
				ran |= claimAndRun(t, current);
			}
		}
		return ran;
	}

	/** Claims worker {@code t}'s share of generation {@code current} and runs it, unless it is taken. */
	private boolean claimAndRun(int t, long current) {
		PaddedLong claim = this.workers[t].picked;
		long before = claim.getVolatile();
		if (before == current || !claim.compareAndSet(before, current)) {
			return false;
		}
		try {
			this.fork.runShare(t);
		}
		finally {
			this.pending.addAndGet(-1);
		}
		return true;
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
}
