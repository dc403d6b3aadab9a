package io.uform.spring.autoconfigure;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Executors the application defines as beans are managed as the starter's are: each gets its own
 * lifecycle, is freed at that lifecycle's phase within the shutdown period, and says so in its own
 * "Made", "Freed" and shutdown-WARN lines, under its own bean name.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformApplicationExecutorBeansTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1", "uform.vram.enabled=false")
		.withUserConfiguration(RerankerConfiguration.class);

	@Test
	void anApplicationsExecutorBeanGetsItsOwnLifecycleAndMadeAndFreedLines(CapturedOutput output) {
		Executor[] reranker = new Executor[1];
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean("rerankerLifecycle").hasBean("uformRamExecutorLifecycle");
			reranker[0] = context.getBean("reranker", Executor.class);
			assertThat(context.getBean(Executor.class)).as("still the injected default")
				.isSameAs(context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME));
		});
		assertThat(reranker[0].statistics().state()).isEqualTo(Executor.State.FREED);
		assertThat(output).containsOnlyOnce("Made uform RAM executor bean 'reranker' (" + reranker[0].name() + "): 1 thread")
			.containsOnlyOnce("Made uform RAM executor bean 'uformRamExecutor'")
			.containsOnlyOnce("Freed uform executor bean 'reranker' (" + reranker[0].name() + ")")
			.containsOnlyOnce("Freed uform executor bean 'uformRamExecutor'");
	}

	@Test
	void anApplicationsExecutorIsFreedAtTheLifecyclePhaseBeforeLaterPhasesStop() {
		this.contextRunner.withBean(SeesRerankerAtStop.class).run((context) -> {
			SeesRerankerAtStop seen = context.getBean(SeesRerankerAtStop.class);
			seen.reranker = context.getBean("reranker", Executor.class);
			context.close();
			assertThat(seen.stateAtStop).isEqualTo(Executor.State.FREED);
		});
	}

	@Test
	void aCallThatOutlastsThePeriodIsReportedUnderItsOwnExecutorsName(CapturedOutput output) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		try {
			this.contextRunner.withPropertyValues("uform.shutdown.await-termination-period=200ms").run((context) -> {
				context.getBean("reranker", Executor.class).defer(() -> {
					release.await();
					return null;
				});
			});
		}
		finally {
			release.countDown();
		}
		assertThat(output).contains("uform executor bean 'reranker' was freed with work unfinished after "
				+ "uform.shutdown.await-termination-period (PT0.2S)")
			.doesNotContain("uform executor bean 'uformRamExecutor' was freed with work unfinished");
	}

	@Test
	void aLifecycleTheApplicationNamesForItsExecutorIsKept() {
		this.contextRunner.withBean("rerankerLifecycle", String.class, () -> "the application's").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("rerankerLifecycle")).isEqualTo("the application's");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class RerankerConfiguration {

		@Bean(defaultCandidate = false)
		Executor reranker() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		}
	}

	/** Stops after the executors' phase and notes the state the application's executor is in by then. */
	static class SeesRerankerAtStop implements SmartLifecycle {

		volatile Executor reranker;

		volatile Executor.State stateAtStop;

		private volatile boolean running;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.stateAtStop = this.reranker.statistics().state();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return UformExecutorLifecycle.PHASE - 1;
		}
	}
}
