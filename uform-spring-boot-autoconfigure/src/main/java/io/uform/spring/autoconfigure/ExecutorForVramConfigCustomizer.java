package io.uform.spring.autoconfigure;

import io.uform.ExecutorForVramConfig;

/**
 * Adjusts the {@link ExecutorForVramConfig} made from {@code uform.vram.*} before the VRAM executor
 * is made. Customizer beans are applied in {@link org.springframework.core.annotation.Order} order;
 * each gets the previous one's result (configs are immutable, so a customizer returns a new one).
 */
@FunctionalInterface
public interface ExecutorForVramConfigCustomizer {

	/**
	 * Adjusts the config.
	 * @param config the config so far
	 * @return the config to use, for example {@code config.withScratchLimit(8L << 30)}
	 */
	ExecutorForVramConfig customize(ExecutorForVramConfig config);
}
