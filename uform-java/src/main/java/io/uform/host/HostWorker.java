package io.uform.host;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * One worker thread of a {@link HostPool}: waits for a generation, runs its share, reports done. Its
 * fields are part of the pool's shared state: {@code parked} is in {@link HostPool}'s table,
 * {@code picked}, {@code arrived}, {@code claimedBy} and {@code lateIn} in {@link ForkWait}'s, which
 * say who writes each and why that is safe.
 */
final class HostWorker extends Thread {

	final HostPool<?, ?, ?> pool;

	final int index;

	private final ForkDescriptor<?, ?, ?> fork;

	private final ForkWait wait;

	private final IntConsumer start;

	private final CountDownLatch started;

	volatile boolean parked;

	/** The last generation whose share is taken, by this worker or by the caller for it. */
	final PaddedLong picked = new PaddedLong(0);

	/**
	 * The last generation this worker has seen; its own line, read by the caller only after it claimed
	 * this worker's share.
	 */
	final PaddedLong arrived = new PaddedLong(0);

	/**
	 * The last generation whose share the caller claimed for this worker; the caller's alone, under the
	 * fork lock.
	 */
	long claimedBy;

	/** The last {@code forThreads} generation the caller found this worker late for. */
	final PaddedLong lateIn = new PaddedLong(0);

	HostWorker(HostPool<?, ?, ?> pool, int index, IntConsumer start, CountDownLatch started) {
		// Not inheriting the creator's InheritableThreadLocals: an executor made inside a request would
		// otherwise run every later task with that request's security context, MDC or locale.
		super(null, null, "uform-" + pool.name + "-worker-" + index, 0, false);
		this.pool = pool;
		this.index = index;
		this.fork = pool.fork;
		this.wait = pool.wait;
		this.start = start;
		this.started = started;
		setDaemon(true);
	}

	@Override
	public void run() {
		try {
			this.start.accept(this.index);
		}
		catch (Throwable ex) {
			// The hook reports its own failures (pinning is best effort); the worker still serves,
			// even after an Error: a worker that died here would leave every fork waiting for it.
		}
		finally {
			this.started.countDown();
		}
		HostPool<?, ?, ?> owner = this.pool;
		long seen = 0;
		while (true) {
			long next = awaitGeneration(owner, seen);
			if (next == seen) {
				return;
			}
			seen = next;
			this.arrived.setOpaque(next);
			PaddedLong claim = this.picked;
			long before = claim.getVolatile();
			if (before >= next || !claim.compareAndSet(before, next)) {
				// The caller found this worker missing and ran its share itself.
				this.wait.afterLate();
				continue;
			}
			// An interrupt left by the previous task is not this task's (see the pool's class comment).
			Thread.interrupted();
			try {
				this.fork.runShare(this.index);
			}
			finally {
				this.wait.shareDone();
			}
			if (this.lateIn.getVolatile() == next) {
				this.wait.afterLate();
			}
		}
	}

	/** Returns the new generation, or {@code seen} when the pool is stopping. */
	private long awaitGeneration(HostPool<?, ?, ?> owner, long seen) {
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
			if (owner.grinding) {
				Thread.onSpinWait();
				// Back from grinding, the backoff starts afresh.
				spins = 0;
				spinUntil = 0;
				continue;
			}
			if (++spins % ForkWait.SPINS_PER_CLOCK_READ != 0) {
				Thread.onSpinWait();
				continue;
			}
			long now = System.nanoTime();
			if (spinUntil == 0) {
				// The first clock read starts the budget: ~64 spins late, which is noise.
				spinUntil = now + ForkWait.SPIN_NANOS;
				pureUntil = now + this.wait.pureSpinNanos;
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
			if (generation.getVolatile() == seen && !owner.stopping && !owner.grinding) {
				LockSupport.park(owner);
			}
			this.parked = false;
		}
	}
}
