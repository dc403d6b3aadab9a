package io.uform;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The device part of a drain with a deadline: waits for the work queued on a VRAM executor's streams
 * up to the moment the wait begins, and not for work queued after it.
 *
 * <p>A {@code cuStreamSynchronize} cannot be given a deadline, so the wait polls. Polling the streams
 * themselves ({@code cuStreamQuery}) would see everything queued, also what other code queues while
 * the drain waits: on a borrowed stream that another library keeps feeding, the stream is never idle
 * and the drain would always time out. So an event is recorded on every stream first (all of them
 * before the first poll, so that the wait on one stream does not let more work in on the next), and
 * the events are polled ({@code cuEventQuery}), each done once the work queued before it is.
 *
 * <p>Every event made is destroyed before {@link #awaitAll} returns or throws (done, deadline, a
 * failing driver call, an interrupt); a failure to destroy one is thrown, or suppressed into the
 * failure that ended the wait. An executor released meanwhile destroys them itself (see
 * {@link DeviceLane#forget(long)}).
 */
final class StreamMarks {

	/** The first pause between two looks at the events: short, so a short kernel costs little latency. */
	private static final long FIRST_POLL_PAUSE = TimeUnit.MICROSECONDS.toNanos(50);

	/** The longest pause between two looks: a long kernel costs little CPU. */
	private static final long MAX_POLL_PAUSE = TimeUnit.MILLISECONDS.toNanos(1);

	private StreamMarks() {
	}

	/**
	 * Marks every lane's stream, then waits until each mark is reached or the deadline passes: looks
	 * at once, then with pauses that grow from 50 us to 1 ms.
	 * @param lanes the executor's lanes
	 * @param deadline {@link System#nanoTime()} to give up at
	 * @return {@code true} when the work queued on every stream before the wait began is done,
	 *         {@code false} at the deadline
	 * @throws InterruptedException when interrupted while waiting
	 * @throws UformException {@code DEVICE_ERROR} when a driver call fails (a kernel that faulted
	 *         surfaces in the event's query), {@code FREED} when the executor was freed meanwhile
	 */
	static boolean awaitAll(List<DeviceLane> lanes, long deadline) throws InterruptedException {
		long[] marks = new long[lanes.size()];
		int made = 0;
		Throwable ended = null;
		try {
			for (; made < marks.length; made++) {
				marks[made] = lanes.get(made).mark();
			}
			return awaitReached(lanes, marks, deadline);
		}
		catch (RuntimeException | Error | InterruptedException ex) {
			ended = ex;
			throw ex;
		}
		finally {
			forget(lanes, marks, made, ended);
		}
	}

	private static boolean awaitReached(List<DeviceLane> lanes, long[] marks, long deadline)
			throws InterruptedException {
		boolean[] reached = new boolean[marks.length];
		int left = marks.length;
		long pause = FIRST_POLL_PAUSE;
		while (true) {
			for (int i = 0; i < marks.length; i++) {
				if (!reached[i] && lanes.get(i).reached(marks[i])) {
					reached[i] = true;
					left--;
				}
			}
			if (left == 0) {
				return true;
			}
			long rest = deadline - System.nanoTime();
			if (rest <= 0) {
				return false;
			}
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			LockSupport.parkNanos(Math.min(pause, rest));
			pause = Math.min(pause * 2, MAX_POLL_PAUSE);
		}
	}

	/**
	 * Destroys the first {@code made} marks, every one even if some fail.
	 * @param ended what ended the wait, to suppress destroy failures into; {@code null} when it returned
	 */
	private static void forget(List<DeviceLane> lanes, long[] marks, int made, Throwable ended) {
		Throwable first = ended;
		for (int i = 0; i < made; i++) {
			try {
				lanes.get(i).forget(marks[i]);
			}
			catch (RuntimeException | Error ex) {
				if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
		}
		if (ended == null && first != null) {
			// The wait itself went well: the failure to destroy is the news.
			if (first instanceof Error error) {
				throw error;
			}
			throw (RuntimeException) first;
		}
	}
}
