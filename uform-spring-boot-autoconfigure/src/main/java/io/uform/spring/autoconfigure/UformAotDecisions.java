package io.uform.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Stops an AOT-processed application whose uform beans were decided for another machine. Spring AOT
 * evaluates conditions when the application is built ({@code process-aot}), so whether a VRAM
 * executor and a mesh exist is fixed then: by {@code uform.vram.enabled} and the GPUs the build
 * machine saw, by {@code uform.mesh.*} and the launcher variables it had. Started with
 * {@code spring.aot.enabled=true} where the same settings decide otherwise, the application would run
 * silently without the VRAM executor or mesh it was configured for, or make one it was told not to.
 * This compares the two when the AOT-generated bean definitions are in place, before any bean is
 * made, and fails the start naming the property, as a bad value would be.
 *
 * <p>Nothing is checked outside AOT mode, where the conditions are evaluated at startup anyway. A bean
 * the application defines itself under the starter's name is the application's choice, and left
 * alone.
 */
public class UformAotDecisions implements ApplicationListener<ApplicationPreparedEvent> {

	/** The bean a VRAM executor decision makes; present, by whatever definition, where one was decided. */
	static final String VRAM_BEAN = UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME;

	/** The bean a mesh decision makes; present where a mesh was decided (or the application brings options). */
	static final String MESH_BEAN = UformAutoConfiguration.MESH_BEAN_NAME;

	/** The starter's mesh options, made only where {@link OnMeshCondition} matched. */
	static final String MESH_OPTIONS_BEAN = "uformMeshOptions";

	@Override
	public void onApplicationEvent(ApplicationPreparedEvent event) {
		if (AotDetector.useGeneratedArtifacts()) {
			check(event.getApplicationContext().getEnvironment(), event.getApplicationContext().getBeanFactory());
		}
	}

	/**
	 * Compares the uform beans defined (by the AOT build) with what this environment decides.
	 * @param environment this start's environment
	 * @param beans the bean definitions the AOT-generated initializer registered
	 * @throws InvalidConfigurationPropertyValueException where they differ, naming the property
	 */
	static void check(Environment environment, ConfigurableListableBeanFactory beans) {
		ConditionOutcome vram = OnVramEnabledCondition.outcome(environment);
		if (vram.isMatch() ? !beans.containsBeanDefinition(VRAM_BEAN)
				: madeBy(beans, VRAM_BEAN, UformExecutorConfigurations.VramExecutorConfiguration.class)) {
			throw mismatch(OnVramEnabledCondition.PROPERTY, OnVramEnabledCondition.Setting.of(environment).written(),
					"was built (process-aot) " + (vram.isMatch() ? "without" : "with") + " a VRAM executor", vram);
		}
		ConditionOutcome mesh = OnMeshCondition.outcome(environment);
		String meshProperty = (environment.getProperty("uform.mesh.host-domain-count") != null)
				? "uform.mesh.host-domain-count" : "uform.mesh.directory";
		if (mesh.isMatch() ? !beans.containsBeanDefinition(MESH_BEAN)
				: madeBy(beans, MESH_OPTIONS_BEAN, UformMeshConfiguration.class)) {
			throw mismatch(meshProperty, environment.getProperty(meshProperty),
					"was built (process-aot) " + (mesh.isMatch() ? "without a mesh" : "to join a mesh"), mesh);
		}
	}

	private static boolean madeBy(ConfigurableListableBeanFactory beans, String name, Class<?> starterConfiguration) {
		if (!beans.containsBeanDefinition(name)) {
			return false;
		}
		// Made by a @Bean method of the starter's configuration (whatever name its own bean has).
		String factory = beans.getBeanDefinition(name).getFactoryBeanName();
		if (factory == null || !beans.containsBeanDefinition(factory)) {
			return false;
		}
		BeanDefinition configuration = beans.getBeanDefinition(factory);
		return starterConfiguration.getName().equals(configuration.getBeanClassName());
	}

	private static InvalidConfigurationPropertyValueException mismatch(String property, @Nullable Object value,
			String built, ConditionOutcome now) {
		return new InvalidConfigurationPropertyValueException(property, value, "this application " + built
				+ ", but here " + now.getMessage() + ". Spring AOT decides which uform beans exist when it builds: run "
				+ "process-aot with the uform.vram.enabled and uform.mesh.* this deployment uses (uform.vram.enabled "
				+ "true or false rather than auto), or start without -Dspring.aot.enabled=true");
	}
}
