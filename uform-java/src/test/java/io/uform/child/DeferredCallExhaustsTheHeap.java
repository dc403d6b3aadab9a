package io.uform.child;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Child JVM: a deferred call fills the heap and throws, so the deferred thread must finish it (count
 * it, complete its future with a failure, which allocates) with no memory left; the heap is emptied
 * half a second later. The call's future must complete, later calls must run, and free must return.
 * The deferred thread once died of the OutOfMemoryError there, and the executor hung.
 */
public final class DeferredCallExhaustsTheHeap {


	private static volatile boolean full;

	private DeferredCallExhaustsTheHeap() {
	}

	public static void main(String[] args) throws Exception {
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
		CompletableFuture<Object> filler = executor.defer(() -> {
			// Made while there is room; thrown when there is none.
			RuntimeException thrown = new IllegalStateException("the heap is full");
			HeapHoard.fill();
			full = true;
			throw thrown;
		});
		while (!full) {
			Thread.sleep(10);
		}
		Thread.sleep(500);
		HeapHoard.clear();
		System.gc();
		try {
			filler.get(10, TimeUnit.SECONDS);
			System.out.println("filler: returned?");
		}
		catch (java.util.concurrent.ExecutionException ex) {
			System.out.println("filler failed with: " + ex.getCause().getMessage());
		}
		System.out.println("next call: " + executor.defer(() -> "ran").get(10, TimeUnit.SECONDS));
		executor.free(Duration.ofSeconds(10));
		System.out.println("state: " + executor.statistics().state() + ", completed "
				+ executor.statistics().deferredCompleted() + ", failed " + executor.statistics().deferredFailed());
		System.out.flush();
		Runtime.getRuntime().halt(0);
	}
}
