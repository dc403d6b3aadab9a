package io.uform.spring.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link UformAotDecisions}: the bean definitions an AOT build decided (made here as process-aot makes
 * them, by {@code refreshForAotProcessing}: conditions evaluated, no bean made) against the settings of
 * a later start. This test JVM sees two simulated GPUs, so {@code auto} makes a VRAM executor.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformAotDecisionsTest {

	@Test
	void theSameSettingsAtBuildAndAtStartPass() {
		for (String[] settings : new String[][] { {}, { "uform.vram.enabled=false" }, { "uform.vram.enabled=true" },
				{ "uform.mesh.host-domain-count=2" } }) {
			try (AnnotationConfigApplicationContext built = built(settings)) {
				assertThatNoException().isThrownBy(() -> UformAotDecisions.check(environment(settings), built.getBeanFactory()));
			}
		}
	}

	@Test
	void aVramExecutorAskedForAtStartThatTheBuildLeftOutFailsNamingTheProperty() {
		try (AnnotationConfigApplicationContext built = built("uform.vram.enabled=false")) {
			InvalidConfigurationPropertyValueException failure = mismatch(built, "uform.vram.enabled=true");
			assertThat(failure.getName()).isEqualTo("uform.vram.enabled");
			assertThat(failure.getValue()).isEqualTo("true");
			assertThat(failure.getReason()).contains("was built (process-aot) without a VRAM executor",
					"uform.vram.enabled is true", "run process-aot with");
		}
	}

	@Test
	void aVramExecutorTheBuildMadeThatTheStartTurnsOffFails() {
		try (AnnotationConfigApplicationContext built = built()) {
			InvalidConfigurationPropertyValueException failure = mismatch(built, "uform.vram.enabled=false");
			assertThat(failure.getName()).isEqualTo("uform.vram.enabled");
			assertThat(failure.getReason()).contains("was built (process-aot) with a VRAM executor",
					"uform.vram.enabled is false");
		}
	}

	@Test
	void aVramExecutorBeanTheApplicationDefinesItselfIsLeftAlone() {
		try (AnnotationConfigApplicationContext built = built((context) -> context
			.registerBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, String.class, () -> "the application's own"),
				"uform.vram.enabled=false")) {
			assertThat(built.getBeanFactory().containsBeanDefinition(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)).isTrue();
			assertThatNoException().isThrownBy(
					() -> UformAotDecisions.check(environment("uform.vram.enabled=false"), built.getBeanFactory()));
		}
	}

	@Test
	void aMeshAskedForAtStartThatTheBuildLeftOutFailsNamingTheProperty() {
		try (AnnotationConfigApplicationContext built = built()) {
			InvalidConfigurationPropertyValueException failure = mismatch(built, "uform.mesh.host-domain-count=2");
			assertThat(failure.getName()).isEqualTo("uform.mesh.host-domain-count");
			assertThat(failure.getReason()).contains("was built (process-aot) without a mesh");
		}
	}

	@Test
	void aMeshTheBuildMadeThatTheStartDoesNotAskForFails() {
		try (AnnotationConfigApplicationContext built = built("uform.mesh.host-domain-count=2")) {
			InvalidConfigurationPropertyValueException failure = mismatch(built);
			assertThat(failure.getName()).isEqualTo("uform.mesh.directory");
			assertThat(failure.getReason()).contains("was built (process-aot) to join a mesh",
					"neither uform.mesh.host-domain-count nor uform.mesh.directory is set");
		}
	}

	@Test
	void outsideAotModeNothingIsCompared() {
		// The conditions are evaluated at this start anyway; spring.aot.enabled is not set in this JVM.
		try (AnnotationConfigApplicationContext built = built("uform.vram.enabled=false")) {
			TestPropertyValues.of("uform.vram.enabled=true").applyTo(built.getEnvironment());
			assertThatNoException().isThrownBy(() -> new UformAotDecisions()
				.onApplicationEvent(new ApplicationPreparedEvent(new SpringApplication(), new String[0], built)));
		}
	}

	private static InvalidConfigurationPropertyValueException mismatch(AnnotationConfigApplicationContext built,
			String... atStart) {
		ConfigurableListableBeanFactory beans = built.getBeanFactory();
		InvalidConfigurationPropertyValueException failure = catchThrowableOfType(InvalidConfigurationPropertyValueException.class,
				() -> UformAotDecisions.check(environment(atStart), beans));
		assertThat(failure).as("a mismatch between the build and %s", (Object) atStart).isNotNull();
		return failure;
	}

	private static AnnotationConfigApplicationContext built(String... settings) {
		return built((context) -> {
		}, settings);
	}

	/** The bean definitions as process-aot leaves them: conditions evaluated, nothing instantiated. */
	private static AnnotationConfigApplicationContext built(
			java.util.function.Consumer<AnnotationConfigApplicationContext> application, String... settings) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		TestPropertyValues.of(settings).applyTo(context);
		application.accept(context);
		context.register(UformAutoConfiguration.class);
		context.refreshForAotProcessing(new RuntimeHints());
		return context;
	}

	private static StandardEnvironment environment(String... settings) {
		StandardEnvironment environment = new StandardEnvironment();
		TestPropertyValues.of(settings).applyTo(environment);
		return environment;
	}
}
