package io.uform.host;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.uform.UformException;
import io.uform.UformException.Status;

/**
 * The deferred calls of one executor: asynchronous calls run one after another, in submission
 * order, by a single runner thread, with at most {@code limit} of them in flight (queued or
 * running). A call may itself fork over the executor's threads; running calls one at a time is what
 * lets each of them use every thread, as uform's executors order calls.
 *
 * <h2>Invariants</h2>
 * <ul>
 * <li>{@code slots} (fair {@link Semaphore}, {@code limit} permits): a submitter takes one before
 * it enqueues; the runner gives it back when the call has finished. So queued + running never
 * exceeds {@code limit}, and waiting submitters are admitted in arrival order.</li>
 * <li>{@code lock} guards {@code queue}, {@code submitted} and {@code finished}, and every write of
 * {@code freed}. The check for {@code freed} and the enqueue happen under it, and {@code free} sets
 * {@code freed} and enqueues the stop marker under it: so every call admitted before {@code free} is queued
 * before the marker and runs, and none is admitted after it (no call is silently lost).</li>
 * <li>{@code submitted} and {@code finished} only grow. The queue is FIFO and the runner is one
 * thread, so when {@code finished >= s}, the first {@code s} calls submitted have all finished:
 * {@code drain} waits for the {@code submitted} it read on entry.</li>
 * <li>The runner never waits for a slot (a call that defers while all slots are taken would wait
 * for itself): from the runner thread, a full limit is an immediate rejection.</li>
 * </ul>
 */
public final class DeferredCalls {

	private static final Object STOP = new Object();

	private final String name;

	private final int limit;

	private final Semaphore slots;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final ArrayDeque<Object> queue = new ArrayDeque<>();

	private final Thread runner;

	private final AtomicLong completed = new AtomicLong();

	private final AtomicLong failed = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	private long submitted;

	private long finished;

	/**
	 * Written only under {@code lock}; volatile so that {@link #submit} can fail fast, before it waits
	 * for a slot, without taking the lock twice. The check under the lock stays the one that counts.
	 */
	private volatile boolean freed;

	/**
	 * Starts the runner thread.
	 * @param name the executor's name; the runner is called {@code name-deferred}
	 * @param limit calls in flight at once, at least 1
	 */
	public DeferredCalls(String name, int limit) {
		this.name = name;
		this.limit = limit;
		this.slots = new Semaphore(limit, true);
		this.runner = new Thread(this::runCalls, name + "-deferred");
		this.runner.setDaemon(true);
		this.runner.start();
	}

	/**
	 * Submits a call, waiting up to {@code maxWait} for a slot.
	 * @param <T> the call's result type
	 * @param call the call
	 * @param maxWait how long to wait for a slot; {@code null} waits as long as it takes,
	 *        {@link Duration#ZERO} not at all
	 * @return a future completed with the call's result or failure
	 * @throws UformException {@link Status#FREED} after {@link #free}; {@link Status#TIMEOUT} when no
	 *         slot freed in time, or the wait was interrupted
	 */
	public <T> CompletableFuture<T> submit(Callable<T> call, Duration maxWait) {
		if (call == null) {
			throw UformException.invalid("deferred call", null, "pass a Callable or Runnable to defer()");
		}
		if (this.freed) {
			throw freedError();
		}
		boolean onRunner = Thread.currentThread() == this.runner;
		acquireSlot((onRunner) ? Duration.ZERO : maxWait, onRunner);
		CompletableFuture<T> future = new CompletableFuture<>();
		this.lock.lock();
		try {
			if (this.freed) {
				this.slots.release();
				throw freedError();
			}
			this.submitted++;
			this.queue.addLast(new Call<>(call, future));
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		return future;
	}

	private void acquireSlot(Duration maxWait, boolean onRunner) {
		boolean acquired;
		try {
			if (maxWait == null) {
				this.slots.acquire();
				acquired = true;
			}
			else {
				acquired = this.slots.tryAcquire(Math.max(0, maxWait.toNanos()), TimeUnit.NANOSECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.rejected.incrementAndGet();
			throw new UformException(Status.TIMEOUT, "Interrupted while waiting for a deferred-call slot of '"
					+ this.name + "'; the call was not submitted", ex);
		}
		if (!acquired) {
			this.rejected.incrementAndGet();
			String why = (onRunner)
					? "a deferred call deferred another while all " + this.limit
							+ " slots were taken; it cannot wait, since the slots free only as calls (itself included) finish. "
							+ "Raise deferredLimit or run the inner work directly"
					: "all " + this.limit + " deferred-call slots stayed taken for " + maxWait
							+ "; raise deferredLimit, wait longer, or call drain() first";
			throw new UformException(Status.TIMEOUT, "Executor '" + this.name + "' rejected a deferred call: " + why);
		}
	}

	private void runCalls() {
		while (true) {
			Object next;
			this.lock.lock();
			try {
				while (this.queue.isEmpty()) {
					this.changed.awaitUninterruptibly();
				}
				next = this.queue.pollFirst();
			}
			finally {
				this.lock.unlock();
			}
			if (next == STOP) {
				return;
			}
			// One call's interrupt of this thread must not leak into the next call.
			Thread.interrupted();
			Call<?> call = (Call<?>) next;
			call.run(this);
		}
	}

	void finish(boolean ok) {
		(ok ? this.completed : this.failed).incrementAndGet();
		this.lock.lock();
		try {
			this.finished++;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		this.slots.release();
	}

	/**
	 * Waits until every call submitted before this method was entered has finished.
	 * @throws UformException {@link Status#INVALID_ARGUMENT} when called from a deferred call
	 *         (it would wait for itself)
	 */
	public void awaitSubmitted() {
		if (Thread.currentThread() == this.runner) {
			throw new UformException(Status.INVALID_ARGUMENT, "drain() was called from inside a deferred call of '"
					+ this.name + "', which would wait for itself; call drain() from outside the executor");
		}
		this.lock.lock();
		try {
			long target = this.submitted;
			while (this.finished < target) {
				this.changed.awaitUninterruptibly();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Refuses new calls, runs every call already queued, and joins the runner thread. A second call
	 * does nothing more than wait for the first.
	 * @throws InterruptedException if interrupted while joining; the queued calls still run
	 */
	public void free() throws InterruptedException {
		if (Thread.currentThread() == this.runner) {
			throw new UformException(Status.INVALID_ARGUMENT, "free() was called from inside a deferred call of '"
					+ this.name + "', which would wait for itself; free the executor from outside it");
		}
		this.lock.lock();
		try {
			if (!this.freed) {
				this.freed = true;
				this.queue.addLast(STOP);
				this.changed.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
		this.runner.join();
	}

	/**
	 * Whether the current thread is the runner, i.e. a deferred call of this executor is running on it.
	 * @return {@code true} on the runner thread
	 */
	public boolean isRunnerThread() {
		return Thread.currentThread() == this.runner;
	}

	private UformException freedError() {
		return new UformException(Status.FREED,
				"Executor '" + this.name + "' was freed; deferred calls can no longer be submitted to it");
	}

	/**
	 * Calls tracked at once.
	 * @return the limit
	 */
	public int limit() {
		return this.limit;
	}

	/**
	 * Calls queued or running now.
	 * @return at most {@link #limit()}
	 */
	public int inFlight() {
		return this.limit - this.slots.availablePermits();
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
	 * Submissions refused for want of a slot (or interrupted while waiting for one).
	 * @return a count
	 */
	public long rejected() {
		return this.rejected.get();
	}

	/** One queued call and the future it completes. */
	private record Call<T>(Callable<T> callable, CompletableFuture<T> future) {

		void run(DeferredCalls owner) {
			T result = null;
			Throwable thrown = null;
			try {
				result = this.callable.call();
			}
			catch (Throwable ex) {
				thrown = ex;
			}
			// Complete before counting the call finished: when drain() returns, the futures of every
			// call it waited for are done. (Continuations that run inside complete() run on this
			// thread while the call still holds its slot.)
			try {
				if (thrown == null) {
					this.future.complete(result);
				}
				else {
					this.future.completeExceptionally(thrown);
				}
			}
			finally {
				owner.finish(thrown == null);
			}
		}
	}
}
