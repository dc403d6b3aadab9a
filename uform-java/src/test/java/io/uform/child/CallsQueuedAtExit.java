package io.uform.child;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Child JVM: exits while one deferred call runs and three wait in the queue. The queued calls'
 * futures must complete (exceptionally, FREED) before the JVM is gone, so whoever waits on them hears.
 */
public final class CallsQueuedAtExit {

	private CallsQueuedAtExit() {
	}

	public static void main(String[] args) throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(() -> {
			running.countDown();
			new CountDownLatch(1).await();
			return null;
		});
		for (int c = 1; c <= 3; c++) {
			int call = c;
			CompletableFuture<String> future = executor.defer(() -> "ran " + call);
			future.whenComplete((value, failure) -> System.out.println("queued call " + call + ": "
					+ ((failure != null) ? failure.getClass().getSimpleName() + ": " + failure.getMessage() : value)));
		}
		running.await();
		System.out.println("exiting");
		System.out.flush();
		System.exit(0);
	}
}
