package io.uform.child;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Child JVM (small heap): every thread's task fills the heap until it runs out, fork after fork,
 * and the heap stays full while the threads record their failures. Each fork must return (with the
 * error) and the executor must keep serving and free cleanly; a worker killed by an error while
 * recording its failure would hang the next fork.
 */
public final class TasksExhaustTheHeap {

	private TasksExhaustTheHeap() {
	}

	public static void main(String[] args) {
		int forks = 20;
		int failedForks = 0;
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(4));
		for (int fork = 0; fork < forks; fork++) {
			try {
				executor.forThreads((thread, colocation) -> {
					// Made while there is room; thrown when there is none, so throwing allocates nothing.
					RuntimeException full = new IllegalStateException("the heap is full, says thread " + thread);
					HeapHoard.fill();
					throw full;
				});
			}
			catch (RuntimeException | OutOfMemoryError ex) {
				failedForks++;
			}
			HeapHoard.clear();
		}
		long[] sum = new long[1];
		executor.forN(1000, (index) -> {
			synchronized (sum) {
				sum[0] += index;
			}
		});
		executor.free(java.time.Duration.ofSeconds(30));
		System.out.println("forks that threw: " + failedForks + " of " + forks);
		System.out.println("sum after: " + sum[0]);
		System.out.println("state: " + executor.statistics().state());
		System.out.flush();
		// Give a stuck worker no chance to hide: the executor's threads are daemons.
		Runtime.getRuntime().halt(0);
	}
}
