package io.uform.child;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Child JVM: exits while one deferred call runs and three wait in the queue.
 * <ul>
 * <li>No argument: nobody frees the executor, and the running call never returns. The queued calls'
 * futures must complete (exceptionally, FREED) before the JVM is gone, so whoever waits on them
 * hears.</li>
 * <li>{@code owner}: the executor is left to an owner ({@link Executor#leaveExitToOwner()}) whose own
 * shutdown hook frees it with a period, as a Spring context closed by SIGTERM does; the running call
 * returns after a while. The queued calls must run, not be dropped by uform's hook meanwhile.</li>
 * </ul>
 */
public final class CallsQueuedAtExit {

	private CallsQueuedAtExit() {
	}

	public static void main(String[] args) throws Exception {
		boolean owner = args.length > 0 && args[0].equals("owner");
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		if (owner) {
			executor.leaveExitToOwner();
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				executor.free(Duration.ofSeconds(20));
				System.out.println("owner freed the executor");
			}, "owner-exit"));
		}
		CountDownLatch running = new CountDownLatch(1);
		executor.defer(() -> {
			running.countDown();
			if (owner) {
				// Long enough for uform's own hook, which runs at once, to have dropped the queue.
				Thread.sleep(500);
			}
			else {
				new CountDownLatch(1).await();
			}
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
