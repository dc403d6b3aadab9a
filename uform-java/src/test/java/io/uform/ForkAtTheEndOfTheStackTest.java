package io.uform;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Forks from threads whose stacks are nearly used up, at every depth near the end, so that the
 * {@link StackOverflowError} lands in every frame of the fork in turn: in the task, in the caller's
 * wait, in waking the workers. Whatever frame it lands in, the fork must not return before its
 * workers are done; once it returned early, a stale worker count made every later fork of the
 * executor wait forever.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForkAtTheEndOfTheStackTest {

	@Test
	void forksThatRunOutOfStackNeverLeaveTheExecutorHung() throws Exception {
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			List<String> hung = new ArrayList<>();
			// Stack sizes in small steps, so that the deepest fork of each thread ends at a different
			// offset into the fork's own frames.
			for (int round = 0; round < 40 && hung.isEmpty(); round++) {
				Thread deep = new Thread(null, () -> forkDeeperUntilTheStackEnds(executor), "deep-" + round,
						128 * 1024 + round * 328L);
				deep.start();
				deep.join(10_000);
				if (deep.isAlive()) {
					StackTraceElement[] where = deep.getStackTrace();
					hung.add(deep.getName() + " at " + ((where.length > 2) ? where[2] : "?"));
				}
			}
			assertThat(hung).as("forks that never returned").isEmpty();
			Thread fresh = new Thread(() -> executor.forThreads((thread, colocation) -> {
			}), "fresh");
			fresh.start();
			fresh.join(10_000);
			assertThat(fresh.isAlive()).as("a later fork from a fresh thread still waiting").isFalse();
		}
	}

	/** Forks at each depth until a fork overflows; worker 1 is slow, so the caller waits for it. */
	private static int forkDeeperUntilTheStackEnds(Executor executor) {
		try {
			executor.forThreads((thread, colocation) -> {
				if (thread == 1) {
					long end = System.nanoTime() + 200_000;
					while (System.nanoTime() < end) {
						Thread.onSpinWait();
					}
				}
			});
		}
		catch (StackOverflowError ex) {
			return 0;
		}
		return forkDeeperUntilTheStackEnds(executor) + 1;
	}
}
