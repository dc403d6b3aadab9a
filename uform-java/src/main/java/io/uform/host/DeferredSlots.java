package io.uform.host;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.uform.failure.FailureFactory;

/**
 * The admission gate of one executor's {@link DeferredCalls}: at most {@code limit} calls in flight
 * (queued or running), and submitters that find them all taken wait their turn, or are refused.
 *
 * <h2>Invariants</h2>
 * <ul>
 * <li>{@code slots} (fair {@link Semaphore}, {@code limit} permits): a submitter takes one
 * ({@link #acquire}) before it enqueues; the runner gives it back ({@link #release}) when the call has
 * finished (or was skipped), and a submitter whose call could not be queued gives it back at once. So
 * queued + running never exceeds {@code limit}, and waiting submitters are admitted in arrival
 * order.</li>
 * <li>Once the calls refuse new ones, the permits are flooded ({@link #openForRefusal}): every
 * waiting and later submitter gets one at once, finds the calls closed under their lock and gives it
 * back. From then on the permits no longer count calls; {@link DeferredCalls#inFlight()} counts the
 * queue instead.</li>
 * <li>A thread that cannot wait for a slot never does (see {@link DeferredCalls}): from it, a full
 * limit is an immediate rejection.</li>
 * </ul>
 */
final class DeferredSlots {

	private final String name;

	private final int limit;

	private final Semaphore slots;

	private final FailureFactory errors;

	DeferredSlots(String name, int limit, FailureFactory errors) {
		this.name = name;
		this.errors = errors;
		this.limit = limit;
		this.slots = new Semaphore(limit, true);
	}

	int limit() {
		return this.limit;
	}

	/**
	 * Takes a slot, waiting up to {@code maxWait}; every refusal counts as rejected in {@code counts}.
	 * @param maxWait how long to wait; {@code null} as long as it takes, {@link Duration#ZERO} not at all
	 * @param onRunner whether the submitter is the runner (for the refusal's wording)
	 * @param inTask whether the submitter is inside a task of the executor (for the refusal's wording)
	 * @param counts where a refusal is counted
	 * @throws RuntimeException {@code TIMEOUT} when no slot freed in time;
	 *         {@code INTERRUPTED} when interrupted while waiting (the flag stays set)
	 */
	void acquire(Duration maxWait, boolean onRunner, boolean inTask, DeferredCounts counts) {
		boolean acquired;
		try {
			// A free slot is taken without waiting, whatever the interrupt flag says: INTERRUPTED is for a
			// thread interrupted while it waits, and one that need not wait has nothing to be interrupted in.
			acquired = tryAcquireNow();
			if (!acquired && maxWait == null) {
				this.slots.acquire();
				acquired = true;
			}
			else if (!acquired && !maxWait.isZero()) {
				acquired = this.slots.tryAcquire(saturatedNanos(maxWait), TimeUnit.NANOSECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			counts.reject();
			throw this.errors.interrupted("Executor '" + this.name + "': the thread was interrupted while "
					+ "it waited for a deferred-call slot, so the call was not submitted; its interrupt flag is still set", ex);
		}
		if (!acquired) {
			counts.reject();
			String why;
			if (onRunner) {
				why = "a deferred call deferred another while all " + this.limit + " slots were taken; it cannot wait, "
						+ "since the slots free only as calls (itself included) finish. Raise deferredLimit or run the inner "
						+ "work directly";
			}
			else if (inTask) {
				why = "it came from inside one of its own tasks while all " + this.limit + " slots were taken; a task "
						+ "cannot wait for a slot, since the call holding one may be waiting for this very fork. Raise "
						+ "deferredLimit, or defer after the fork returns";
			}
			else {
				why = "all " + this.limit + " deferred-call slots stayed taken for " + maxWait
						+ "; raise deferredLimit, wait longer, or call drain() first";
			}
			throw this.errors.timeout("Executor '" + this.name + "' rejected a deferred call: " + why);
		}
	}

	/** Gives a slot back: its call finished, was skipped, or could not be queued. */
	void release() {
		this.slots.release();
	}

	/**
	 * Wakes every thread waiting for a slot, once the calls refuse new ones: each takes a permit, finds
	 * the calls closed, gives the permit back and is refused. Without this one waits until a call
	 * finishes, for ever behind a call that never does. As many as can be: the calls still in flight
	 * give theirs back later, and the total never exceeds the limit plus this.
	 */
	void openForRefusal() {
		this.slots.release(Integer.MAX_VALUE - this.limit);
	}

	/** Slots free now; counts calls only until {@link #openForRefusal}. */
	int available() {
		return this.slots.availablePermits();
	}

	/**
	 * Takes a slot if one is free now, in arrival order (the timed form; the untimed one barges past
	 * waiting threads), with the interrupt flag set aside, since the timed form throws for a thread
	 * whose flag is set even when a slot is free. The flag is as it was afterwards.
	 */
	private boolean tryAcquireNow() {
		boolean interrupted = Thread.interrupted();
		try {
			return this.slots.tryAcquire(0, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			// Cannot happen with the flag cleared; a zero wait has nothing to be interrupted in.
			interrupted = true;
			return false;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** A wait in nanoseconds, at least zero, and no overflow for a wait of centuries. */
	private static long saturatedNanos(Duration wait) {
		try {
			return Math.max(0, wait.toNanos());
		}
		catch (ArithmeticException ex) {
			return (wait.isNegative()) ? 0 : Long.MAX_VALUE;
		}
	}
}
