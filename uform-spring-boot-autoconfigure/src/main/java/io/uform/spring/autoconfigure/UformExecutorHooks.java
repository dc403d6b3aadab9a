package io.uform.spring.autoconfigure;

import io.uform.ExecutorHooks;

/**
 * Gives each executor bean the {@link ExecutorHooks} it is made with: what it does around deferred
 * calls and forks. The starter's bean ({@code uformExecutorHooks}, made where Micrometer's
 * {@code ObservationRegistry} bean exists or {@code io.micrometer:context-propagation} is on the class
 * path) observes deferred calls as {@code uform.deferred} and carries the submitting thread's context
 * to them; define a bean of this type to replace it. Without any, executors are made without hooks.
 */
@FunctionalInterface
public interface UformExecutorHooks {

	/**
	 * The hooks for one executor bean.
	 * @param executorBeanName the executor's bean name, as observations and meters name it
	 * @param forkContextPropagation whether its {@code fork-context-propagation} property asks forks to
	 *        carry the forking thread's context; hooks without a fork decorator then fail startup
	 *        naming the property
	 * @return the hooks; {@link ExecutorHooks#NONE} for none
	 */
	ExecutorHooks hooksFor(String executorBeanName, boolean forkContextPropagation);
}
