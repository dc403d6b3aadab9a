package io.uform.child;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Child JVM: which {@code uform-*} threads are alive as executors come and go, the shared completion
 * pool's included. Two executors complete calls whose continuations block a moment (so the pool holds
 * several threads); one is freed, then the other; then a third is made, used and freed. Prints the live
 * uform threads after each step, and how long the last ones took to exit.
 */
public final class NoThreadAfterFree {

	private NoThreadAfterFree() {
	}

	public static void main(String[] args) throws Exception {
		Executor first = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		Executor second = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		complete(first, 3);
		complete(second, 3);
		first.free();
		System.out.println("one executor left: " + completionThreads() + " completion threads");
		second.free();
		System.out.println("after the last free: " + awaitNoUformThread());
		Executor third = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		complete(third, 2);
		TimeUnit.MILLISECONDS.sleep(300);
		System.out.println("an executor again, idle 300 ms: " + completionThreads() + " completion threads");
		third.free();
		System.out.println("after its free: " + awaitNoUformThread());
	}

	/**
	 * Defers {@code calls} calls whose continuations all run at once, so each needs a thread of its own.
	 * The first call waits until every continuation is attached: a future complete before its
	 * continuation is attached would run it on this thread instead.
	 */
	private static void complete(Executor executor, int calls) throws Exception {
		CountDownLatch attached = new CountDownLatch(1);
		CountDownLatch together = new CountDownLatch(calls);
		List<CompletableFuture<?>> continued = new ArrayList<>();
		for (int call = 0; call < calls; call++) {
			boolean first = call == 0;
			continued.add(executor.defer(() -> {
				if (first && !attached.await(10, TimeUnit.SECONDS)) {
					throw new IllegalStateException("the continuations were never attached");
				}
				return "done";
			}).thenAccept((value) -> {
				together.countDown();
				try {
					together.await(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}));
		}
		attached.countDown();
		CompletableFuture.allOf(continued.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
	}

	private static long completionThreads() {
		return uformThreads().stream().filter((name) -> name.startsWith("uform-completion-")).count();
	}

	private static List<String> uformThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith("uform-"))
			.sorted()
			.toList();
	}

	/** Waits at most 5 s for every uform thread to exit; says which are left, or how long it took. */
	private static String awaitNoUformThread() throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + TimeUnit.SECONDS.toNanos(5);
		List<String> left = uformThreads();
		while (!left.isEmpty() && System.nanoTime() - deadline < 0) {
			TimeUnit.MILLISECONDS.sleep(10);
			left = uformThreads();
		}
		return left.isEmpty() ? "no uform thread, within " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
				+ " ms" : "still alive after 5 s: " + left;
	}
}
