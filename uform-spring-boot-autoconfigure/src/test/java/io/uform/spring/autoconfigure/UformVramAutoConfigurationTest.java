package io.uform.spring.autoconfigure;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.Order;

import io.uform.Executor;
import io.uform.ExecutorForVramConfig;
import io.uform.GpuVendor;
import io.uform.ScratchStatistics;
import io.uform.Uform;
import io.uform.gpu.SimulatedRuntime;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The VRAM executor beans made from {@code uform.vram.*}, on the two simulated devices this module's
 * test JVM opts in to ({@code -Duform.devices.simulated=2}, set in its pom): when they are made,
 * mapping, customizers, injection beside the RAM executor, freeing on close, and a bad value failing
 * startup naming the property.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformVramAutoConfigurationTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	@Test
	void theTestJvmSeesTwoSimulatedDevices() {
		assertThat(Uform.gpuDevices()).hasSize(2).allSatisfy((device) -> assertThat(device.vendor())
			.isEqualTo(GpuVendor.SIMULATED));
	}

	@Test
	void autoMakesTheVramExecutorWhereDevicesExistAndPropertiesMapOntoItsConfig() {
		this.contextRunner
			.withPropertyValues("uform.vram.devices=1", "uform.vram.scratch-limit=64MB", "uform.vram.deferred-limit=8")
			.run((context) -> {
				ExecutorForVramConfig config = context.getBean(ExecutorForVramConfig.class);
				assertThat(config.devices()).containsExactly(1);
				assertThat(config.scratchLimit()).isEqualTo(64L << 20);
				Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
				assertThat(vram.kind()).isEqualTo(Executor.Kind.VRAM);
				assertThat(vram.statistics().devices()).containsExactly(1);
				assertThat(vram.statistics().deferredLimit()).isEqualTo(8);
				assertThat(vram.statistics().scratch()).extracting(ScratchStatistics::limitBytes).containsExactly(64L << 20);
				assertThat(context).hasBean("uformVramExecutorLifecycle");
			});
	}

	@Test
	void injectionByTypeKeepsGettingTheRamExecutorAndTheVramOneComesByName() {
		this.contextRunner.withBean(Consumer.class).run((context) -> {
			Consumer consumer = context.getBean(Consumer.class);
			assertThat(consumer.byType.kind()).isEqualTo(Executor.Kind.RAM);
			assertThat(consumer.byName.kind()).isEqualTo(Executor.Kind.VRAM);
			assertThat(context.getBean(Executor.class)).isSameAs(consumer.byType);
		});
	}

	@Test
	void theUsersOwnConfigAndExecutorBeansWin() {
		this.contextRunner.withPropertyValues("uform.vram.devices=0")
			.withBean("myVramConfig", ExecutorForVramConfig.class, () -> ExecutorForVramConfig.defaults().withDevices(List.of(1)))
			.run((context) -> {
				assertThat(context).doesNotHaveBean("uformVramExecutorConfig");
				Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
				assertThat(vram.statistics().devices()).containsExactly(1);
			});
		Executor own = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0)));
		try {
			// A plain bean, a default candidate as written: it is injected by name only, as the starter's
			// own VRAM executor is, so that an Executor injected by type still finds the RAM one alone.
			this.contextRunner.withBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class, () -> own)
				.withBean(Consumer.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)).isSameAs(own);
					assertThat(context).hasBean("uformVramExecutorLifecycle");
					Consumer consumer = context.getBean(Consumer.class);
					assertThat(consumer.byName).isSameAs(own);
					assertThat(consumer.byType.kind()).isEqualTo(Executor.Kind.RAM);
					assertThat(context.getBean(Executor.class)).isSameAs(consumer.byType);
				});
		}
		finally {
			own.free();
		}
	}

	@Test
	void falseMakesNoVramBeans() {
		this.contextRunner.withPropertyValues("uform.vram.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)
				.doesNotHaveBean(ExecutorForVramConfig.class)
				.doesNotHaveBean("uformVramExecutorLifecycle")
				.hasBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME));
	}

	@Test
	void customizersApplyInOrder() {
		this.contextRunner.withPropertyValues("uform.vram.scratch-limit=1MB")
			.withBean("second", ExecutorForVramConfigCustomizer.class, () -> new Twice())
			.withBean("first", ExecutorForVramConfigCustomizer.class, () -> new OneMore())
			.run((context) -> assertThat(context.getBean(ExecutorForVramConfig.class).scratchLimit())
				.isEqualTo(((1L << 20) + 1) * 2));
	}

	@Test
	void closingTheContextFreesTheVramExecutorAndItsDeviceMemory() {
		Executor[] made = new Executor[1];
		long before = SimulatedRuntime.system().usedBytes(0);
		this.contextRunner.withPropertyValues("uform.vram.devices=0").run((context) -> {
			made[0] = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
			made[0].lanes().get(0).reserve(1 << 20);
			assertThat(SimulatedRuntime.system().usedBytes(0)).isGreaterThan(before);
		});
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(SimulatedRuntime.system().usedBytes(0)).isEqualTo(before);
	}

	@Test
	void aDeviceThatDoesNotExistFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("uform.vram.devices=7").run((context) -> {
			assertThat(context).hasFailed();
			// Boot's own analyzer reports it, with the value and where it was set (UformFailureAnalyzerTest).
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("Property uform.vram.devices with value '7' is invalid")
				.hasMessageContaining("device 7 does not exist")
				.hasMessageContaining("0 = Simulated GPU 0");
		});
	}

	/** Injects both executors the way an application would. */
	static class Consumer {

		@Autowired
		Executor byType;

		@Autowired
		@Qualifier(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME)
		Executor byName;
	}

	@Order(1)
	static class OneMore implements ExecutorForVramConfigCustomizer {

		@Override
		public ExecutorForVramConfig customize(ExecutorForVramConfig config) {
			return config.withScratchLimit(config.scratchLimit() + 1);
		}
	}

	@Order(2)
	static class Twice implements ExecutorForVramConfigCustomizer {

		@Override
		public ExecutorForVramConfig customize(ExecutorForVramConfig config) {
			return config.withScratchLimit(config.scratchLimit() * 2);
		}
	}

}
