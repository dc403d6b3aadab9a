package io.uform.host;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.uform.failure.FailureFactory;

/**
 * The deferred calls of one executor: asynchronous calls run one after another, in submission
 * order, by a single runner thread, with at most {@code limit} of them in flight (queued or
 * running). A call may itself fork over the executor's threads; running calls one at a time is what
 * lets each of them use every thread, as uform's executors order calls.
 *
 * <h2>Invariants</h2>
 * <ul>
 * <li>{@code slots} ({@link DeferredSlots}, the admission gate; its own table says how): a submitter
 * takes a slot before it enqueues; the runner gives it back when the call has finished (or was
 * skipped). So queued + running never exceeds {@code limit}, and waiting submitters are admitted in
 * arrival order.</li>
 * <li>{@code lock} guards {@code queue}, {@code submitted}, {@code finished}, {@code running} and
 * every write of {@code closed} and {@code freed}. The check for {@code closed} and the enqueue happen
 * under it; {@code refuseNew} sets {@code closed} under it, and {@code shutdown} sets both and enqueues
 * the stop marker under it: so every call admitted before either is queued before the marker and runs
 * (or is abandoned, with its future completed, by a bounded free that gives up), and none is admitted
 * after it. No call is lost. {@code freed} implies {@code closed}.</li>
 * <li>{@code submitted} and {@code finished} only grow. A call counts as finished only once its
 * slot is released and its future is complete (for a call submitted without a future, once its
 * {@code ended} has returned), so when {@code drain} sees {@code finished >= s}, the first {@code s}
 * calls submitted have freed their slots and completed their futures.</li>
 * <li>Futures complete on {@link DeferredCompletions}' threads, never on the runner: continuations
 * attached to a future run there, so one that blocks (or waits for a later deferred call) cannot
 * hold up, or deadlock, the runner. A call submitted without a future ({@link #submitWithoutFuture})
 * has a future no one else holds, so nothing can be attached to it: its end is heard on the runner,
 * and its future is left as it is (only {@link #abandonQueued} completes it).</li>
 * <li>The runner never blocks on a pending call's future ({@link DeferredFuture}): that call runs
 * only after the runner's current one returns, so the wait is refused rather than left to last for ever.</li>
 * <li>A thread that cannot wait for a slot never does: the runner (a call that defers while all
 * slots are taken would wait for itself) and a thread inside a task of the executor (the running
 * call may be waiting for that task's fork). From them, a full limit is an immediate rejection.</li>
 * <li>Accounting: every accepted call ends as exactly one of completed, failed or cancelled;
 * every refused submission (no slot in time, interrupted, after {@code refuseNew} or free) counts as
 * rejected.</li>
 * <li>Timing, for metrics: a call is stamped with {@link System#nanoTime()} once when it is accepted
 * (by its submitter, after it has a slot and before it takes the lock), once when it starts and
 * once when it returns (both by the runner); nothing is allocated. {@code waitCount}/{@code waitNanos}
 * (accepted to started) and {@code runCount}/{@code runNanos} (started to returned, the
 * {@code beforeEachCall} hook included) have a single writer, the runner, which publishes each with a
 * release store ({@link AtomicLong#lazySet}) rather than a read-modify-write: no other thread writes
 * them, so no update is lost, and observers on any thread read them with {@code get()}. The runner
 * writes the total before the count, so an observer that reads the count first never sees a count
 * whose calls are missing from the total. Calls that never start (cancelled, abandoned) are in
 * neither.</li>
 * </ul>
 */
public final class DeferredCalls {

	private static final Object STOP = new Object();

	static {
		// The first completion of a future with a failure, and the first use of the completion pool,
		// load classes, and loading allocates: do both now, while memory is plentiful, so that finishing
		// a call after it filled the heap only needs what the collector gets back (see runCalls).
		new CompletableFuture<Object>().completeExceptionally(new IllegalStateException("warm-up"));
		DeferredCompletions.isCompletingFor(STOP);
	}

	private final String name;

	private final DeferredRefusals refusals;

	private final BooleanSupplier cannotWait;

	private final Runnable onStop;

	final Runnable beforeEachCall;

	private final DeferredSlots slots;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final ArrayDeque<Object> queue = new ArrayDeque<>();

	private final Thread runner;

	/** How the calls ended and how long they waited and ran (see "Accounting" and "Timing" above). */
	final DeferredCounts counts = new DeferredCounts();

	private long submitted;

	private long finished;

	/** The call the runner is running, for a report of a call that would not finish. */
	private DeferredCall<?> running;

	/**
	 * Whether new calls are refused: set by {@link #refuseNew} or {@link #shutdown}, whichever comes
	 * first. Written only under {@code lock}; volatile so that {@link #submit} can fail fast, before it
	 * waits for a slot, without taking the lock twice. The check under the lock stays the one that counts.
	 */
	private volatile boolean closed;

	/** Whether the stop marker is queued ({@link #shutdown}); written only under {@code lock}. */
	private volatile boolean freed;

	/**
	 * Run by the runner, under the lock, before each take of the next call: {@code null} outside tests,
	 * which make it throw what an allocation there can ({@link OutOfMemoryError}).
	 */
	private final Runnable beforeTake;

	/**
	 * Starts the runner thread.
	 * @param name the executor's name; the runner is called {@code uform-<name>-deferred}
	 * @param limit calls in flight at once, at least 1
	 * @param cannotWait whether the current thread must not wait for a slot (it is inside a task of
	 *        the executor)
	 * @param onStop run on the runner when it stops, after the last call (the executor stops its
	 *        workers there, so that a free never has to wait for it)
	 * @param errors makes the exceptions it throws and the failures of calls it drops
	 * @throws RuntimeException {@code OUT_OF_MEMORY} when the runner thread cannot start
	 */
	public DeferredCalls(String name, int limit, BooleanSupplier cannotWait, Runnable onStop,
			FailureFactory errors) {
		this(name, limit, cannotWait, onStop, null, Thread::start, errors);
	}

	/**
	 * Starts the runner thread through {@code threadStart}, which tests replace to make it fail.
	 * @param name the executor's name
	 * @param limit calls in flight at once, at least 1
	 * @param cannotWait whether the current thread must not wait for a slot
	 * @param onStop run on the runner when it stops
	 * @param beforeEachCall run on the runner before each call, as part of it (a VRAM executor makes
	 *        its device's context current there), or {@code null}; what it throws fails that call
	 * @param threadStart starts one thread ({@link Thread#start()} outside tests)
	 * @param errors makes the exceptions it throws and the failures of calls it drops
	 */
	public DeferredCalls(String name, int limit, BooleanSupplier cannotWait, Runnable onStop, Runnable beforeEachCall,
			Consumer<Thread> threadStart, FailureFactory errors) {
		this(name, limit, cannotWait, onStop, beforeEachCall, threadStart, null, errors);
	}

	/**
	 * As the public constructor, with a hook run on the runner before each take of the next call.
	 * @param beforeTake run under the lock before each take, or {@code null}
	 * @param errors makes the exceptions it throws and the failures of calls it drops
	 */
	DeferredCalls(String name, int limit, BooleanSupplier cannotWait, Runnable onStop, Runnable beforeEachCall,
			Consumer<Thread> threadStart, Runnable beforeTake, FailureFactory errors) {
		this.name = name;
		this.refusals = new DeferredRefusals(name, errors);
		this.beforeTake = beforeTake;
		this.cannotWait = cannotWait;
		this.onStop = onStop;
		this.beforeEachCall = beforeEachCall;
		this.slots = new DeferredSlots(name, limit, errors);
		// Not inheriting the creator's InheritableThreadLocals (as HostPool's workers do not).
		this.runner = new Thread(null, this::runCalls, "uform-" + name + "-deferred", 0, false);
		this.runner.setDaemon(true);
		DeferredExit.join(this);
		try {
			threadStart.accept(this.runner);
		}
		catch (Throwable ex) {
			DeferredExit.leave(this);
			if (ex instanceof OutOfMemoryError) {
				throw this.refusals.runnerNotStarted((OutOfMemoryError) ex);
			}
			throw ex;
		}
	}

	/**
	 * Takes this executor out of uform's JVM-exit hook, for an owner that frees it from a shutdown hook
	 * of its own: the two hooks run at the same time, and the owner's drain must not find its queued
	 * calls dropped under it. Calling it again does nothing more.
	 */
	public void leaveExitToOwner() {
		DeferredExit.leave(this);
	}

	/**
	 * Submits a call, waiting up to {@code maxWait} for a slot.
	 * @param <T> the call's result type
	 * @param call the call
	 * @param maxWait how long to wait for a slot; {@code null} waits as long as it takes,
	 *        {@link Duration#ZERO} not at all
	 * @return a future completed with the call's result or failure
	 * @throws RuntimeException {@code FREED} after {@link #refuseNew} or {@link #shutdown};
	 *         {@code TIMEOUT} when no slot freed in time, or none was free for a thread that cannot wait;
	 *         {@code INTERRUPTED} when interrupted while waiting (the flag stays set)
	 */
	public <T> CompletableFuture<T> submit(Callable<T> call, Duration maxWait) {
		return enqueue(call, maxWait, null).future;
	}

	/**
	 * Submits a call whose end is heard on the runner instead of through a future handed out:
	 * {@code ended} runs there right after the call, with what it threw ({@code null} when it returned),
	 * after its slot is freed and before it counts as finished. For callers that give their submitters
	 * no future ({@code io.uform.DeferredCallExecutor}): where no one holds the future, no continuation
	 * can be attached to it, so there is nothing to keep off the runner, and the call is spared the
	 * hand-off to a completion thread (a thread woken per call, on every call). {@code ended} must not
	 * block, since the calls behind wait for it; what it throws is dropped, as a continuation's failure
	 * is. A call dropped unstarted ({@link #abandonQueued}) has {@code ended} run on a completion thread,
	 * with the failure its future would have had.
	 * @param call the call
	 * @param maxWait as for {@link #submit}
	 * @param ended hears how the call ended
	 * @throws RuntimeException as {@link #submit}
	 */
	public void submitWithoutFuture(Callable<?> call, Duration maxWait, Consumer<Throwable> ended) {
		enqueue(call, maxWait, ended);
	}

	private <T> DeferredCall<T> enqueue(Callable<T> call, Duration maxWait, Consumer<Throwable> ended) {
		if (call == null) {
			throw this.refusals.noCall();
		}
		if (this.closed) {
			this.counts.reject();
			throw this.refusals.closed(this.freed);
		}
		boolean onRunner = Thread.currentThread() == this.runner;
		boolean inTask = !onRunner && this.cannotWait.getAsBoolean();
		this.slots.acquire((onRunner || inTask) ? Duration.ZERO : maxWait, onRunner, inTask, this.counts);
		long accepted = System.nanoTime();
		CompletableFuture<T> future;
		DeferredCall<T> queued;
		try {
			future = new DeferredFuture<>(this);
			queued = new DeferredCall<>(this, 0, call, future, ended, accepted);
		}
		catch (Throwable ex) {
			// Out of memory between the slot and the queue: give the slot back, or it is lost for good.
			this.slots.release();
			this.counts.reject();
			throw ex;
		}
		this.lock.lock();
		try {
			if (this.closed) {
				this.slots.release();
				this.counts.reject();
				throw this.refusals.closed(this.freed);
			}
			queued.sequence = this.submitted + 1;
			try {
				this.queue.addLast(queued);
			}
			catch (Throwable ex) {
				// The queue could not grow: the call was not submitted, and counts nowhere but here.
				this.slots.release();
				this.counts.reject();
				throw ex;
			}
			this.submitted++;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		return queued;
	}

	private void runCalls() {
		DeferredCompletions.runnerStarted();
		try {
			while (true) {
				Object next = takeNext();
				if (next == STOP) {
					return;
				}
				DeferredCall<?> call = (DeferredCall<?>) next;
				if (call.future.isDone()) {
					// Cancelled (or completed by its holder) before it started: the call is not run.
					call.outcome = Outcome.CANCELLED;
				}
				else {
					// One call's interrupt of this thread must not leak into the next call.
					Thread.interrupted();
					call.execute();
				}
				try {
					finish(call);
				}
				catch (Throwable ex) {
					// Out of memory while finishing (completing a future allocates), left by the call that
					// just filled the heap: without the finish its future never completes and every drain
					// and free waits for it, so finish it once the call's garbage is collected.
					finishWhenMemoryAllows(call);
				}
			}
		}
		finally {
			DeferredExit.leave(this);
			try {
				this.onStop.run();
			}
			finally {
				DeferredCompletions.runnerStopped();
			}
		}
	}

	/**
	 * The next call, or {@link #STOP}, waiting for one as long as it takes; it never throws. Taking
	 * allocates: a contended lock and the condition's wait each make a queue node. Out of memory there
	 * (a call that just filled the heap, a continuation that holds it full) would otherwise end the
	 * runner, and with it every queued and later call, silently: their futures would never complete.
	 * Nothing is taken off the queue until the last step, which allocates nothing, so a failed take
	 * simply tries again a millisecond later, as {@link #finishWhenMemoryAllows} does.
	 */
	private Object takeNext() {
		while (true) {
			try {
				return takeOnce();
			}
			catch (Throwable ex) {
				DeferredCompletions.pauseForMemory();
			}
		}
	}

	private Object takeOnce() {
		this.lock.lock();
		try {
			if (this.beforeTake != null) {
				this.beforeTake.run();
			}
			while (this.queue.isEmpty()) {
				this.changed.awaitUninterruptibly();
			}
			Object next = this.queue.pollFirst();
			if (next != STOP) {
				this.running = (DeferredCall<?>) next;
			}
			return next;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** How a call ended. */
	enum Outcome {
		COMPLETED, FAILED, CANCELLED
	}

	/**
	 * Ends a call taken off the queue, with the outcome it recorded: counts it and releases its slot
	 * first, then completes its future on {@link DeferredCompletions}' threads, and only then counts it
	 * finished (see the class comment). Each step happens once however often this is called, so that a
	 * finish that failed part-way (out of memory) can simply be called again.
	 */
	<T> void finish(DeferredCall<T> call) {
		settle(call, call.outcome);
		if (call.outcome == Outcome.CANCELLED) {
			countFinished(call);
			return;
		}
		if (call.ended != null) {
			// Nobody holds its future, so nothing waits on it: heard here, with no hand-off.
			hearEnd(call);
			countFinished(call);
			return;
		}
		DeferredCompletions.complete(this, call.future, call.result, call.thrown, call);
	}

	/** Runs a future-less call's {@code ended} once, on the runner; what it throws is dropped. */
	private static void hearEnd(DeferredCall<?> call) {
		if (call.endHeard) {
			return;
		}
		call.endHeard = true;
		try {
			call.ended.accept(call.thrown);
		}
		catch (Throwable ex) {
			// Dropped, as a continuation's failure is: the call behind must not pay for it.
		}
	}

	/** Clears the running call, counts its outcome and frees its slot, once; allocates nothing. */
	private void settle(DeferredCall<?> call, Outcome outcome) {
		this.lock.lock();
		try {
			if (this.running == call) {
				this.running = null;
			}
			if (call.settled) {
				return;
			}
			call.settled = true;
		}
		finally {
			this.lock.unlock();
		}
		this.counts.settle(outcome);
		this.slots.release();
	}

	/**
	 * {@link #finish} again and again, a millisecond apart, until it goes through: memory comes back
	 * once the collector reclaims what the call that filled the heap left behind. The calls behind
	 * wait meanwhile, as they would for a slow call.
	 */
	private void finishWhenMemoryAllows(DeferredCall<?> call) {
		while (true) {
			try {
				finish(call);
				return;
			}
			catch (Throwable ex) {
				DeferredCompletions.pauseForMemory();
			}
		}
	}

	/** Counts a call finished, once: the last step of its completion. */
	void countFinished(DeferredCall<?> call) {
		this.lock.lock();
		try {
			if (call.counted) {
				return;
			}
			call.counted = true;
			this.finished++;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until every call submitted before this method was entered has finished.
	 * @param deadline a {@link System#nanoTime()} value, or {@link Long#MAX_VALUE} for no limit
	 * @return {@code true} when they all finished by the deadline
	 * @throws InterruptedException if interrupted while waiting
	 * @throws RuntimeException {@code INVALID_ARGUMENT} when called from a deferred call
	 *         (it would wait for itself)
	 */
	public boolean awaitSubmitted(long deadline) throws InterruptedException {
		return awaitSubmitted(deadline, "drain()");
	}

	/**
	 * As {@link #awaitSubmitted(long)}, for a caller that names itself in the refusal.
	 * @param deadline a {@link System#nanoTime()} value, or {@link Long#MAX_VALUE} for no limit
	 * @param what the method that waits, as the refusal names it: {@code drain()}
	 * @return {@code true} when they all finished by the deadline
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitSubmitted(long deadline, String what) throws InterruptedException {
		requireMayWait(what);
		// Nothing to wait for: an answer without waiting, even for a thread whose interrupt flag is set.
		this.lock.lock();
		try {
			if (this.finished >= this.submitted) {
				return true;
			}
		}
		finally {
			this.lock.unlock();
		}
		this.lock.lockInterruptibly();
		try {
			long target = this.submitted;
			while (this.finished < target) {
				if (deadline == Long.MAX_VALUE) {
					this.changed.await();
				}
				else {
					long left = deadline - System.nanoTime();
					if (left <= 0) {
						return false;
					}
					this.changed.awaitNanos(left);
				}
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Refuses new calls from now on; the calls already queued still run, and the runner stays until
	 * {@link #shutdown}. Never waits: {@link #awaitSubmitted} waits for those calls. Calling it again, or
	 * after {@link #shutdown}, does nothing.
	 */
	public void refuseNew() {
		close(false);
	}

	/**
	 * Refuses new calls and queues the stop marker behind the calls already queued; never waits. The
	 * runner runs those calls, then runs {@code onStop} and exits. Calling it again does nothing.
	 */
	public void shutdown() {
		close(true);
	}

	private void close(boolean stop) {
		boolean first = false;
		this.lock.lock();
		try {
			if (!this.closed) {
				this.closed = true;
				first = true;
			}
			if (stop && !this.freed) {
				this.freed = true;
				this.queue.addLast(STOP);
				this.changed.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
		if (first) {
			// Waiting submitters get a permit each, find the calls closed and throw FREED.
			this.slots.openForRefusal();
		}
	}

	/**
	 * Waits for the runner to exit, which it does after {@link #shutdown} once every queued call has
	 * run. Safe to call from many threads at once.
	 * @param deadline a {@link System#nanoTime()} value, or {@link Long#MAX_VALUE} for no limit
	 * @return {@code true} when the runner has exited
	 * @throws InterruptedException if interrupted while waiting
	 * @throws RuntimeException {@code INVALID_ARGUMENT} when called from a deferred call
	 */
	public boolean awaitTermination(long deadline) throws InterruptedException {
		if (Thread.currentThread() == this.runner) {
			throw this.refusals.freeFromRunner();
		}
		if (deadline == Long.MAX_VALUE) {
			this.runner.join();
		}
		else {
			long left = deadline - System.nanoTime();
			if (left > 0) {
				TimeUnit.NANOSECONDS.timedJoin(this.runner, left);
			}
		}
		return !this.runner.isAlive();
	}

	/**
	 * Gives up on the calls still queued: each is taken off the queue, never runs, and its future
	 * completes exceptionally with {@code FREED} (counted as cancelled) on a completion thread,
	 * never on this one: a continuation may block, or free the executor, and whoever gives up (a
	 * bounded free, the JVM's exit) must not wait on it. The running call, if any, is left to finish.
	 * Only after {@link #shutdown}.
	 * @param why the end of the futures' message: why the calls were dropped
	 * @return what was dropped, to wait (a bounded time) for the futures to be completed
	 */
	public DroppedCalls abandonQueued(String why) {
		List<DeferredCall<?>> dropped = new ArrayList<>();
		this.lock.lock();
		try {
			for (Object entry : this.queue) {
				if (entry != STOP) {
					dropped.add((DeferredCall<?>) entry);
				}
			}
			this.queue.removeIf((entry) -> entry != STOP);
		}
		finally {
			this.lock.unlock();
		}
		List<CompletableFuture<?>> futures = new ArrayList<>(dropped.size());
		CountDownLatch continued = new CountDownLatch(dropped.size());
		for (DeferredCall<?> call : dropped) {
			RuntimeException error = this.refusals.dropped(call.sequence, why);
			settle(call, Outcome.CANCELLED);
			// Counted finished before its future completes, unlike a call that ran: a dropped call has no
			// result anyone drains for, and a continuation of it that drains this executor would otherwise
			// wait for its own count. No owner, for the same reason: its continuations may free or drain
			// the executor (a cleanup that frees it, say) without being refused.
			countFinished(call);
			futures.add(call.future);
			if (call.ended != null) {
				// Attached before the future completes, so it runs on the completion thread, as a
				// continuation would, and counts among the continuations the give-up waits for.
				Consumer<Throwable> ended = call.ended;
				call.future.whenComplete((result, failure) -> ended.accept(failure));
			}
			DeferredCompletions.complete(null, call.future, null, error, continued::countDown);
		}
		return new DroppedCalls(futures, continued);
	}

	/**
	 * Describes the call running now, for a report of why a free could not finish: its number, its
	 * class, how long it has run, and where the runner is in it.
	 * @return the description, or {@code null} when no call is running
	 */
	public String describeRunning() {
		DeferredCall<?> call;
		this.lock.lock();
		try {
			call = this.running;
		}
		finally {
			this.lock.unlock();
		}
		if (call == null) {
			return null;
		}
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - call.startedNanos);
		StringBuilder where = new StringBuilder();
		StackTraceElement[] stack = this.runner.getStackTrace();
		int shown = 0;
		for (StackTraceElement frame : stack) {
			if (shown == 3) {
				break;
			}
			if (shown > 0 || !frame.getClassName().startsWith("java.") && !frame.getClassName().startsWith("jdk.")) {
				where.append((shown == 0) ? " at " : " < ").append(frame);
				shown++;
			}
		}
		return "deferred call #" + call.sequence + " (" + call.callable.getClass().getName() + ") has run for "
				+ millis + " ms on thread " + this.runner.getName() + where;
	}

	/**
	 * Whether the current thread is the runner, i.e. a deferred call of this executor is running on it.
	 * @return {@code true} on the runner thread
	 */
	public boolean isRunnerThread() {
		return Thread.currentThread() == this.runner;
	}

	/**
	 * Whether the current thread runs a continuation of one of these calls' futures, attached before
	 * the call finished: the call counts as finished only once its continuations return.
	 * @return {@code true} inside such a continuation
	 */
	public boolean isCompletingHere() {
		return DeferredCompletions.isCompletingFor(this);
	}

	/**
	 * The refusal of a blocking wait on the runner for one of these calls' futures.
	 * @param what the method refused, like {@code get()}
	 * @return the exception to throw
	 */
	RuntimeException waitsBehindItself(String what) {
		return this.refusals.waitBehindItself(what);
	}

	/**
	 * The refusal of a wait for these calls from a continuation of one of them.
	 * @param what the call refused, like {@code free()}
	 * @return the exception to throw
	 */
	public RuntimeException waitsForItself(String what) {
		return this.refusals.waitFromContinuation(what);
	}

	/**
	 * Refuses a wait for the submitted calls from a thread those calls may be waiting for: the runner,
	 * or a continuation that runs as a call completes.
	 * @param what the method that would wait, as the refusal names it: {@code drain()}
	 * @throws RuntimeException {@code INVALID_ARGUMENT} on such a thread
	 */
	public void requireMayWait(String what) {
		if (Thread.currentThread() == this.runner) {
			throw this.refusals.waitFromRunner(what);
		}
		if (isCompletingHere()) {
			throw waitsForItself(what);
		}
	}

	/**
	 * Whether new calls are refused: after {@link #refuseNew} or {@link #shutdown}.
	 * @return {@code true} once either was called
	 */
	public boolean refusesNew() {
		return this.closed;
	}

	/**
	 * Whether the runner thread has exited.
	 * @return {@code true} after the stop marker was reached
	 */
	public boolean terminated() {
		return !this.runner.isAlive();
	}

	/**
	 * How the calls ended and how long they waited and ran, for statistics.
	 * @return the live counters
	 */
	public DeferredCounts counts() {
		return this.counts;
	}

	/**
	 * Calls tracked at once.
	 * @return the limit
	 */
	public int limit() {
		return this.slots.limit();
	}

	/**
	 * Calls queued or running now.
	 * @return at most {@link #limit()}
	 */
	public int inFlight() {
		// The permits first: the flood comes after closed is set, so permits read before a false closed
		// were never flooded.
		int available = this.slots.available();
		if (!this.closed) {
			return this.slots.limit() - available;
		}
		// Once closed the permits were flooded (see close()): count what is left instead.
		this.lock.lock();
		try {
			int queued = 0;
			for (Object entry : this.queue) {
				if (entry != STOP) {
					queued++;
				}
			}
			return queued + ((this.running != null) ? 1 : 0);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Calls running now: the one the runner has taken off the queue and not yet finished.
	 * @return 0 or 1
	 */
	public int running() {
		this.lock.lock();
		try {
			return (this.running != null) ? 1 : 0;
		}
		finally {
			this.lock.unlock();
		}
	}
}
