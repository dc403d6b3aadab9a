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

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Mood;
import io.uform.spring.autoconfigure.UformExecutorLifecycleTest.NeverReturns;
import io.uform.spring.autoconfigure.diagnostics.UformBindFailureAnalyzer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ways a context can end other than a clean close, and the settings that could make freeing the
 * executors wait forever: a negative period, a lifecycle that fails to start after the executors were
 * made, settings that do not bind when the beans are destroyed, and a stop and start that must keep
 * the executor as the application left it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformShutdownEdgesTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2");

	@Test
	void aNegativeAwaitTerminationPeriodFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("uform.shutdown.await-termination-period=-1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("must be zero (free at once) or positive");
			// The analysis Boot prints names the property (the printed report: UformFailureAnalyzerTest).
			assertThat(new UformBindFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("uform.shutdown.await-termination-period = -1s is invalid");
		});
	}

	@Test
	void aNegativeShutdownPhaseTimeoutFreesAtOnceInsteadOfHangingOnACallThatNeverReturns() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		Executor[] made = new Executor[1];
		try {
			this.contextRunner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=-1s").run((context) -> {
				made[0] = context.getBean(Executor.class);
				made[0].defer(new NeverReturns(release));
				Thread closer = new Thread(context::close, "closer");
				closer.setDaemon(true);
				closer.start();
				closer.join(10_000);
				assertThat(closer.isAlive()).as("close still running after 10 s").isFalse();
			});
			assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aLifecycleThatFailsToStartFreesTheExecutorsOnceNotDrainsThemForARestartThatNeverComes(
			CapturedOutput output) {
		CountDownLatch release = new CountDownLatch(1);
		DefersAtStartup.stuck = new NeverReturns(release);
		long start = System.nanoTime();
		try {
			this.contextRunner.withPropertyValues("uform.shutdown.await-termination-period=1s")
				.withBean(DefersAtStartup.class)
				.withBean(FailsToStart.class)
				.run((context) -> assertThat(context).hasFailed());
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(DefersAtStartup.made.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThat(output).doesNotContain("the executor serves again when the context starts")
				.contains("uform executor bean 'uformRamExecutor' was freed with work unfinished");
			// One period, not a drain's period and then the destruction's.
			assertThat(millis).as("failed start reported after (ms)").isLessThan(1_900);
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aStartThatFailsOnAPhaseTimeoutThatDoesNotBindStillFreesTheExecutor() {
		TakesTheExecutor.made = null;
		this.contextRunner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=30sec")
			.withBean(TakesTheExecutor.class)
			.run((context) -> assertThat(context).hasFailed());
		assertThat(TakesTheExecutor.made.statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void aStartThatFailsOnAnAwaitPeriodThatDoesNotBindStillFreesTheUsersConfigsExecutor() {
		TakesTheExecutor.made = null;
		this.contextRunner.withPropertyValues("uform.shutdown.await-termination-period=30sec")
			.withBean(ExecutorForRamConfig.class, () -> ExecutorForRamConfig.defaults().withThreads(2))
			.withBean(TakesTheExecutor.class)
			.run((context) -> assertThat(context).hasFailed());
		assertThat(TakesTheExecutor.made.statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void stopAndStartKeepTheMoodTheApplicationChose() {
		this.contextRunner.run((context) -> {
			Executor ram = context.getBean(Executor.class);
			ram.drain(Mood.GRINDING);
			context.stop();
			assertThat(ram.statistics().state()).isEqualTo(Executor.State.RUNNING);
			context.start();
			assertThat(ram.statistics().mood()).isEqualTo(Mood.GRINDING);
		});
	}

	/** Takes the executor and leaves a call that never returns on it while the context starts. */
	static final class DefersAtStartup {

		static volatile NeverReturns stuck;

		static volatile Executor made;

		DefersAtStartup(Executor ram) {
			made = ram;
			ram.defer(stuck);
		}
	}

	/** At the default phase, as message-listener containers are, after the executors; its start fails. */
	static final class FailsToStart implements SmartLifecycle {

		FailsToStart(DefersAtStartup before) {
		}

		@Override
		public void start() {
			throw new IllegalStateException("broker unreachable");
		}

		@Override
		public void stop() {
		}

		@Override
		public boolean isRunning() {
			return false;
		}
	}

	/** A bean made before the lifecycles, so that the executor exists when the startup fails. */
	static final class TakesTheExecutor {

		static volatile Executor made;

		TakesTheExecutor(Executor ram) {
			made = ram;
		}
	}
}
