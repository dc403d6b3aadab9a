package io.uform;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.uform.UformException.Status;

/**
 * An executor's waits for the work submitted so far: {@link Executor#drain(Mood, java.time.Duration)},
 * which then sets the mood, and {@link Executor#refuseDeferred}, the first half of a late shutdown.
 * The executor checks the arguments and that the caller is not one of its own tasks; this class waits.
 *
 * <p>Where threads meet: {@code draining} counts the drains in progress, incremented and decremented
 * by each draining thread and read by {@link Executor#statistics()} for its state; an atomic counter,
 * since several threads may drain at once.
 */
final class ExecutorDraining {

	private final ExecutorResources resources;

	private final List<DeviceLane> lanes;

	private final AtomicInteger draining = new AtomicInteger();

	ExecutorDraining(ExecutorResources resources, List<DeviceLane> lanes) {
		this.resources = resources;
		this.lanes = lanes;
	}

	/** Whether a drain is waiting now. */
	boolean inProgress() {
		return this.draining.get() > 0;
	}

	/**
	 * Waits until the deferred calls, any fork and the streams' work submitted so far are done, then
	 * idles the threads in {@code mood}.
	 * @param deadline {@link System#nanoTime()} to give up at, or {@link Long#MAX_VALUE}
	 * @return whether everything finished in time (the mood is set only then)
	 */
	boolean drain(Mood mood, long deadline) {
		this.draining.incrementAndGet();
		try {
			if (!this.resources.deferred.awaitSubmitted(deadline) || !this.resources.pool.awaitIdle(deadline)) {
				return false;
			}
			// A VRAM executor's work is not done until its streams are. Without a deadline each stream
			// is synchronised, which waits for the work queued before the call; with one, events
			// recorded now are polled, so that work queued on the streams after this point (another
			// library feeding a borrowed stream) does not hold the drain up.
			if (deadline == Long.MAX_VALUE) {
				for (DeviceLane lane : this.lanes) {
					lane.synchronize();
				}
			}
			else if (!this.lanes.isEmpty() && !StreamMarks.awaitAll(this.lanes, deadline)) {
				return false;
			}
			this.resources.pool.setGrinding(mood == Mood.GRINDING);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new UformException(Status.INTERRUPTED, "drain() of executor '" + this.resources.name
					+ "' was interrupted before the work submitted so far finished; the mood is unchanged and the "
					+ "interrupt flag is still set", ex);
		}
		finally {
			this.draining.decrementAndGet();
		}
	}

	/**
	 * Refuses new deferred calls and waits for those already submitted.
	 * @param deadline {@link System#nanoTime()} to give up at, or {@link Long#MAX_VALUE}
	 * @return whether every one submitted before finished in time
	 */
	boolean refuseDeferred(long deadline) {
		this.resources.deferred.refuseNew();
		try {
			return this.resources.deferred.awaitSubmitted(deadline, "refuseDeferred()");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new UformException(Status.INTERRUPTED, "refuseDeferred() of executor '" + this.resources.name
					+ "' was interrupted before the deferred calls submitted so far finished; new ones stay refused, "
					+ "and the interrupt flag is still set", ex);
		}
	}
}
