package io.uform.spring.autoconfigure;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;

import io.uform.Executor;

/**
 * Makes an application's own bean named {@code uformVramExecutor}, which replaces the starter's VRAM
 * executor, no default candidate for injection by type, as the starter's own is: an
 * {@link Executor} injected by type keeps meaning the RAM executor (two default candidates would make
 * every such injection fail), and the VRAM executor is injected by name,
 * {@code @Qualifier("uformVramExecutor")}, whichever made it.
 */
final class UformVramExecutorReplacement implements BeanFactoryPostProcessor {

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beans) throws BeansException {
		String name = UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME;
		if (beans.containsBeanDefinition(name) && beans.isTypeMatch(name, Executor.class)) {
			BeanDefinition definition = beans.getBeanDefinition(name);
			if (definition instanceof AbstractBeanDefinition abstractDefinition && abstractDefinition.isDefaultCandidate()) {
				abstractDefinition.setDefaultCandidate(false);
			}
		}
	}
}
