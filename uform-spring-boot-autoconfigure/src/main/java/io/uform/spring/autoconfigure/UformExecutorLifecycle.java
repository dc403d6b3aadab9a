package io.uform.spring.autoconfigure;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

import io.uform.Executor;
import io.uform.UformException;

/**
 * Frees a uform executor when the application context stops, the way Spring's own executors shut
 * down: new deferred calls are refused from then on, the work already submitted gets at most
 * {@code uform.shutdown.await-termination-period} to finish, and a call still running after that is
 * reported by name in a WARN log while the executor is freed anyway, so that closing the context
 * never hangs on user code.
 *
 * <h2>Phase</h2>
 * {@link #PHASE} is just below Spring Boot's web server graceful-shutdown phase
 * ({@code SmartLifecycle.DEFAULT_PHASE - 1024}), and lifecycles stop from the highest phase down:
 * the executor is freed right after the web server has let its in-flight requests finish (requests
 * that use the executor complete), and before the web server itself stops
 * ({@code DEFAULT_PHASE - 2048}).
 */
public class UformExecutorLifecycle implements SmartLifecycle {

	/** One below Spring Boot's web server graceful-shutdown phase; see the class comment. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024 - 1;

	private static final Log logger = LogFactory.getLog(UformExecutorLifecycle.class);

	private final String beanName;

	private final Executor executor;

	private final UformProperties.Shutdown shutdown;

	private volatile boolean running;

	/**
	 * Makes the lifecycle of one executor bean.
	 * @param beanName the executor's bean name, for the log
	 * @param executor the executor
	 * @param shutdown how to free it
	 */
	public UformExecutorLifecycle(String beanName, Executor executor, UformProperties.Shutdown shutdown) {
		this.beanName = beanName;
		this.executor = executor;
		this.shutdown = shutdown;
	}

	@Override
	public void start() {
		// The executor runs from the moment its bean is made; this only marks it for stopping.
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		Duration period = this.shutdown.isAwaitTermination() ? this.shutdown.getAwaitTerminationPeriod() : Duration.ZERO;
		try {
			if (period == null) {
				this.executor.free();
			}
			else {
				this.executor.free(period);
			}
		}
		catch (UformException ex) {
			if (ex.status() == UformException.Status.TIMEOUT) {
				logger.warn("uform executor bean '" + this.beanName + "' was freed with work unfinished after "
						+ "uform.shutdown.await-termination-period (" + period + "): " + ex.getMessage());
			}
			else {
				logger.warn("uform executor bean '" + this.beanName + "' could not be freed cleanly: " + ex.getMessage(),
						ex);
			}
		}
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
