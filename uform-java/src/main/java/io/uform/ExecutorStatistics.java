package io.uform;

import java.util.List;

/**
 * A snapshot of an executor's state and counters, for observers (metrics, health, the actuator
 * endpoint). Counters only grow; each field is read separately, so a snapshot taken under load is
 * approximate across fields but never invents a value.
 *
 * @param name the executor's name, which its threads' names start with ({@code uform-ram-1-…})
 * @param kind RAM or VRAM
 * @param state running, draining, closing (new deferred calls refused) or freed
 * @param mood what idle threads do
 * @param threads threads taking part in a fork, its caller included
 * @param memoryDomains NUMA node ids the threads are spread over; a colocation is an index into it
 * @param cpuClass the CPU class it dispatches as
 * @param pinning {@code pinned}, or {@code not pinned: } and why
 * @param forks forks run so far (nested forks, which run inline, not counted)
 * @param deferredInFlight deferred calls queued or running now
 * @param deferredLimit deferred calls tracked at once
 * @param deferredCompleted deferred calls that returned normally
 * @param deferredFailed deferred calls that threw
 * @param deferredCancelled accepted deferred calls that never ran: their future was done (cancelled,
 *        or completed by its holder) before they started, or a bounded free gave up on them
 * @param deferredRejected submissions refused: no slot in time, interrupted while waiting, or after
 *        {@code refuseDeferred} or free. Every accepted call ends as exactly one of completed, failed or cancelled, so
 *        completed + failed + cancelled + in flight = accepted
 * @param deferredRunning deferred calls running now (0 or 1: they run one at a time); the rest of
 *        {@code deferredInFlight} is queued
 * @param deferredWaitCount deferred calls that started running, whatever their outcome
 * @param deferredWaitNanos time those calls waited between being accepted (a slot taken, the call
 *        queued) and starting, summed, in nanoseconds; {@code deferredWaitNanos / deferredWaitCount}
 *        is the mean wait. Time a submitter spent waiting for a slot is not in it
 * @param deferredRunCount deferred calls that ran to an end, returning or throwing (completed plus
 *        failed, counted a moment before those counters are)
 * @param deferredRunNanos time those calls ran, from start to return or throw, summed, in nanoseconds
 * @param devices a VRAM executor's devices, as ordinals in {@link Uform#gpuDevices()}; empty for a
 *        RAM executor
 * @param gpuClasses the GPU class each of a VRAM executor's devices dispatches as, in {@code devices}
 *        order: the config's {@code gpuClass} where one was set, else the device's own class; empty for
 *        a RAM executor
 * @param borrowedStreams whether a VRAM executor runs on CUDA streams its config lent it (the
 *        config's {@code streams}) rather than on streams of its own; {@code false} for a RAM executor
 * @param scratch a VRAM executor's activation scratch, one entry per device; empty for a RAM
 *        executor, which has no scratch of its own
 */
public record ExecutorStatistics(String name, Executor.Kind kind, Executor.State state, Mood mood, int threads,
		List<Integer> memoryDomains, String cpuClass, String pinning, long forks, int deferredInFlight,
		int deferredLimit, long deferredCompleted, long deferredFailed, long deferredCancelled, long deferredRejected,
		int deferredRunning, long deferredWaitCount, long deferredWaitNanos, long deferredRunCount,
		long deferredRunNanos, List<Integer> devices, List<String> gpuClasses, boolean borrowedStreams,
		List<ScratchStatistics> scratch) {

	/**
	 * How many memory domains (colocations) the threads span.
	 * @return at least 1
	 */
	public int colocations() {
		return this.memoryDomains.size();
	}
}
