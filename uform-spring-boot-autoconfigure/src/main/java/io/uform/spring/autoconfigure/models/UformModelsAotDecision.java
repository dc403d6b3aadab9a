package io.uform.spring.autoconfigure.models;

import java.util.Set;
import java.util.TreeSet;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Stops an AOT-processed application whose models were decided with other {@code uform.models}: Spring
 * AOT registers each entry's beans when the application is built ({@code process-aot}), so the set of
 * models is fixed then, and started with another set it would silently serve the old one. This
 * compares the models the generated bean definitions load with the entries of this environment, before
 * any bean is made, and fails the start naming the property, as {@code UformAotDecisions} does for the
 * VRAM executor and the mesh. A model's other properties (its file, pooling, executor) are read at run
 * time and may differ.
 */
public class UformModelsAotDecision implements ApplicationListener<ApplicationPreparedEvent> {

	@Override
	public void onApplicationEvent(ApplicationPreparedEvent event) {
		if (AotDetector.useGeneratedArtifacts()) {
			check(event.getApplicationContext().getEnvironment(), event.getApplicationContext().getBeanFactory());
		}
	}

	/**
	 * Compares the models built in with the entries of this environment.
	 * @param environment this start's environment
	 * @param beans the bean definitions the AOT-generated initializer registered
	 * @throws InvalidConfigurationPropertyValueException where they differ, naming {@code uform.models}
	 */
	static void check(Environment environment, ConfigurableListableBeanFactory beans) {
		if (!ClassUtils.isPresent("io.uform.onnxruntime.TextEmbeddingModel", beans.getBeanClassLoader())) {
			return;
		}
		Set<String> built = new TreeSet<>();
		for (String name : beans.getBeanDefinitionNames()) {
			if (UformModels.BEAN_NAME.equals(beans.getBeanDefinition(name).getFactoryBeanName())
					&& name.endsWith("EmbeddingModel")) {
				built.add(name.substring(0, name.length() - "EmbeddingModel".length()));
			}
		}
		Set<String> here = new TreeSet<>(ModelEntries.bind(environment).keySet());
		if (!built.equals(here)) {
			throw new InvalidConfigurationPropertyValueException(ModelEntries.PREFIX, here, "this application was "
					+ "built (process-aot) with the models " + built + ", and here uform.models names " + here
					+ ". Spring AOT registers the models' beans when it builds: run process-aot with the uform.models "
					+ "entries this deployment uses, or start without -Dspring.aot.enabled=true");
		}
	}
}
