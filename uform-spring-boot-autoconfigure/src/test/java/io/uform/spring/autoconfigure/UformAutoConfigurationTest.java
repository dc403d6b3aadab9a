package io.uform.spring.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.annotation.Order;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The RAM executor beans made from {@code uform.ram.*}: mapping, customizers, back-off, freeing on
 * close, and a bad value failing startup with uform's message.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformAutoConfigurationTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class));

	@Test
	void propertiesBecomeTheConfigAndTheExecutor() {
		this.contextRunner
			.withPropertyValues("uform.ram.threads=2", "uform.ram.deferred-limit=16", "uform.ram.memory-domains=0")
			.run((context) -> {
				ExecutorForRamConfig config = context.getBean(ExecutorForRamConfig.class);
				assertThat(config.threads()).isEqualTo(2);
				assertThat(config.deferredLimit()).isEqualTo(16);
				assertThat(config.memoryDomains()).containsExactly(0);
				assertThat(config.cpuClass()).isNull();
				Executor executor = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
				assertThat(executor.threads()).isEqualTo(2);
				assertThat(executor.statistics().deferredLimit()).isEqualTo(16);
			});
	}

	@Test
	void absentPropertiesStayAbsentSoTheMachineDecides() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(ExecutorForRamConfig.class)).isEqualTo(ExecutorForRamConfig.defaults());
			assertThat(context.getBean(Executor.class).threads()).isPositive();
		});
	}

	@Test
	void customizersApplyInOrder() {
		this.contextRunner.withPropertyValues("uform.ram.threads=1")
			.withBean("second", ExecutorForRamConfigCustomizer.class, () -> new Second())
			.withBean("first", ExecutorForRamConfigCustomizer.class, () -> new First())
			.run((context) -> assertThat(context.getBean(ExecutorForRamConfig.class).threads()).isEqualTo(4));
	}

	@Test
	void userBeansWin() {
		Executor own = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		try {
			this.contextRunner.withBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class, () -> own)
				.run((context) -> assertThat(context.getBean(Executor.class)).isSameAs(own));
		}
		finally {
			own.free();
		}
	}

	@Test
	void anExecutorOfTheUsersOwnUnderAnotherNameWinsAsBootsTaskExecutorDoes() {
		// A second, unused pool of threads, and injection by type failing on two candidates, otherwise.
		Executor own = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		try {
			this.contextRunner.withBean("myExecutor", Executor.class, () -> own).run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
					.doesNotHaveBean("uformRamExecutorLifecycle");
				assertThat(context.getBean(Executor.class)).isSameAs(own);
			});
			// Declared as no default candidate, it is injected by name only, and the RAM executor is made.
			this.contextRunner
				.withBean("sideExecutor", Executor.class, () -> own, (definition) -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false))
				.run((context) -> {
					assertThat(context).hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME);
					assertThat(context.getBean(Executor.class)).isNotSameAs(own);
				});
		}
		finally {
			own.free();
		}
	}

	@Test
	void theUsersOwnConfigBeanWinsOverTheProperties() {
		this.contextRunner.withPropertyValues("uform.ram.threads=3")
			.withBean("myRamConfig", ExecutorForRamConfig.class, () -> ExecutorForRamConfig.defaults().withThreads(1))
			.run((context) -> {
				assertThat(context).doesNotHaveBean("uformRamExecutorConfig");
				assertThat(context.getBean(Executor.class).threads()).isEqualTo(1);
			});
	}

	@Test
	void startupSaysWhatWasMade(CapturedOutput output) {
		this.contextRunner.withPropertyValues("uform.ram.threads=2").run((context) -> {
			assertThat(output).contains("Made uform RAM executor bean 'uformRamExecutor' (" + context.getBean(Executor.class).name()
					+ "): 2 threads on memory domains [");
			assertThat(output).contains(", deferred limit 64");
			// The module's simulated devices: the VRAM executor's line names each, its vendor said once.
			assertThat(output).contains("Made uform VRAM executor bean 'uformVramExecutor'")
				.containsPattern(", device \\d+ \\(Simulated GPU \\d+ \\(host memory\\), \\d+ MB, scratch limit none\\)")
				.doesNotContain("SIMULATED Simulated");
		});
	}

	@Test
	void startupCountsInTheSingularForOne(CapturedOutput output) {
		this.contextRunner.withPropertyValues("uform.ram.threads=1", "uform.vram.devices=0,1").run((context) -> {
			assertThat(output).contains("): 1 thread on memory domains [").doesNotContain("1 threads");
			assertThat(output).containsPattern(", devices 0 \\(.*\\), 1 \\(");
		});
	}

	@Test
	void canBeTurnedOff() {
		this.contextRunner.withPropertyValues("uform.ram.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(ExecutorForRamConfig.class));
	}

	@Test
	void theExecutorIsFreedWithTheContext() {
		Executor[] made = new Executor[1];
		this.contextRunner.withPropertyValues("uform.ram.threads=2")
			.run((context) -> made[0] = context.getBean(Executor.class));
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		String prefix = "uform-" + made[0].name() + "-";
		assertThat(Thread.getAllStackTraces().keySet()).noneMatch((thread) -> thread.getName().startsWith(prefix));
	}

	@Test
	void aBadValueFailsStartupNamingThePropertyAndValue() {
		// Wrong whatever the machine: refused while binding (the printed report: UformFailureAnalyzerTest).
		this.contextRunner.withPropertyValues("uform.ram.threads=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("Failed to bind properties under "
					+ "'uform.ram'")
				.rootCause()
				.hasMessageContaining("must be at least 1");
		});
		// Wrong on this machine: refused by uform, reported as Boot reports a property's invalid value.
		this.contextRunner.withPropertyValues("uform.ram.memory-domains=42").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("Property uform.ram.memory-domains with value '42' is invalid: node 42 does not "
						+ "exist");
		});
	}

	@Order(1)
	static class First implements ExecutorForRamConfigCustomizer {

		@Override
		public ExecutorForRamConfig customize(ExecutorForRamConfig config) {
			return config.withThreads(config.threads() + 1);
		}
	}

	@Order(2)
	static class Second implements ExecutorForRamConfigCustomizer {

		@Override
		public ExecutorForRamConfig customize(ExecutorForRamConfig config) {
			return config.withThreads(config.threads() * 2);
		}
	}
}
