package io.uform;

/**
 * What an executor does around the work it runs on other threads, so that a request's context
 * (a trace, the logging MDC, a security context) follows the work there and the work can be
 * observed: a {@link DeferredCallDecorator} around each deferred call, a {@link ForkDecorator} around
 * each fork. Given when the executor is made, with {@link Executor#forRam(ExecutorForRamConfig, ExecutorHooks)}
 * or {@link Executor#forVram(ExecutorForVramConfig, ExecutorHooks)}, in the spirit of Spring's
 * {@code TaskDecorator}; the Spring Boot starter fills them from Micrometer's Observation and
 * context-propagation libraries. Kept apart from the executor configs, which describe where threads
 * run and are shown as they are (Spring Boot's Actuator endpoint), while hooks are code.
 *
 * <p>An absent hook costs nothing: the executor runs the work as without hooks, a field check apart.
 *
 * @param deferredCalls called as each deferred call is submitted; {@code null} for none
 * @param forks called as each fork starts; {@code null} for none
 */
public record ExecutorHooks(DeferredCallDecorator deferredCalls, ForkDecorator forks) {

	/** No hooks: what {@link Executor#forRam(ExecutorForRamConfig)} uses. */
	public static final ExecutorHooks NONE = new ExecutorHooks(null, null);

	/**
	 * These hooks with another deferred-call decorator.
	 * @param decorator the decorator, or {@code null} for none
	 * @return a copy
	 */
	public ExecutorHooks withDeferredCalls(DeferredCallDecorator decorator) {
		return new ExecutorHooks(decorator, this.forks);
	}

	/**
	 * These hooks with another fork decorator.
	 * @param decorator the decorator, or {@code null} for none
	 * @return a copy
	 */
	public ExecutorHooks withForks(ForkDecorator decorator) {
		return new ExecutorHooks(this.deferredCalls, decorator);
	}

	/**
	 * What a hook opens on a thread around work and closes when that work is done, such as restored
	 * thread-local values: {@link AutoCloseable} without a checked exception.
	 */
	@FunctionalInterface
	public interface Scope extends AutoCloseable {

		/** Puts back what the thread had before the scope opened. */
		@Override
		void close();
	}
}
