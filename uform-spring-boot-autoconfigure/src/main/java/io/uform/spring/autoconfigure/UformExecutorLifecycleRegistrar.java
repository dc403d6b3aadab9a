package io.uform.spring.autoconfigure;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;

import io.uform.Executor;

/**
 * Gives every {@link Executor} bean an {@link UformExecutorLifecycle}, the application's own
 * executors ({@code @Bean(defaultCandidate = false) Executor reranker()}) as much as the starter's:
 * each is then freed at the lifecycle's phase within {@code uform.shutdown.await-termination-period},
 * logs its own "Made" and "Freed" lines, and is named in its own shutdown WARN.
 *
 * <p>It runs once the configuration classes have registered every bean definition (so after the
 * auto-configurations' conditions), and registers {@code <executor bean name>Lifecycle} for each
 * eager singleton executor bean that has no bean of that name yet (a lazy one would be made by its
 * lifecycle at startup, so it keeps the destroy method it declares): the starter's own executors have theirs
 * ({@code uformRamExecutorLifecycle}), and an application that names a lifecycle so keeps it. Nothing is
 * made early: bean types are read from the definitions, without initialising factory beans.
 */
final class UformExecutorLifecycleRegistrar implements BeanDefinitionRegistryPostProcessor {

	/** The suffix of a lifecycle's bean name after its executor's. */
	static final String LIFECYCLE_SUFFIX = "Lifecycle";

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		if (!(registry instanceof ConfigurableListableBeanFactory beans)) {
			return;
		}
		for (String name : beans.getBeanNamesForType(Executor.class, false, false)) {
			String lifecycle = name + LIFECYCLE_SUFFIX;
			if (registry.containsBeanDefinition(lifecycle) || beans.containsSingleton(lifecycle)
					|| (registry.containsBeanDefinition(name) && registry.getBeanDefinition(name).isLazyInit())) {
				// A lazy executor is made only where it is used: its lifecycle would make it at startup.
				continue;
			}
			RootBeanDefinition definition = new RootBeanDefinition(UformExecutorLifecycle.class);
			definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(lifecycle, definition);
		}
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
	}
}
