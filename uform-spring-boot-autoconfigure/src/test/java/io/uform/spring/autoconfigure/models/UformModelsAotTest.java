package io.uform.spring.autoconfigure.models;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.io.InputStreamSource;
import org.springframework.javapoet.ClassName;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The models under Spring AOT: the set of models registered when the application was built must be the
 * set {@code uform.models} names where it starts, and the natives ONNX Runtime and DJL load by name are
 * in the runtime hints.
 */
class UformModelsAotTest {

	@Test
	void aStartWithTheModelsItWasBuiltWithPassesAndAnotherSetIsRefusedNamingTheProperty() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformModelsAutoConfiguration.class))
			.withPropertyValues("uform.ram.threads=1")
			.withPropertyValues(MiniLm.entry("minilm"))
			.run((context) -> {
				// The bean definitions, as the AOT-generated initializer registers them: the built set.
				assertThatNoException().isThrownBy(
						() -> UformModelsAotDecision.check(environment("minilm"), context.getBeanFactory()));
				assertThatThrownBy(() -> UformModelsAotDecision.check(environment("minilm", "e5"), context.getBeanFactory()))
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining("uform.models")
					.hasMessageContaining("built (process-aot) with the models [minilm], and here uform.models names "
							+ "[e5, minilm]");
				assertThatThrownBy(() -> UformModelsAotDecision.check(environment(), context.getBeanFactory()))
					.hasMessageContaining("here uform.models names []");
			});
	}

	@Test
	void springAotWritesEachModelsBeansOutAsCode() throws Exception {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		TestPropertyValues.of(MiniLm.entry("minilm")).and("uform.ram.threads=1").applyTo(context);
		context.register(App.class);
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generation = new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(App.class)),
				files);
		new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		generation.writeGeneratedContent();
		StringBuilder code = new StringBuilder();
		for (InputStreamSource source : files.getGeneratedFiles(GeneratedFiles.Kind.SOURCE).values()) {
			code.append(new String(source.getInputStream().readAllBytes()));
		}
		assertThat(code).contains("\"minilmEmbeddingModel\"")
			.contains("\"minilmSpringAiEmbeddingModel\"")
			.contains("\"minilmLangchain4jEmbeddingModel\"")
			.contains("setFactoryBeanName(\"uformModels\")")
			.contains("setPrimary(true)");
		context.close();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ UformAutoConfiguration.class, UformModelsAutoConfiguration.class })
	static class App {

	}

	@Test
	void onnxRuntimesAndTheTokenizersNativesAndJniTypesAreHinted() {
		RuntimeHints hints = new RuntimeHints();
		new UformModelsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.resource().forResource("ai/onnxruntime/native/linux-x64/libonnxruntime.so"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("native/lib/linux-x86_64/cpu/libtokenizers.so"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("native/lib/tokenizers.properties")).accepts(hints);
		assertThat(hints.jni().getTypeHint(org.springframework.aot.hint.TypeReference.of("ai.onnxruntime.OnnxTensor")))
			.isNotNull();
	}

	private static StandardEnvironment environment(String... models) {
		StandardEnvironment environment = new StandardEnvironment();
		Map<String, Object> properties = new java.util.LinkedHashMap<>();
		for (String model : models) {
			properties.put("uform.models." + model + ".model", MiniLm.MODEL);
		}
		environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
		return environment;
	}
}
