package io.uform.spring.autoconfigure;

import io.uform.ExecutorForRamConfig;

/**
 * Adjusts the {@link ExecutorForRamConfig} made from {@code uform.ram.*} before the RAM executor is
 * made. Customizer beans are applied in {@link org.springframework.core.annotation.Order} order; each
 * gets the previous one's result (configs are immutable, so a customizer returns a new one).
 */
@FunctionalInterface
public interface ExecutorForRamConfigCustomizer {

	/**
	 * Adjusts the config.
	 * @param config the config so far
	 * @return the config to use, for example {@code config.withThreads(4)}
	 */
	ExecutorForRamConfig customize(ExecutorForRamConfig config);
}
