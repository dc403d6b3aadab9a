package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ApplicationContextEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.ContextRefreshedEvent;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.Mood;
import io.uform.UformException;

/**
 * Shuts a uform executor down when the application context closes, the way Spring's own executors
 * shut down when they await termination: at this lifecycle's phase new deferred calls are refused
 * ({@link Executor#refuseDeferred}) and the ones already submitted get at most
 * {@code uform.shutdown.await-termination-period} to finish; a call still running after that is
 * reported by name in a WARN log and the executor is freed at once, so that closing the context never
 * hangs on user code.
 *
 * <h2>Freed late</h2>
 * When the submitted calls finish in time, forks keep running until the context destroys the
 * executor bean, and {@link UformExecutorDestruction} frees it then, after every
 * {@code java.util.concurrent.Executor} bean of the context: Boot's {@code applicationTaskExecutor}
 * with {@code spring.task.execution.shutdown.await-termination=true} waits for its {@code @Async}
 * methods only when it is destroyed, and those may still fork on the uform executor. Without
 * {@code await-termination} the executor is freed here at once, its queued calls dropped; and it is
 * freed here within the period, as a lifecycle made with the public constructor always does, where
 * the context will not free it through {@link UformExecutorDestruction} (a {@code FactoryBean}'s
 * product, a bean made before the post-processors, a scoped bean, a bean the starter's name is an
 * alias of).
 *
 * <h2>Stop without close</h2>
 * A context stopped and started again ({@code stop()}/{@code start()}, as checkpoint and restore
 * do) keeps its executors: a stop only drains them, within the same period, and they serve again
 * after {@code start()}, in the mood they had. A stop is a close when this context's
 * {@link ContextClosedEvent} came first (Spring publishes it before it stops the lifecycles of a
 * closing context), or when no {@link ContextRefreshedEvent} came yet: a refresh that fails while
 * the lifecycles start (a later lifecycle bean's {@code start()} throws) stops them without a close
 * event, and that context never starts again. A context stopped and then closed does not stop its
 * lifecycles again: the close event frees the executor within the period where the context will not
 * free it when it destroys its bean.
 *
 * <h2>Phase</h2>
 * {@link #PHASE} is just below Spring Boot's web server graceful-shutdown phase
 * ({@code SmartLifecycle.DEFAULT_PHASE - 1024}), and lifecycles stop from the highest phase down:
 * the executor is freed right after the web server has let its in-flight requests finish (requests
 * that use the executor complete), and before the web server itself stops
 * ({@code DEFAULT_PHASE - 2048}).
 *
 * <p>The wait is also bounded by {@code spring.lifecycle.timeout-per-shutdown-phase}: a longer
 * {@code await-termination-period} is cut to it, with a WARN at startup.
 *
 * <h2>JVM exit</h2>
 * On SIGTERM, Spring Boot's shutdown hook closes the context, and with it this lifecycle drains the
 * executor as above. uform's own exit hook, which would complete the queued calls' futures with
 * {@code FREED} at once, is told to leave the executor to this lifecycle
 * ({@link Executor#leaveExitToOwner()}). An application that turns Boot's hook off
 * ({@code spring.main.register-shutdown-hook=false}) closes its context itself.
 */
public class UformExecutorLifecycle implements SmartLifecycle, ApplicationListener<ApplicationContextEvent>,
		ApplicationContextAware {

	/** One below Spring Boot's web server graceful-shutdown phase; see the class comment. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024 - 1;

	private static final Log logger = LogFactory.getLog(UformExecutorLifecycle.class);

	/**
	 * When each executor's close began and what its deferred calls had done by then, for the INFO line
	 * logged once it is freed, which may be by {@link UformExecutorDestruction} later. Weak, and removed
	 * at the free: an executor the context never frees here is not kept.
	 */
	private static final Map<Executor, CloseStart> CLOSE_STARTS = Collections.synchronizedMap(new WeakHashMap<>());

	private final String beanName;

	private final Executor executor;

	private final UformProperties.Shutdown shutdown;

	private final @Nullable Duration phaseTimeout;

	/** Whether the context frees the executor when it destroys its bean; else a close frees it here. */
	private final Predicate<Executor> freedWhenDestroyed;

	private volatile boolean running;

	/** Set by this context's {@link ContextClosedEvent}: from then on a stop shuts down. */
	private volatile boolean closing;

	/** Set by this context's {@link ContextRefreshedEvent}: before it, a stop is a failed refresh's. */
	private volatile boolean refreshed;

	private @Nullable ApplicationContext context;

	/**
	 * Makes the lifecycle of one executor bean.
	 * @param beanName the executor's bean name, for the log
	 * @param executor the executor
	 * @param shutdown how to free it
	 * @param phaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}, which also bounds the wait,
	 *        or {@code null} for no such bound
	 */
	public UformExecutorLifecycle(String beanName, Executor executor, UformProperties.Shutdown shutdown,
			@Nullable Duration phaseTimeout) {
		this(beanName, executor, shutdown, phaseTimeout, (made) -> false);
	}

	/**
	 * Makes the lifecycle of one executor bean that a close may leave for the context's bean destruction
	 * to free (see the class comment).
	 * @param freedWhenDestroyed whether the context will free the executor when it destroys its bean
	 */
	UformExecutorLifecycle(String beanName, Executor executor, UformProperties.Shutdown shutdown,
			@Nullable Duration phaseTimeout, Predicate<Executor> freedWhenDestroyed) {
		this.freedWhenDestroyed = freedWhenDestroyed;
		this.beanName = beanName;
		this.executor = executor;
		this.shutdown = shutdown;
		this.phaseTimeout = phaseTimeout;
		// This lifecycle frees the executor when the context closes, also at JVM exit (SIGTERM), through
		// Boot's shutdown hook; uform's own hook, running beside it, must not drop the queued calls first.
		executor.leaveExitToOwner();
		Duration period = shutdown.getAwaitTerminationPeriod();
		if (shutdown.isAwaitTermination() && period != null && phaseTimeout != null && period.compareTo(phaseTimeout) > 0) {
			logger.warn("uform.shutdown.await-termination-period (" + period + ") is longer than "
					+ "spring.lifecycle.timeout-per-shutdown-phase (" + phaseTimeout + "): uform executor bean '"
					+ beanName + "' will wait at most " + phaseTimeout + " when the context closes");
		}
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public void onApplicationEvent(ApplicationContextEvent event) {
		// Events of a child context reach its parent's listeners too; only this context's count.
		if (this.context != null && event.getApplicationContext() != this.context) {
			return;
		}
		if (event instanceof ContextClosedEvent) {
			this.closing = true;
			if (this.refreshed && !this.running && !this.freedWhenDestroyed.test(this.executor)) {
				// Stopped before the close: Spring does not stop it again, and nothing else frees this
				// executor (the context does not destroy it through UformExecutorDestruction).
				free();
			}
		}
		else if (event instanceof ContextRefreshedEvent) {
			this.refreshed = true;
		}
	}

	@Override
	public void start() {
		// The executor runs from the moment its bean is made; this only marks it for stopping.
		this.running = true;
	}

	/**
	 * Shuts the executor down (or, without a close, drains it) on a thread of its own and calls back
	 * when it is done, so that the executors of one phase drain at the same time: Spring waits for a phase's
	 * callbacks at most {@code spring.lifecycle.timeout-per-shutdown-phase} in all, where synchronous
	 * stops would wait one after the other, each up to the period.
	 */
	@Override
	public void stop(Runnable callback) {
		this.running = false;
		Thread stopping = new Thread(() -> {
			try {
				stopNow();
			}
			finally {
				callback.run();
			}
		}, "uform-stop-" + this.beanName);
		stopping.setDaemon(true);
		stopping.start();
	}

	@Override
	public void stop() {
		this.running = false;
		stopNow();
	}

	private void stopNow() {
		if (!this.refreshed) {
			// A failed refresh: nothing waits late for a context that never started.
			free();
		}
		else if (this.closing) {
			shutDown();
		}
		else {
			drain();
		}
	}

	/**
	 * A close: refuses new deferred calls and lets the submitted ones finish within the period; the
	 * executor stays forkable until its bean is destroyed (see the class comment). Without
	 * {@code await-termination}, where the context will not free it when it destroys it, or when a call
	 * is still running at the end of the period, it is freed now instead.
	 */
	private void shutDown() {
		if (!this.shutdown.isAwaitTermination() || !this.freedWhenDestroyed.test(this.executor)) {
			// Nothing would free it later: freed now, within the period.
			free();
			return;
		}
		Duration period = effectivePeriod(this.shutdown, this.phaseTimeout);
		CLOSE_STARTS.putIfAbsent(this.executor, CloseStart.of(this.executor));
		boolean finished;
		try {
			finished = this.executor.refuseDeferred(period);
		}
		catch (UformException ex) {
			logger.warn("uform executor bean '" + this.beanName + "' could not wait for its deferred calls: "
					+ ex.getMessage() + "; freeing it now", ex);
			finished = false;
		}
		if (!finished) {
			// The period is spent: give up on what still runs, as a free with that period would have.
			free(this.beanName, this.executor, Duration.ZERO,
					"after uform.shutdown.await-termination-period (" + period + ")");
		}
	}

	/** A stop without a close: lets the submitted work finish within the period; the executor stays. */
	private void drain() {
		if (!this.shutdown.isAwaitTermination()) {
			return;
		}
		Duration period = effectivePeriod(this.shutdown, this.phaseTimeout);
		try {
			// Drained into the mood it has: an application that chose GRINDING keeps it after start().
			Mood mood = this.executor.statistics().mood();
			if (period == null) {
				this.executor.drain(mood);
			}
			else if (!this.executor.drain(mood, period)) {
				logger.warn("uform executor bean '" + this.beanName + "' still had work running after "
						+ "uform.shutdown.await-termination-period (" + period + ") when the context stopped; it goes on, "
						+ "and the executor serves again when the context starts");
			}
		}
		catch (UformException ex) {
			// Freed by someone already, say: a stop has nothing to drain then.
			logger.debug("uform executor bean '" + this.beanName + "' was not drained: " + ex.getMessage(), ex);
		}
	}

	private void free() {
		free(this.beanName, this.executor, this.shutdown, this.phaseTimeout);
	}

	/**
	 * Frees an executor bean as the context's close does: within {@link #effectivePeriod}, reporting
	 * unfinished work in a WARN; never throws.
	 * @param beanName the executor's bean name, for the log
	 * @param executor the executor
	 * @param shutdown how to free it
	 * @param phaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}, or {@code null}
	 */
	static void free(String beanName, Executor executor, UformProperties.Shutdown shutdown,
			@Nullable Duration phaseTimeout) {
		Duration period = effectivePeriod(shutdown, phaseTimeout);
		free(beanName, executor, period, (shutdown.isAwaitTermination())
				? "after uform.shutdown.await-termination-period (" + period + ")"
				: "at once, as uform.shutdown.await-termination is false");
	}

	/**
	 * Frees an executor bean that the context destroys: within {@link #effectivePeriod}, as
	 * {@link #free(String, Executor, UformProperties.Shutdown, Duration)} does, or at once where the
	 * close already spent that period on the deferred calls. That is so when the executor refuses
	 * deferred calls ({@code CLOSING}) and some are still in flight: the close's wait for them is never
	 * longer than Spring's phase timeout, so by the time Spring destroys the beans it has run out (or
	 * runs out this moment, and its own free at once meets this one). Waiting a second period for the
	 * same stuck call would double the close. Never throws.
	 * @param beanName the executor's bean name, for the log
	 * @param executor the executor
	 * @param shutdown how to free it
	 * @param phaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}, or {@code null}
	 */
	static void freeWhenDestroyed(String beanName, Executor executor, UformProperties.Shutdown shutdown,
			@Nullable Duration phaseTimeout) {
		ExecutorStatistics statistics = executor.statistics();
		if (shutdown.isAwaitTermination() && statistics.state() == Executor.State.CLOSING
				&& statistics.deferredInFlight() > 0) {
			free(beanName, executor, Duration.ZERO, "after uform.shutdown.await-termination-period ("
					+ effectivePeriod(shutdown, phaseTimeout) + ")");
		}
		else {
			free(beanName, executor, shutdown, phaseTimeout);
		}
	}

	/**
	 * Frees an executor within {@code period}, reporting unfinished work in a WARN; never throws.
	 * @param period the longest wait, or {@code null} to wait as long as the work takes
	 * @param setting why the wait was that long, for the WARN: {@code after ... (30s)}
	 */
	private static void free(String beanName, Executor executor, @Nullable Duration period, String setting) {
		CloseStart start = CLOSE_STARTS.remove(executor);
		if (start == null) {
			start = CloseStart.of(executor);
		}
		if (executor.statistics().state() == Executor.State.FREED) {
			// Freed already (a second free does nothing): said when it was.
			return;
		}
		try {
			if (period == null) {
				executor.free();
			}
			else {
				executor.free(period);
			}
		}
		catch (UformException ex) {
			if (ex.status() == UformException.Status.TIMEOUT) {
				logger.warn("uform executor bean '" + beanName + "' was freed with work unfinished " + setting + ": "
						+ ex.getMessage());
			}
			else {
				logger.warn("uform executor bean '" + beanName + "' could not be freed cleanly: " + ex.getMessage(), ex);
				freeAtOnce(beanName, executor);
			}
		}
		logFreed(beanName, start, executor.statistics());
	}

	/**
	 * Says at INFO that an executor bean was freed, how long its close took and what became of the
	 * deferred calls it held then, as Spring's executors say when they shut down.
	 */
	private static void logFreed(String beanName, CloseStart start, ExecutorStatistics end) {
		if (!logger.isInfoEnabled()) {
			return;
		}
		ExecutorStatistics before = start.statistics();
		long finished = (end.deferredCompleted() + end.deferredFailed())
				- (before.deferredCompleted() + before.deferredFailed());
		long dropped = end.deferredCancelled() - before.deferredCancelled();
		long millis = (System.nanoTime() - start.nanos()) / 1_000_000;
		logger.info("Freed uform executor bean '" + beanName + "' (" + end.name() + ") in " + millis + " ms: "
				+ UformStartupLog.counted(before.deferredInFlight(), "deferred call") + " in flight when it closed, "
				+ finished + " finished" + ((dropped > 0) ? ", " + dropped + " dropped" : ""));
	}

	/**
	 * An executor's state when its close began.
	 * @param nanos {@link System#nanoTime()} then
	 * @param statistics its statistics then
	 */
	private record CloseStart(long nanos, ExecutorStatistics statistics) {

		static CloseStart of(Executor executor) {
			return new CloseStart(System.nanoTime(), executor.statistics());
		}
	}

	/**
	 * After a free that failed for another reason than time, frees without waiting, so that what
	 * frees the executor in the end is never the bean's unbounded {@code free} destroy method.
	 */
	private static void freeAtOnce(String beanName, Executor executor) {
		if (executor.statistics().state() == Executor.State.FREED) {
			return;
		}
		try {
			executor.free(Duration.ZERO);
		}
		catch (UformException ex) {
			logger.debug("uform executor bean '" + beanName + "' freed without waiting: " + ex.getMessage(), ex);
		}
	}

	/**
	 * How long freeing waits: {@code await-termination-period}, no longer than the shutdown phase's
	 * timeout (Spring applies that timeout only to asynchronous stops, and {@link #stop()} is
	 * synchronous, so it is applied here), or zero without {@code await-termination}. Never negative:
	 * {@code UformProperties} refuses a negative period at startup, but a negative
	 * {@code timeout-per-shutdown-phase} is Boot's, and an executor's free refuses a negative wait.
	 */
	static @Nullable Duration effectivePeriod(UformProperties.Shutdown shutdown, @Nullable Duration phaseTimeout) {
		if (!shutdown.isAwaitTermination()) {
			return Duration.ZERO;
		}
		Duration period = shutdown.getAwaitTerminationPeriod();
		if (phaseTimeout != null && (period == null || period.compareTo(phaseTimeout) > 0)) {
			period = phaseTimeout;
		}
		return (period != null && period.isNegative()) ? Duration.ZERO : period;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}
}
