package io.uform.host;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How an executor's deferred calls ended, and how long they waited and ran: the counters its
 * statistics and metrics read. The invariants of {@link DeferredCalls} ("Accounting", "Timing") say
 * who writes each: the outcome counters are updated atomically by whichever thread settles a call,
 * the timings by the runner alone, with release stores and the total before the count.
 */
public final class DeferredCounts {

	private final AtomicLong completed = new AtomicLong();

	private final AtomicLong failed = new AtomicLong();

	private final AtomicLong cancelled = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	private final AtomicLong waitCount = new AtomicLong();

	private final AtomicLong waitNanos = new AtomicLong();

	private final AtomicLong runCount = new AtomicLong();

	private final AtomicLong runNanos = new AtomicLong();

	DeferredCounts() {
	}

	/** A submission was refused. */
	void reject() {
		this.rejected.incrementAndGet();
	}

	/** An accepted call ended as {@code outcome}; allocates nothing. */
	void settle(DeferredCalls.Outcome outcome) {
		// No switch: a switch on an enum loads a class of its own the first time, and loading allocates.
		AtomicLong counter = (outcome == DeferredCalls.Outcome.COMPLETED) ? this.completed
				: (outcome == DeferredCalls.Outcome.FAILED) ? this.failed : this.cancelled;
		counter.incrementAndGet();
	}

	/** On the runner: a call started {@code nanos} after it was accepted. */
	void recordStart(long nanos) {
		this.waitNanos.lazySet(this.waitNanos.get() + nanos);
		this.waitCount.lazySet(this.waitCount.get() + 1);
	}

	/** On the runner: a call returned or threw {@code nanos} after it started. */
	void recordRun(long nanos) {
		this.runNanos.lazySet(this.runNanos.get() + nanos);
		this.runCount.lazySet(this.runCount.get() + 1);
	}

	/**
	 * Calls that returned normally.
	 * @return a count
	 */
	public long completed() {
		return this.completed.get();
	}

	/**
	 * Calls that threw.
	 * @return a count
	 */
	public long failed() {
		return this.failed.get();
	}

	/**
	 * Accepted calls that never ran: their future was done (cancelled, or completed by its holder)
	 * before they started, or a free gave up on them.
	 * @return a count
	 */
	public long cancelled() {
		return this.cancelled.get();
	}

	/**
	 * Submissions refused: no slot in time, interrupted while waiting, or after new calls were refused
	 * or the executor freed.
	 * @return a count
	 */
	public long rejected() {
		return this.rejected.get();
	}

	/**
	 * Calls that started running (whatever their outcome); the count of {@link #waitNanos()}.
	 * @return a count
	 */
	public long waitCount() {
		return this.waitCount.get();
	}

	/**
	 * Time the started calls spent between being accepted (holding a slot, queued) and starting, summed.
	 * @return nanoseconds
	 */
	public long waitNanos() {
		return this.waitNanos.get();
	}

	/**
	 * Calls that returned or threw; the count of {@link #runNanos()}.
	 * @return a count
	 */
	public long runCount() {
		return this.runCount.get();
	}

	/**
	 * Time those calls ran, from start to return or throw, summed.
	 * @return nanoseconds
	 */
	public long runNanos() {
		return this.runNanos.get();
	}
}
