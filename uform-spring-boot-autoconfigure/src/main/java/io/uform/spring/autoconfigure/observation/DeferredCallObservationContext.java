package io.uform.spring.autoconfigure.observation;

import io.micrometer.observation.Observation;

/**
 * What an observation of one deferred call knows: the executor bean it was submitted to, and whether
 * its future was cancelled (an error, if it failed, is the context's {@link #getError()}).
 */
public class DeferredCallObservationContext extends Observation.Context {

	private final String executorBeanName;

	private volatile boolean cancelled;

	/**
	 * Makes the context of one deferred call.
	 * @param executorBeanName the executor's bean name
	 */
	public DeferredCallObservationContext(String executorBeanName) {
		this.executorBeanName = executorBeanName;
	}

	/**
	 * The bean name of the executor the call was submitted to.
	 * @return like {@code uformRamExecutor}
	 */
	public String getExecutorBeanName() {
		return this.executorBeanName;
	}

	/**
	 * Whether the call's future was cancelled (before the call started, it never ran).
	 * @return {@code true} when cancelled
	 */
	public boolean isCancelled() {
		return this.cancelled;
	}

	void markCancelled() {
		this.cancelled = true;
	}
}
