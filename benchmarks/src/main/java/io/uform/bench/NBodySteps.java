package io.uform.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

import io.uform.ProngTask;
import io.uform.SliceTask;

/**
 * One n-body step ({@link NBodySystem}: phase 1 accelerations, then phase 2 moves) with each
 * implementation, every one forking twice per step with the join as the barrier between the
 * phases. Task objects that can be reused are made once, in the constructor; what an idiom has to
 * allocate per fork (latches, RecursiveActions, stream pipelines) it allocates per fork.
 */
public final class NBodySteps {

	/** The implementations, in the order reports list them. */
	public enum Implementation {
		/** Both phases on the calling thread: the reference. */
		SERIAL {
			@Override
			public void step(NBodySteps steps) {
				steps.serial();
			}
		},
		/** uform {@code forN}, two forks per step. */
		UFORM_FOR_N {
			@Override
			public void step(NBodySteps steps) {
				steps.uformForN();
			}
		},
		/** uform {@code forSlices}, two forks per step, one call per thread. */
		UFORM_FOR_SLICES {
			@Override
			public void step(NBodySteps steps) {
				steps.uformForSlices();
			}
		},
		/** {@code IntStream.range(0, n).parallel().forEach}, twice, on the common pool. */
		PARALLEL_STREAM_COMMON_POOL {
			@Override
			public void step(NBodySteps steps) {
				steps.parallelStreamCommonPool();
			}
		},
		/** The same on a ForkJoinPool of {@code threads} workers. */
		PARALLEL_STREAM_ON_POOL {
			@Override
			public void step(NBodySteps steps) {
				steps.parallelStreamOnPool();
			}
		},
		/** {@code ForkJoinPool.invokeAll} of one Callable per thread, twice. */
		FORK_JOIN_INVOKE_ALL {
			@Override
			public void step(NBodySteps steps) {
				steps.forkJoinInvokeAll();
			}
		},
		/** {@code invoke} of a root that {@code invokeAll}s one RecursiveAction per thread, twice. */
		FORK_JOIN_RECURSIVE_ACTIONS {
			@Override
			public void step(NBodySteps steps) {
				steps.forkJoinRecursiveActions();
			}
		},
		/** ThreadPoolExecutor, one task per thread, latch; twice. */
		THREAD_POOL_LATCH {
			@Override
			public void step(NBodySteps steps) {
				steps.threadPoolLatch();
			}
		},
		/** ThreadPoolExecutor, the caller runs chunk 0, latch; twice. */
		THREAD_POOL_LATCH_CALLER_RUNS {
			@Override
			public void step(NBodySteps steps) {
				steps.threadPoolLatchCallerRuns();
			}
		},
		/** Spring's ThreadPoolTaskExecutor, one task per thread, latch; twice. */
		SPRING_LATCH {
			@Override
			public void step(NBodySteps steps) {
				steps.springLatch();
			}
		};

		/**
		 * Runs one step of {@code steps}' system with this implementation.
		 * @param steps the system and pools
		 */
		public abstract void step(NBodySteps steps);
	}

	private final Pools pools;

	private final NBodySystem system;

	private final int n;

	private final int threads;

	private final IntConsumer accelerateOne;

	private final IntConsumer moveOne;

	private final ProngTask accelerateProng;

	private final ProngTask moveProng;

	private final SliceTask accelerateSlice;

	private final SliceTask moveSlice;

	private final IntConsumer accelerateChunk;

	private final IntConsumer moveChunk;

	private final List<Callable<Void>> accelerateCallables;

	private final List<Callable<Void>> moveCallables;

	/**
	 * Prepares every implementation's tasks for one system.
	 * @param pools the pools, whose {@code threads} sets the chunk count
	 * @param system the system the steps advance
	 */
	public NBodySteps(Pools pools, NBodySystem system) {
		this.pools = pools;
		this.system = system;
		this.n = system.size();
		this.threads = pools.threads();
		int count = this.n;
		int parts = this.threads;
		this.accelerateOne = system::accelerate;
		this.moveOne = system::move;
		this.accelerateProng = (index, thread, colocation) -> system.accelerate(index);
		this.moveProng = (index, thread, colocation) -> system.move(index);
		this.accelerateSlice = (first, length, thread, colocation) -> system.accelerate(first, first + length);
		this.moveSlice = (first, length, thread, colocation) -> system.move(first, first + length);
		this.accelerateChunk = (t) -> system.accelerate(Work.sliceStart(t, count, parts), Work.sliceStart(t + 1, count, parts));
		this.moveChunk = (t) -> system.move(Work.sliceStart(t, count, parts), Work.sliceStart(t + 1, count, parts));
		this.accelerateCallables = callables(this.accelerateChunk, parts);
		this.moveCallables = callables(this.moveChunk, parts);
	}

	private static List<Callable<Void>> callables(IntConsumer chunk, int parts) {
		List<Callable<Void>> list = new ArrayList<>(parts);
		for (int t = 0; t < parts; t++) {
			int index = t;
			list.add(() -> {
				chunk.accept(index);
				return null;
			});
		}
		return List.copyOf(list);
	}

	/** See {@link Implementation#SERIAL}. */
	public void serial() {
		this.system.stepSerial();
	}

	/** See {@link Implementation#UFORM_FOR_N}. */
	public void uformForN() {
		this.pools.uform().forN(this.n, this.accelerateProng);
		this.pools.uform().forN(this.n, this.moveProng);
	}

	/** See {@link Implementation#UFORM_FOR_SLICES}. */
	public void uformForSlices() {
		this.pools.uform().forSlices(this.n, this.accelerateSlice);
		this.pools.uform().forSlices(this.n, this.moveSlice);
	}

	/**
	 * See {@link Implementation#PARALLEL_STREAM_COMMON_POOL}. The common pool has
	 * {@code cores - 1} workers and the calling thread joins in, so on a machine whose
	 * {@code threads} equals its cores this is the same thread count as the others.
	 */
	public void parallelStreamCommonPool() {
		IntStream.range(0, this.n).parallel().forEach(this.accelerateOne);
		IntStream.range(0, this.n).parallel().forEach(this.moveOne);
	}

	/** See {@link Implementation#PARALLEL_STREAM_ON_POOL}. */
	public void parallelStreamOnPool() {
		this.pools.parallelStreamOnPool(this.n, this.accelerateOne);
		this.pools.parallelStreamOnPool(this.n, this.moveOne);
	}

	/** See {@link Implementation#FORK_JOIN_INVOKE_ALL}. */
	public void forkJoinInvokeAll() {
		this.pools.forkJoinInvokeAll(this.accelerateCallables);
		this.pools.forkJoinInvokeAll(this.moveCallables);
	}

	/** See {@link Implementation#FORK_JOIN_RECURSIVE_ACTIONS}. */
	public void forkJoinRecursiveActions() {
		this.pools.forkJoinRecursiveActions(this.threads, this.accelerateChunk);
		this.pools.forkJoinRecursiveActions(this.threads, this.moveChunk);
	}

	/** See {@link Implementation#THREAD_POOL_LATCH}. */
	public void threadPoolLatch() {
		Pools.latch(this.pools.threadPool(), this.threads, this.accelerateChunk);
		Pools.latch(this.pools.threadPool(), this.threads, this.moveChunk);
	}

	/** See {@link Implementation#THREAD_POOL_LATCH_CALLER_RUNS}. */
	public void threadPoolLatchCallerRuns() {
		Pools.latchCallerRuns(this.pools.threadPool(), this.threads, this.accelerateChunk);
		Pools.latchCallerRuns(this.pools.threadPool(), this.threads, this.moveChunk);
	}

	/** See {@link Implementation#SPRING_LATCH}. */
	public void springLatch() {
		Pools.latch(this.pools.spring(), this.threads, this.accelerateChunk);
		Pools.latch(this.pools.spring(), this.threads, this.moveChunk);
	}
}
