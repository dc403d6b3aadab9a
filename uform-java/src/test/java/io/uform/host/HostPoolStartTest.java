package io.uform.host;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntConsumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pool is fully placed when its constructor returns: every worker has run its start hook (where
 * executors pin), so an executor's description never reports a pinning outcome not yet known.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HostPoolStartTest {

	@Test
	void constructorReturnsOnlyAfterEveryWorkerRanItsStartHook() throws Exception {
		AtomicIntegerArray hookDone = new AtomicIntegerArray(4);
		var pool = new HostPool<>("start-test", 4, new int[4], (thread) -> {
			try {
				Thread.sleep(30);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			hookDone.set(thread, 1);
		}, Fixtures.BODIES, Fixtures.ERRORS);
		try {
			for (int t = 1; t < 4; t++) {
				assertThat(hookDone.get(t)).as("worker %d's hook", t).isEqualTo(1);
			}
		}
		finally {
			pool.stop();
		}
	}

	@Test
	void aStartHookThrowingAnErrorStillLeavesAWorkingPool() throws Exception {
		assertServesAfterAFailingStartHook((thread) -> {
			throw new AssertionError("pinning assertion " + thread);
		});
	}

	@Test
	void aFailingStartHookStillLeavesAWorkingPool() throws Exception {
		assertServesAfterAFailingStartHook((thread) -> {
			throw new IllegalStateException("cannot pin " + thread);
		});
	}

	private static void assertServesAfterAFailingStartHook(IntConsumer hook) throws InterruptedException {
		var pool = new HostPool<>("start-fail", 3, new int[3], hook, Fixtures.BODIES, Fixtures.ERRORS);
		try {
			AtomicIntegerArray visits = new AtomicIntegerArray(30);
			pool.forN(30, (index, thread, colocation) -> visits.incrementAndGet(index));
			for (int i = 0; i < 30; i++) {
				assertThat(visits.get(i)).isEqualTo(1);
			}
		}
		finally {
			pool.stop();
		}
	}
}
