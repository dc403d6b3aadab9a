package io.uform.gpu;

import java.util.TreeSet;

/**
 * When the work on one stream of {@link BusyStreams} completes, as a GPU stream orders it: in queue
 * order, so a piece of work counts as done only once everything queued before it is done too. Copies
 * move their bytes when they are queued and so take no part; what stays running is work queued with
 * {@link #start()}, which stands for a kernel another library queued on the stream and runs until
 * {@link Work#finish()}. That is enough to tell apart the three questions a driver answers:
 * {@link #idle()} ({@code cuStreamQuery}: is anything at all still running, including work queued a
 * moment ago), {@link #reached(long)} for a {@link #position()} taken earlier ({@code cuEventQuery}
 * of an event recorded then: is the work queued before that moment done) and
 * {@link #awaitQueuedSoFar()} ({@code cuStreamSynchronize}).
 *
 * <p>Thread-safe; every method holds this object's monitor, and calls nothing else while it does.
 */
final class SimulatedStream {

	/** Positions handed out so far: each {@link #start()} takes the next. */
	private long queued;

	/** Positions of the work started and not yet finished. */
	private final TreeSet<Long> running = new TreeSet<>();

	/**
	 * Queues a piece of work that runs until it is finished.
	 * @return the work, to finish
	 */
	synchronized Work start() {
		this.queued++;
		this.running.add(this.queued);
		return new Work(this, this.queued);
	}

	/**
	 * Where the queue stands now: what an event recorded at this moment waits for.
	 * @return the position of the last work queued so far
	 */
	synchronized long position() {
		return this.queued;
	}

	/**
	 * Whether nothing queued on the stream is still running.
	 * @return {@code true} when idle
	 */
	synchronized boolean idle() {
		return this.running.isEmpty();
	}

	/**
	 * Whether the work queued up to a position is done, whatever was queued after it.
	 * @param position from {@link #position()}
	 * @return {@code true} once everything at or before it finished
	 */
	synchronized boolean reached(long position) {
		return this.running.isEmpty() || this.running.first() > position;
	}

	/**
	 * Waits until the work queued before this call is done, not for work queued meanwhile, as
	 * {@code cuStreamSynchronize} does. Not interruptible, as the driver call is not; an interrupt
	 * that arrives meanwhile is kept for the caller.
	 */
	synchronized void awaitQueuedSoFar() {
		long position = this.queued;
		boolean interrupted = false;
		while (!reached(position)) {
			try {
				wait();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private synchronized void finish(long position) {
		if (this.running.remove(position)) {
			notifyAll();
		}
	}

	/** One piece of work that runs on the stream until {@link #finish()}. */
	static final class Work {

		private final SimulatedStream stream;

		private final long position;

		Work(SimulatedStream stream, long position) {
			this.stream = stream;
			this.position = position;
		}

		/** Ends the work; the stream reaches what was queued after it once everything before is done too. Idempotent. */
		void finish() {
			this.stream.finish(this.position);
		}
	}
}
