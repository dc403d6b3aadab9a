package io.uform.sample;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * Adds the sample's {@code uform.models.*} entries ({@code sample-models.yml}) to the environment,
 * last (so {@code application.yml}, the command line and tests override them), unless
 * {@code sample.embedding.enabled} is {@code false}: an application without the model runs from a jar
 * without the models' jars, where the starter would refuse an entry whose file is missing. Registered
 * in {@code META-INF/spring.factories}.
 */
class SampleModels implements EnvironmentPostProcessor {

	static final String RESOURCE = "sample-models.yml";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("sample.embedding.enabled", Boolean.class, true)) {
			return;
		}
		try {
			for (PropertySource<?> source : new YamlPropertySourceLoader().load("sampleModels",
					new ClassPathResource(RESOURCE))) {
				environment.getPropertySources().addLast(source);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not read " + RESOURCE + " from the sample's jar", ex);
		}
	}
}
