package io.uform.spring.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A bad {@code uform.*} value stops startup with a report naming the property, its value and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class UformFailureAnalyzerTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class));

	@Test
	void namesThePropertyValueAndFix() {
		this.contextRunner.withPropertyValues("uform.ram.deferred-limit=0").run((context) -> {
			FailureAnalysis analysis = new UformFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("uformRamExecutor")
				.contains("uform.ram.deferred-limit = 0 is invalid");
			assertThat(analysis.getAction()).startsWith("Update uform.ram.deferred-limit").contains("at least 1");
		});
	}

	@Test
	void camelCaseFieldsBecomeKebabCaseProperties() {
		this.contextRunner.withPropertyValues("uform.ram.memory-domains=42").run((context) -> {
			FailureAnalysis analysis = new UformFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("uform.ram.memory-domains = [42]");
			assertThat(analysis.getAction()).contains("node 42 does not exist");
		});
		assertThat(UformFailureAnalyzer.kebab("cpuClass")).isEqualTo("cpu-class");
	}

	@Test
	void aFailureNotAboutOneFieldKeepsUformsMessage() {
		UformException unsupported = new UformException(UformException.Status.UNSUPPORTED, "Executor.onPool is not designed");
		FailureAnalysis analysis = new UformFailureAnalyzer().analyze(unsupported);
		assertThat(analysis.getDescription()).contains("Executor.onPool is not designed").contains("UNSUPPORTED");
		assertThat(analysis.getAction()).isNotBlank();
	}

	@Test
	void bootPrintsTheReportWhenTheApplicationFailsToStart(CapturedOutput output) {
		assertThatThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("uform.ram.threads=0")
			.run()
			.close()).hasRootCauseInstanceOf(UformException.class);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("uform.ram.threads = 0 is invalid")
			.contains("Update uform.ram.threads in your configuration");
	}

	@Configuration(proxyBeanMethods = false)
	@Import(UformAutoConfiguration.class)
	static class App {

	}
}
