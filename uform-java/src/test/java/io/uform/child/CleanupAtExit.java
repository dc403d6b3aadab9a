package io.uform.child;

import java.util.concurrent.CountDownLatch;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Mood;

/**
 * Child JVM: exits while one deferred call runs for ever and another waits in the queue with a cleanup
 * continuation that frees the executor (arg {@code free}, as a cleanup of a dropped call may) or
 * drains it (arg {@code drain}). uform's exit hook drops the queued call; its continuation must run,
 * and must not hold up the exit, although it waits for the call that never returns.
 */
public final class CleanupAtExit {

	private CleanupAtExit() {
	}

	public static void main(String[] args) throws Exception {
		boolean drain = args.length > 0 && args[0].equals("drain");
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(() -> {
			running.countDown();
			new CountDownLatch(1).await();
			return null;
		});
		executor.defer(() -> "queued").whenComplete((value, failure) -> {
			System.out.println("continuation: " + failure);
			try {
				if (drain) {
					executor.drain(Mood.PARKED);
				}
				else {
					executor.free();
				}
				System.out.println("cleanup returned");
			}
			catch (Throwable ex) {
				System.out.println("cleanup threw " + ex);
			}
		});
		running.await();
		System.out.println("exiting");
		System.out.flush();
		System.exit(0);
	}
}
