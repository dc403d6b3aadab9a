package io.uform.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.UformException;

/**
 * Shuts one uform executor bean down with its application context, as Spring's
 * {@code ExecutorConfigurationSupport} does its executors, driven by {@code uform.shutdown.*}: at
 * {@link #PHASE} it stops taking deferred calls and lets the submitted ones finish (a stop without a
 * close only drains), and when the context destroys this bean it frees the executor, within the period
 * either way. {@code docs/configuration.md} (Lifecycle) says what happens when.
 */
public class UformExecutorLifecycle
		implements SmartLifecycle, DisposableBean, ApplicationContextAware, BeanNameAware {

	/** Just below Spring Boot's web server graceful-shutdown phase: the executor stops after the server drains. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024 - 1;

	private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(UformExecutorLifecycle.class);

	private final String executorBeanName;

	private @Nullable String beanName;

	private @Nullable ConfigurableApplicationContext context;

	// Volatile: written on the thread that makes the beans, read on the stop thread and the closing thread;
	// a stop thread Spring stopped waiting for may still write closeStart as the closing thread reads it.

	private volatile @Nullable Executor executor;

	/**
	 * Whether the starter's bean method made the executor: that bean depends on this one, so this is
	 * destroyed, and frees it, after everything that uses it. An executor of the application's is freed at
	 * this lifecycle's phase instead, as the context may destroy this first.
	 */
	private volatile boolean late;

	/** Bound once; two threads binding at the same time bind the same values. */
	private volatile @Nullable Settings settings;

	private volatile @Nullable CloseStart closeStart;

	private volatile boolean running;

	private boolean started;

	/**
	 * Makes the lifecycle of the executor bean of that name.
	 * @param executorBeanName the executor's bean name
	 */
	public UformExecutorLifecycle(String executorBeanName) {
		this.executorBeanName = executorBeanName;
	}

	@Override
	public void setBeanName(String name) {
		this.beanName = name;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		if (context instanceof ConfigurableApplicationContext configurable) {
			this.context = configurable;
		}
	}

	/**
	 * Takes the executor that the starter's bean method made: that bean depends on this one, so this is
	 * destroyed, and frees it, even when the context fails before its singletons are all made.
	 * @param executor the executor just made
	 * @return the executor
	 */
	Executor manage(Executor executor) {
		take(executor);
		this.late = true;
		return executor;
	}

	private void take(Executor executor) {
		// Boot's shutdown hook closes the context, and this drains the executor; uform's own exit hook,
		// running at the same time, would drop its queued calls first.
		executor.leaveExitToOwner();
		this.executor = executor;
	}

	/**
	 * Marks the executor for stopping; the first time, also takes an executor bean of the application's,
	 * orders the destruction and reads the settings. Here, once every eager singleton is made: under lazy
	 * initialization this bean is made only when Spring's lifecycle processor starts it.
	 */
	@Override
	public void start() {
		if (!this.started) {
			prepare();
			this.started = true;
		}
		this.running = true;
	}

	private void prepare() {
		if (this.context == null || this.beanName == null) {
			return;
		}
		ConfigurableListableBeanFactory beans = this.context.getBeanFactory();
		if (this.executor == null) {
			// An executor bean of the application's: destroyed after this, so that this frees it within the
			// period before its own destroy method could wait for ever.
			// Its "Made" line too: the starter logs only the executors its own bean methods make.
			take(UformStartupLog.made(this.executorBeanName, beans.getBean(this.executorBeanName, Executor.class)));
			beans.registerDependentBean(this.executorBeanName, this.beanName);
		}
		else {
			// Every java.util.concurrent.Executor (Boot's applicationTaskExecutor awaiting its @Async methods) is
			// destroyed before the executor bean, and so before this frees it, since that work may still fork
			// on it. By definition, so that nothing is made early; not this bean's dependents, which Spring
			// would stop at this phase. One the executor itself depends on keeps its declared order.
			Set<String> before = dependenciesOf(beans, this.executorBeanName);
			for (String pool : beans.getBeanNamesForType(java.util.concurrent.Executor.class, true, false)) {
				if (!before.contains(pool)) {
					beans.registerDependentBean(this.executorBeanName, pool);
				}
			}
		}
		Settings settings = settings(true);
		Duration period = settings.configuredPeriod();
		if (settings.await() && period != null && period.compareTo(settings.phaseTimeout()) > 0) {
			logger.warn("uform.shutdown.await-termination-period (" + period + ") is longer than "
					+ "spring.lifecycle.timeout-per-shutdown-phase (" + settings.phaseTimeout() + "): uform executor bean '"
					+ this.executorBeanName + "' will wait at most " + settings.phaseTimeout() + " when the context closes");
		}
	}

	/**
	 * Stops on a thread of its own, so that the executors of one phase wait at the same time: Spring
	 * bounds a phase's callbacks by {@code spring.lifecycle.timeout-per-shutdown-phase} in all.
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
		}, "uform-stop-" + this.executorBeanName);
		stopping.setDaemon(true);
		stopping.start();
	}

	@Override
	public void stop() {
		this.running = false;
		stopNow();
	}

	private void stopNow() {
		Executor executor = this.executor;
		if (executor == null || this.context == null) {
			return;
		}
		if (this.context.isClosed()) {
			close(executor);
		}
		else if (this.context.isRunning()) {
			// Stopped to be started again (checkpoint and restore): the executor stays, drained.
			drain(executor);
		}
		// Else a refresh failed as the lifecycles started: the context destroys this bean next, which frees it.
	}

	/**
	 * Refuses new deferred calls and waits for the submitted ones; forks still run until {@link #destroy}.
	 * Frees now instead without {@code await-termination}, when a call is still running at the end of the
	 * period, or where the executor is not {@link #late}.
	 */
	private void close(Executor executor) {
		Settings settings = settings(false);
		if (this.closeStart == null) {
			this.closeStart = CloseStart.of(executor);
		}
		if (!settings.await() || !this.late) {
			free(executor, settings.period(), settings);
			return;
		}
		boolean finished;
		try {
			finished = executor.refuseDeferred(settings.period());
		}
		catch (UformException ex) {
			logger.warn("uform executor bean '" + this.executorBeanName + "' could not wait for its deferred calls: "
					+ ex.getMessage() + "; freeing it now", ex);
			finished = false;
		}
		if (!finished) {
			free(executor, Duration.ZERO, settings);
		}
	}

	private void drain(Executor executor) {
		Settings settings = settings(false);
		if (!settings.await()) {
			return;
		}
		try {
			// Into the mood it has: an application that chose GRINDING keeps it after start().
			if (!executor.drain(executor.statistics().mood(), settings.period())) {
				logger.warn("uform executor bean '" + this.executorBeanName + "' still had work running after "
						+ "uform.shutdown.await-termination-period (" + settings.period() + ") when the context stopped; "
						+ "it goes on, and the executor serves again when the context starts");
			}
		}
		catch (UformException ex) {
			// Freed by someone already: a stop has nothing to drain then.
			logger.debug("uform executor bean '" + this.executorBeanName + "' was not drained: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Frees the executor within the period, or at once where the close already spent the period on a call
	 * still in flight: waiting for the same stuck call again would double the close. Never throws.
	 */
	@Override
	public void destroy() {
		Executor executor = this.executor;
		if (executor == null) {
			return;
		}
		Settings settings = settings(false);
		ExecutorStatistics statistics = executor.statistics();
		boolean spent = settings.await() && statistics.state() == Executor.State.CLOSING
				&& statistics.deferredInFlight() > 0;
		free(executor, spent ? Duration.ZERO : settings.period(), settings);
	}

	private void free(Executor executor, Duration period, Settings settings) {
		if (executor.statistics().state() == Executor.State.FREED) {
			return;
		}
		CloseStart start = this.closeStart;
		if (start == null) {
			start = CloseStart.of(executor);
		}
		try {
			executor.free(period);
		}
		catch (UformException ex) {
			if (ex.status() == UformException.Status.TIMEOUT) {
				logger.warn("uform executor bean '" + this.executorBeanName + "' was freed with work unfinished "
						+ settings.why() + ": " + ex.getMessage());
			}
			else {
				logger.warn("uform executor bean '" + this.executorBeanName + "' could not be freed cleanly: "
						+ ex.getMessage(), ex);
				freeAtOnce(executor);
			}
		}
		logFreed(start, executor.statistics());
	}

	/** After a free that failed for another reason than time: never left to an unbounded free. */
	private void freeAtOnce(Executor executor) {
		try {
			executor.free(Duration.ZERO);
		}
		catch (UformException ex) {
			logger.debug("uform executor bean '" + this.executorBeanName + "' freed without waiting: " + ex.getMessage(),
					ex);
		}
	}

	/** Says at INFO how long the close took and what became of the deferred calls, as Spring's executors do. */
	private void logFreed(CloseStart start, ExecutorStatistics end) {
		if (!logger.isInfoEnabled()) {
			return;
		}
		ExecutorStatistics before = start.statistics();
		long finished = (end.deferredCompleted() + end.deferredFailed())
				- (before.deferredCompleted() + before.deferredFailed());
		long dropped = end.deferredCancelled() - before.deferredCancelled();
		long millis = (System.nanoTime() - start.nanos()) / 1_000_000;
		logger.info("Freed uform executor bean '" + this.executorBeanName + "' (" + end.name() + ") in " + millis
				+ " ms: " + UformStartupLog.counted(before.deferredInFlight(), "deferred call")
				+ " in flight when it closed, " + finished + " finished" + ((dropped > 0) ? ", " + dropped + " dropped" : ""));
	}

	/**
	 * The settings, bound once. Strict at startup, so that a value that does not bind fails it; lenient at
	 * close, where a failed startup must still free the executor: with the defaults then.
	 */
	private Settings settings(boolean strict) {
		Settings settings = this.settings;
		if (settings != null) {
			return settings;
		}
		try {
			Binder binder = Binder.get(this.context.getEnvironment());
			settings = new Settings(binder.bindOrCreate("uform.shutdown", UformProperties.Shutdown.class),
					binder.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
						.orElse(DEFAULT_PHASE_TIMEOUT));
		}
		catch (RuntimeException ex) {
			if (strict) {
				throw ex;
			}
			logger.debug("uform.shutdown or spring.lifecycle.timeout-per-shutdown-phase did not bind; freeing "
					+ "executor bean '" + this.executorBeanName + "' with the defaults", ex);
			settings = new Settings(new UformProperties.Shutdown(), DEFAULT_PHASE_TIMEOUT);
		}
		this.settings = settings;
		return settings;
	}

	/** The beans this one depends on, directly or through beans it depends on. */
	private static Set<String> dependenciesOf(ConfigurableListableBeanFactory beans, String bean) {
		Set<String> found = new HashSet<>();
		Deque<String> next = new ArrayDeque<>(List.of(beans.getDependenciesForBean(bean)));
		while (!next.isEmpty()) {
			String name = next.poll();
			if (found.add(name)) {
				next.addAll(List.of(beans.getDependenciesForBean(name)));
			}
		}
		return found;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * {@code uform.shutdown.*} and {@code spring.lifecycle.timeout-per-shutdown-phase}.
	 * @param shutdown the uform settings
	 * @param phaseTimeout Boot's bound on each shutdown phase
	 */
	private record Settings(UformProperties.Shutdown shutdown, Duration phaseTimeout) {

		boolean await() {
			return this.shutdown.isAwaitTermination();
		}

		@Nullable Duration configuredPeriod() {
			return this.shutdown.getAwaitTerminationPeriod();
		}

		/**
		 * How long freeing waits: the period, no longer than the phase timeout (Spring applies that only to
		 * asynchronous stops), zero without {@code await-termination}; never negative, as a negative phase
		 * timeout is Boot's to accept and a free refuses a negative wait.
		 */
		Duration period() {
			Duration period = configuredPeriod();
			if (!await()) {
				return Duration.ZERO;
			}
			if (period == null || period.compareTo(this.phaseTimeout) > 0) {
				period = this.phaseTimeout;
			}
			return period.isNegative() ? Duration.ZERO : period;
		}

		/** Why the wait was that long, for the WARN of a free with work unfinished. */
		String why() {
			return await() ? "after uform.shutdown.await-termination-period (" + period() + ")"
					: "at once, as uform.shutdown.await-termination is false";
		}
	}

	/**
	 * The executor when its close began, for the INFO line once it is freed.
	 * @param nanos {@link System#nanoTime()} then
	 * @param statistics its statistics then
	 */
	private record CloseStart(long nanos, ExecutorStatistics statistics) {

		static CloseStart of(Executor executor) {
			return new CloseStart(System.nanoTime(), executor.statistics());
		}
	}
}
