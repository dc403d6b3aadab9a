package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.uform.UformException.Status;
import io.uform.host.DroppedCalls;

/**
 * What {@link Executor#free()} does, and what it refuses: of many frees at once one does the work
 * and the others wait for it (the stricter period holds); a free that runs out of time gives up on
 * the queued calls, leaves the running one to return by itself, and says what it waited for; and no
 * free begins while a live {@link Mesh} borrows the executor.
 */
final class ExecutorFreeing {

	/**
	 * How long {@link Executor#free(Duration)} still waits, past its period, for threads that have nothing left
	 * to run to end: they end within microseconds, so a short period (zero included) reports unfinished
	 * work only when there was some.
	 */
	private static final Duration IDLE_THREADS_EXIT = Duration.ofSeconds(1);

	private final ExecutorResources owned;

	/**
	 * What each live {@link Mesh} borrowing this executor is ({@code job 'run-42'}), one entry per mesh,
	 * guarded by itself. Invariant between {@link #lendToMesh} (the bootstrapping thread) and
	 * {@link Executor#free()} (any thread): once {@link #freeing} is set no mesh is lent any more, and while
	 * the list is not empty {@code free} refuses, so a mesh never outlives the devices it describes.
	 */
	private final List<String> meshes = new ArrayList<>();

	/** Set, under {@link #meshes}, by the first {@code free} that got past the live-mesh check. */
	private boolean freeing;

	ExecutorFreeing(ExecutorResources owned) {
		this.owned = owned;
	}

	private String name() {
		return this.owned.name;
	}

	/**
	 * Frees the executor, as {@link Executor#free(Duration)} describes.
	 * @param period how long to wait for the work still queued or running; {@code null} waits as long
	 *        as it takes
	 */
	void free(Duration period) {
		ExecutorResources owned = this.owned;
		if (owned.deferred.isRunnerThread() || owned.pool.isInsideTask()) {
			throw new UformException(Status.INVALID_ARGUMENT, "free() was called from inside a task or deferred call of "
					+ "executor '" + name() + "', which would wait for itself; free it from outside the executor");
		}
		if (owned.deferred.isCompletingHere() && !owned.freed.get()) {
			throw owned.deferred.waitsForItself("free()");
		}
		if (owned.freed.get()) {
			return;
		}
		synchronized (this.meshes) {
			if (!this.meshes.isEmpty()) {
				throw new UformException(Status.INVALID_ARGUMENT, "Executor '" + name() + "' is borrowed by a live mesh ("
						+ String.join(", ", this.meshes) + "); free the mesh first (Mesh.free()), then the executor");
			}
			this.freeing = true;
		}
		if (!owned.releasing.compareAndSet(false, true)) {
			// Another thread frees it: wait for that rather than start a second wait of our own on the
			// same calls (a context's lifecycle frees with a period, and its destroy method may call free()
			// while that runs); but no longer than this call's own period.
			awaitRelease(owned, period);
			return;
		}
		try {
			releaseOnce(owned, period);
		}
		finally {
			owned.released.countDown();
		}
	}

	/**
	 * Waits for the free another thread is doing, at most {@code period}. When that free waits longer
	 * (it has no period, or a longer one), this one gives up as its own period says: the queued calls
	 * are dropped and the workers told to stop, so that the other free ends once what runs returns,
	 * and this one throws {@code TIMEOUT}. Of two frees, the stricter bound holds.
	 */
	private void awaitRelease(ExecutorResources owned, Duration period) {
		long deadline = deadline(period);
		try {
			if (deadline == Long.MAX_VALUE) {
				owned.released.await();
				return;
			}
			if (owned.released.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
				return;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new UformException(Status.INTERRUPTED, "free() of executor '" + name() + "' was interrupted while "
					+ "another thread was freeing it; that thread goes on, and the interrupt flag is still set");
		}
		DroppedCalls dropped = owned.deferred.abandonQueued("free(" + period + ") ran out of time while "
				+ "another thread was freeing the executor");
		owned.pool.requestStop();
		dropped.awaitCompleted(deadline(IDLE_THREADS_EXIT));
		if (owned.released.getCount() == 0 && dropped.count() == 0) {
			// The other free ended just as this one gave up, with nothing left to drop: no timeout to report.
			return;
		}
		throw timedOutBesideAnotherFree(owned, period, dropped);
	}

	private UformException timedOutBesideAnotherFree(ExecutorResources owned, Duration period, DroppedCalls dropped) {
		return new UformException(Status.TIMEOUT, "Executor '" + name() + "' was being freed by another thread, which "
				+ "did not finish within this free's " + period + ": " + unfinished(owned, owned.deferred.describeRunning())
				+ "; " + dropped.count() + " queued call(s) were dropped (their futures completed with FREED). The other "
				+ "free goes on, and frees the executor once what runs returns");
	}

	/**
	 * What a free that ran out of time waited for, for its message.
	 * @param stuck the deferred call still running, described, or {@code null}
	 */
	private static String unfinished(ExecutorResources owned, String stuck) {
		if (stuck != null) {
			return stuck;
		}
		String releasing = owned.releasingNow();
		if (releasing != null) {
			return releasing;
		}
		if (owned.deferred.terminated() && owned.pool.isStopping()) {
			return "continuations of finished deferred calls still run (attached without an ...Async method, they "
					+ "run as the call completes, and the call counts as finished only once they return; attach "
					+ "blocking ones with whenCompleteAsync or thenRunAsync)";
		}
		return "a fork still in progress";
	}

	private void releaseOnce(ExecutorResources owned, Duration period) {
		long deadline = deadline(period);
		owned.deferred.shutdown();
		boolean interrupted = false;
		boolean callsDone = false;
		try {
			// The runner exits after the last queued call; the futures complete on other threads just
			// after, and free() promises they are complete when it returns.
			callsDone = owned.deferred.awaitTermination(deadline) && owned.deferred.awaitSubmitted(deadline);
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		String stuck = null;
		DroppedCalls dropped = null;
		if (!callsDone) {
			// Dropped first: then no call can start, and what runs now is all that can still run.
			dropped = owned.deferred.abandonQueued((interrupted) ? "free() was interrupted"
					: "free(" + period + ") ran out of time");
			stuck = owned.deferred.describeRunning();
			if (!interrupted && dropped.count() == 0 && stuck == null) {
				// Nothing queued, nothing running: the runner is only on its way out, or the last call's
				// continuations are finishing (a period of zero, as Boot's await-termination=false gives, is
				// over before an idle thread can end). That is no unfinished work, so wait the moment it takes.
				try {
					long grace = deadline(IDLE_THREADS_EXIT);
					callsDone = owned.deferred.awaitTermination(grace) && owned.deferred.awaitSubmitted(grace);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				stuck = (callsDone) ? null : owned.deferred.describeRunning();
			}
		}
		boolean joined = false;
		owned.pool.requestStop();
		if (!interrupted) {
			try {
				joined = owned.pool.stop(deadline);
				if (!joined && owned.pool.isStopping()) {
					// No fork in progress (the stop took): the workers are idle and on their way out.
					joined = owned.pool.stop(deadline(IDLE_THREADS_EXIT));
				}
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		owned.freed.set(true);
		if (callsDone && joined) {
			// Idle and stopped: no task or call can touch the devices any more.
			owned.releaseDevices();
			owned.throwReleaseFailure();
			return;
		}
		// The dropped futures are completed on completion threads: wait the moment that takes, so that they
		// are complete when this throws, as its message says (their continuations, user code, may still run).
		int droppedCount = 0;
		if (dropped != null) {
			dropped.awaitCompleted(deadline(IDLE_THREADS_EXIT));
			droppedCount = dropped.count();
		}
		String what = unfinished(owned, stuck) + "; " + droppedCount
				+ " queued call(s) were dropped (their futures completed with FREED)";
		List<String> alive = owned.pool.liveWorkers();
		if (!owned.deferred.terminated()) {
			alive = new ArrayList<>(alive);
			alive.add("uform-" + owned.name + "-deferred");
		}
		String left = (alive.isEmpty()) ? "" : "; still alive, until what they run returns: " + alive;
		if (interrupted) {
			Thread.currentThread().interrupt();
			throw new UformException(Status.INTERRUPTED, "free() of executor '" + name() + "' was interrupted while it "
					+ "waited: " + what + left + ". The executor is freed; the interrupt flag is still set");
		}
		// A zero period waited for nothing: "within PT0S" would read as if the work had had no time at all,
		// where a caller (the Spring starter) may have given it its time before, in refuseDeferred.
		String lead = (period.isZero()) ? "Executor '" + name() + "' was freed without waiting for its work"
				: "Executor '" + name() + "' did not finish its work within " + period;
		throw new UformException(Status.TIMEOUT, lead + ": " + what + left + ". The executor is freed all the same; make "
				+ "the call return sooner (check for interrupts, add timeouts), or allow a longer period");
	}

	/**
	 * Counts a mesh as borrowing this executor, so that {@link Executor#free()} refuses until it is freed.
	 * @param what the mesh, as the refusal names it: {@code job 'run-42'}
	 * @throws UformException {@link Status#FREED} once the executor is freed or being freed
	 */
	void lendToMesh(String what) {
		synchronized (this.meshes) {
			if (this.freeing || this.owned.freed.get()) {
				throw new UformException(Status.FREED, "Executor '" + name() + "' was freed; make a new VRAM executor "
						+ "(Executor.forVram()) and bootstrap the mesh on it");
			}
			this.meshes.add(what);
		}
	}

	/**
	 * Counts a mesh lent by {@link #lendToMesh} as gone.
	 * @param what the mesh, as it was lent
	 */
	void returnFromMesh(String what) {
		synchronized (this.meshes) {
			this.meshes.remove(what);
		}
	}

	/**
	 * The {@link System#nanoTime()} a wait ends at.
	 * @param wait how long; {@code null} for no end
	 * @return the deadline; {@link Long#MAX_VALUE} for no end
	 */
	static long deadline(Duration wait) {
		if (wait == null) {
			return Long.MAX_VALUE;
		}
		long now = System.nanoTime();
		long nanos;
		try {
			nanos = wait.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
		long deadline = now + nanos;
		return (deadline < now || deadline == Long.MAX_VALUE) ? Long.MAX_VALUE - 1 : deadline;
	}
}
