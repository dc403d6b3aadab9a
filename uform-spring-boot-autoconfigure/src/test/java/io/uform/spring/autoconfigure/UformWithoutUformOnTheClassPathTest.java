package io.uform.spring.autoconfigure;

import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

import io.uform.Executor;
import io.uform.ExecutorForVramConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without uform on the class path (the auto-configuration jar alone, as a dependency tree that lost
 * {@code uform-java} would give), the auto-configuration backs off and the application starts, even
 * with {@code uform.*} properties set, including ones that would fail startup if it were applied.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformWithoutUformOnTheClassPathTest {

	/** Every class of {@code uform-java} (io.uform and its sub-packages), not this module's. */
	private static final Predicate<String> UFORM_JAVA = (name) -> name.startsWith("io.uform.")
			&& !name.startsWith("io.uform.spring.");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		// Applied, these would make startup fail (see UformFailureAnalyzerTest).
		.withPropertyValues("uform.ram.threads=0", "uform.vram.enabled=true", "uform.vram.devices=7");

	@Test
	void withTheExecutorClassHiddenTheAutoConfigurationBacksOff() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Executor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(UformAutoConfiguration.class)
				.doesNotHaveBean(UformProperties.class)
				.doesNotHaveBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(UformExecutorLifecycle.class));
	}

	@Test
	void withAllOfUformJavaHiddenTheAutoConfigurationBacksOff() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(UFORM_JAVA))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(UformAutoConfiguration.class)
				.doesNotHaveBean("uformRamExecutorConfig")
				.doesNotHaveBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME));
	}

	@Test
	void theFilterReallyHidesUform() throws Exception {
		// Guards the two tests above: were the filter to let the class through, they would prove nothing.
		try (FilteredClassLoader loader = new FilteredClassLoader(UFORM_JAVA)) {
			assertThat(org.springframework.util.ClassUtils.isPresent(Executor.class.getName(), loader)).isFalse();
			assertThat(org.springframework.util.ClassUtils.isPresent(ExecutorForVramConfig.class.getName(), loader))
				.isFalse();
			assertThat(org.springframework.util.ClassUtils.isPresent(UformAutoConfiguration.class.getName(), loader))
				.isTrue();
		}
		this.contextRunner.withPropertyValues("uform.ram.threads=1", "uform.vram.enabled=false")
			.run((context) -> assertThat(context).hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME));
	}

	@Test
	void anApplicationWithEveryAutoConfigurationStartsWithoutUform() {
		FilteredClassLoader loader = new FilteredClassLoader(UFORM_JAVA);
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.resourceLoader(new DefaultResourceLoader(loader))
			.web(WebApplicationType.NONE)
			.registerShutdownHook(false)
			.properties("spring.main.banner-mode=off", "uform.ram.threads=0", "uform.vram.enabled=true")
			.run()) {
			assertThat(context.getBeanNamesForType(UformAutoConfiguration.class)).isEmpty();
			assertThat(context.containsBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)).isFalse();
			assertThat(context.containsBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)).isFalse();
			// The rest of Boot is unaffected.
			assertThat(context.containsBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME)).isTrue();
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}
}
