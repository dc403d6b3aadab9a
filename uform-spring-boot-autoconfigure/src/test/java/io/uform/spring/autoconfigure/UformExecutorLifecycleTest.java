package io.uform.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;

import io.uform.Executor;
import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Closing the context frees the RAM executor within {@code uform.shutdown.await-termination-period}:
 * submitted calls run when there is time, a call that never returns is reported by name and does not
 * hold up the close, and {@code await-termination=false} drops what is queued.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformExecutorLifecycleTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2");

	@Test
	void closingRunsTheCallsStillQueuedThenFreesTheExecutor() {
		AtomicInteger ran = new AtomicInteger();
		List<CompletableFuture<Object>> queued = new ArrayList<>();
		Executor[] made = new Executor[1];
		this.contextRunner.run((context) -> {
			made[0] = context.getBean(Executor.class);
			for (int c = 0; c < 20; c++) {
				queued.add(made[0].defer(() -> {
					Thread.sleep(2);
					ran.incrementAndGet();
					return null;
				}));
			}
		});
		assertThat(ran).hasValue(20);
		assertThat(queued).allSatisfy((future) -> assertThat(future).isCompletedWithValue(null));
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void theCloseSaysAtInfoThatTheExecutorWasFreedHowLongItTookAndWhatBecameOfItsCalls(CapturedOutput output) {
		Executor[] made = new Executor[1];
		this.contextRunner.run((context) -> {
			made[0] = context.getBean(Executor.class);
			made[0].defer(() -> {
				Thread.sleep(200);
				return null;
			});
		});
		assertThat(output).containsPattern("INFO .* Freed uform executor bean 'uformRamExecutor' \\(" + made[0].name()
				+ "\\) in \\d+ ms: 1 deferred call in flight when it closed, 1 finished");
		assertThat(output).as("one line per executor").containsOnlyOnce("Freed uform executor bean 'uformRamExecutor'");
	}

	@Test
	void aStoppedContextDrainsItsExecutorWhichServesAgainOnceStartedAndIsFreedOnClose() {
		AtomicInteger ran = new AtomicInteger();
		Executor[] made = new Executor[1];
		this.contextRunner.run((context) -> {
			made[0] = context.getBean(Executor.class);
			for (int c = 0; c < 10; c++) {
				made[0].defer(() -> {
					Thread.sleep(5);
					ran.incrementAndGet();
					return null;
				});
			}
			context.stop();
			assertThat(ran).as("calls run by the time stop() returns").hasValue(10);
			assertThat(made[0].statistics().state()).isEqualTo(Executor.State.RUNNING);
			context.start();
			assertThat(made[0].defer(() -> "again").get(10, TimeUnit.SECONDS)).isEqualTo("again");
			made[0].forN(4, (index) -> {
			});
		});
		assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void aCallThatNeverReturnsIsReportedAndDoesNotHoldUpTheClose(CapturedOutput output) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		Executor[] made = new Executor[1];
		long[] closeMillis = new long[1];
		try {
			this.contextRunner.withPropertyValues("uform.shutdown.await-termination-period=300ms").run((context) -> {
				made[0] = context.getBean(Executor.class);
				made[0].defer(new NeverReturns(release));
				long start = System.nanoTime();
				context.close();
				closeMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			});
			assertThat(closeMillis[0]).as("close took (ms)").isBetween(300L, 1300L);
			assertThat(made[0].statistics().state()).isEqualTo(Executor.State.FREED);
			// The period was spent refusing new calls and waiting for this one; the free that follows
			// waits no more, and must not say the work had no time ("within PT0S").
			assertThat(output).contains("uform executor bean 'uformRamExecutor' was freed with work unfinished after "
					+ "uform.shutdown.await-termination-period (PT0.3S): Executor '" + made[0].name()
					+ "' was freed without waiting for its work after refuseDeferred(PT0.3S) had given it that long: "
					+ "deferred call #1 (" + NeverReturns.class.getName() + ")")
				.doesNotContain("within PT0S");
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aStartupThatFailsAfterTheExecutorWasMadeFreesItWithinThePeriod(CapturedOutput output) {
		// A failed refresh destroys the beans without stopping their lifecycles: the executor's destroy
		// method alone would wait for the call as long as it runs, and the failure would never be reported.
		CountDownLatch release = new CountDownLatch(1);
		STUCK.set(new NeverReturns(release));
		long[] millis = new long[1];
		try {
			long start = System.nanoTime();
			this.contextRunner.withPropertyValues("uform.shutdown.await-termination-period=300ms")
				.withBean(DefersAtStartup.class)
				.withBean(FailsAfterTheExecutor.class)
				.run((context) -> assertThat(context).hasFailed());
			millis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(DefersAtStartup.made.statistics().state()).isEqualTo(Executor.State.FREED);
			assertThat(millis[0]).as("failed start and close took (ms)").isLessThan(5_000);
			assertThat(output).contains("uform executor bean 'uformRamExecutor' was freed with work unfinished after "
					+ "uform.shutdown.await-termination-period (PT0.3S)")
				.contains("deferred call #1 (" + NeverReturns.class.getName() + ")");
		}
		finally {
			release.countDown();
			STUCK.set(null);
		}
	}

	@Test
	void theShutdownPhaseTimeoutBoundsALongerAwaitTerminationPeriod(CapturedOutput output) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		long[] closeMillis = new long[1];
		try {
			this.contextRunner
				.withPropertyValues("uform.shutdown.await-termination-period=30s",
						"spring.lifecycle.timeout-per-shutdown-phase=400ms")
				.run((context) -> {
					context.getBean(Executor.class).defer(new NeverReturns(release));
					long start = System.nanoTime();
					context.close();
					closeMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				});
			assertThat(closeMillis[0]).as("close took (ms)").isBetween(400L, 1400L);
			assertThat(output).contains("uform.shutdown.await-termination-period (PT30S) is longer than "
					+ "spring.lifecycle.timeout-per-shutdown-phase (PT0.4S)");
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void withoutAwaitTerminationTheQueuedCallsAreDroppedAtOnce(CapturedOutput output) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		List<CompletableFuture<Integer>> queued = new ArrayList<>();
		try {
			this.contextRunner.withPropertyValues("uform.shutdown.await-termination=false").run((context) -> {
				Executor executor = context.getBean(Executor.class);
				executor.defer(() -> {
					running.countDown();
					release.await();
					return 0;
				});
				running.await();
				for (int c = 1; c <= 3; c++) {
					int value = c;
					queued.add(executor.defer(() -> value));
				}
			});
			for (CompletableFuture<Integer> future : queued) {
				assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
					.cause()
					.isInstanceOf(UformException.class)
					.hasMessageContaining("dropped deferred call");
			}
			assertThat(output).contains("uform executor bean 'uformRamExecutor' was freed with work unfinished at once, "
					+ "as uform.shutdown.await-termination is false");
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void withoutAwaitTerminationIdleExecutorsCloseWithoutAWarning(CapturedOutput output) {
		// A period of zero used to end before idle threads could, and every such close warned of
		// unfinished work that did not exist. Several rounds: it happened some of the time.
		for (int round = 0; round < 10; round++) {
			this.contextRunner
				.withPropertyValues("uform.shutdown.await-termination=false", "uform.ram.threads=4",
						"uform.vram.devices=0")
				.run((context) -> {
					context.getBean(Executor.class).forN(8, (index) -> {
					});
					assertThat(context).hasBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
				});
		}
		assertThat(output).doesNotContain("work unfinished").doesNotContain("could not be freed");
	}

	@Test
	void theExecutorStopsAfterTheWebServersGracefulShutdownAndBeforeTheServerStops() {
		// Boot's phases: graceful shutdown DEFAULT_PHASE - 1024, web server stop DEFAULT_PHASE - 2048;
		// lifecycles stop from the highest phase down.
		assertThat(UformExecutorLifecycle.PHASE).isLessThan(SmartLifecycle.DEFAULT_PHASE - 1024)
			.isGreaterThan(SmartLifecycle.DEFAULT_PHASE - 2048);
		this.contextRunner.run((context) -> assertThat(context).hasBean("uformRamExecutorLifecycle"));
		this.contextRunner.withPropertyValues("uform.ram.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("uformRamExecutorLifecycle"));
	}

	/** A deferred call that ignores interrupts until released: a named class, so the report can name it. */
	/** The call {@link DefersAtStartup} defers. */
	static final AtomicReference<java.util.concurrent.Callable<Void>> STUCK = new AtomicReference<>();

	/** A bean that defers a call on the RAM executor while the context starts. */
	static final class DefersAtStartup {

		static volatile Executor made;

		DefersAtStartup(Executor ram) {
			made = ram;
			ram.defer(STUCK.get());
		}
	}

	/** A bean made after the executor whose constructor fails, so that the refresh fails. */
	static final class FailsAfterTheExecutor {

		FailsAfterTheExecutor(DefersAtStartup before) {
			throw new IllegalStateException("this bean fails after the executor was made");
		}
	}

	static final class NeverReturns implements java.util.concurrent.Callable<Void> {

		private final CountDownLatch release;

		NeverReturns(CountDownLatch release) {
			this.release = release;
		}

		@Override
		public Void call() {
			while (true) {
				try {
					this.release.await();
					return null;
				}
				catch (InterruptedException ex) {
					// Stuck means stuck.
				}
			}
		}
	}
}
