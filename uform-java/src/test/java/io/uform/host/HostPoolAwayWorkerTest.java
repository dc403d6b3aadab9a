package io.uform.host;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker whose share the caller had to run, and that has not come back since, is not waited for
 * again (see "Waiting" in {@link ForkWait}). The worker is kept away for real: the escape's pinner,
 * which a late worker calls after finding its share taken, holds it until the test lets it go. The
 * caller's late forks are counted where the pool counts them, in the pinner's {@code currentCpu}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostPoolAwayWorkerTest {

	/** Forks run while the worker is away. */
	private static final int FORKS_AWAY = 200;

	@Test
	void aWorkerStillAwayAfterItsShareWasTakenIsNotWaitedForAgain() throws Exception {
		CountDownLatch away = new CountDownLatch(1);
		CountDownLatch comeBack = new CountDownLatch(1);
		AtomicInteger callerLateForks = new AtomicInteger();
		ThreadPinner holding = new ThreadPinner() {

			@Override
			public String pinCurrentThread(int[] cpus) {
				return null;
			}

			@Override
			public int currentCpu() {
				if (!(Thread.currentThread() instanceof HostWorker)) {
					callerLateForks.incrementAndGet();
					return 0;
				}
				away.countDown();
				try {
					comeBack.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				// Another CPU than the caller's: the worker neither moves nor yields.
				return 1;
			}
		};
		var pool = new HostPool<>("away-test", 2, new int[2], (thread) -> {
		}, Thread::start, new CpuEscape(() -> holding, Runnable::run, 1), Fixtures.BODIES, Fixtures.ERRORS);
		try {
			AtomicInteger slices = new AtomicInteger();
			SliceCounter counter = new SliceCounter(slices);
			// A parked worker takes far longer than the pick-up deadline to wake, so a fork after a
			// pause finds it late; once it is, it finds its share taken and is held in the pinner.
			int tries = 0;
			while (!away.await(20, TimeUnit.MILLISECONDS)) {
				assertThat(++tries).as("forks after a pause until one found the worker late").isLessThan(500);
				pool.forSlices(2, counter);
			}
			int lateBefore = callerLateForks.get();
			int slicesBefore = slices.get();
			for (int fork = 0; fork < FORKS_AWAY; fork++) {
				pool.forSlices(2, counter);
			}
			assertThat(slices.get() - slicesBefore).as("items run, each once").isEqualTo(2 * FORKS_AWAY);
			// The first fork after the worker was held may still wait for it: it had seen the fork
			// whose share was taken. Every later one knows it is away.
			assertThat(callerLateForks.get() - lateBefore).as("forks that waited out the pick-up deadline of %d", FORKS_AWAY)
				.isLessThanOrEqualTo(1);

			comeBack.countDown();
			AtomicBoolean workerServed = new AtomicBoolean();
			for (int fork = 0; fork < 100_000 && !workerServed.get(); fork++) {
				pool.forSlices(2, (first, length, thread, colocation) -> {
					if (Thread.currentThread() instanceof HostWorker) {
						workerServed.set(true);
					}
				});
			}
			assertThat(workerServed).as("the worker picks forks up again once back").isTrue();
		}
		finally {
			comeBack.countDown();
			pool.stop();
		}
	}

	/** Counts the items of every slice it runs. */
	private record SliceCounter(AtomicInteger items) implements io.uform.SliceTask {

		@Override
		public void run(int first, int length, int thread, int colocation) {
			this.items.addAndGet(length);
		}
	}
}
