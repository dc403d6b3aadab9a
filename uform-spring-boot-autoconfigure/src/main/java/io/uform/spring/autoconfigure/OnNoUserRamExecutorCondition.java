package io.uform.spring.autoconfigure;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.uform.Executor;

/**
 * Whether to make the RAM executor: not when the application defines its own, that is a bean named
 * {@code uformRamExecutor}, or any {@link Executor} bean that injection by type would pick (a default
 * candidate), as Boot's {@code applicationTaskExecutor} backs off for any user executor. So
 * {@code Executor} injected by type never finds two. Not counted: executors declared with
 * {@code defaultCandidate = false}, and the bean named {@code uformVramExecutor} (a replacement of the
 * starter's VRAM executor is injected by name only, as the starter's own is: see
 * {@link UformVramExecutorReplacement}).
 */
class OnNoUserRamExecutorCondition extends SpringBootCondition implements ConfigurationCondition {

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		// As @ConditionalOnMissingBean: once the user's bean definitions are registered.
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConfigurableListableBeanFactory beans = context.getBeanFactory();
		if (beans == null) {
			return ConditionOutcome.match("no bean factory to look in");
		}
		if (beans.containsBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)) {
			return ConditionOutcome.noMatch("the application defines a bean named '"
					+ UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME + "'");
		}
		for (String name : beans.getBeanNamesForType(Executor.class, true, false)) {
			if (name.equals(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)) {
				continue;
			}
			BeanDefinition definition = beans.containsBeanDefinition(name) ? beans.getBeanDefinition(name) : null;
			boolean byNameOnly = definition instanceof AbstractBeanDefinition abstractDefinition
					&& !abstractDefinition.isDefaultCandidate();
			if (!byNameOnly) {
				return ConditionOutcome.noMatch("the application defines io.uform.Executor bean '" + name
						+ "', a default candidate for injection by type");
			}
		}
		return ConditionOutcome.match("the application defines no io.uform.Executor injected by type");
	}
}
