package io.uform.host;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Lets a {@link HostPool} worker that was queued behind its fork's caller on one CPU move off that
 * CPU (see "Waiting" in {@link HostPool}): it tells which CPU a thread runs on and moves the calling
 * thread off one, through a {@link ThreadPinner}.
 *
 * <p>The pinner is bound in the background once forks keep finding workers late
 * ({@value #LATE_FORKS_BEFORE_BINDING} times in this JVM): binding JNA and libc is the costliest
 * part of a cold JVM's first use of uform, which neither a fork nor a process whose workers are only
 * late now and then (a cold start, a rare preemption) should pay, where CPU sharing lasts hundreds of
 * forks and more.
 * Until the binding is made, and where it cannot be (not Linux, no JNA), no CPU is known and nothing
 * moves.
 *
 * <p>Shared by every pool of the JVM ({@link #SYSTEM}): {@code lateForks} is atomic, and
 * {@code bound} is volatile, written once by the binding thread and read by callers and workers, who
 * see either no pinner or the bound one.
 */
final class CpuEscape {

	/** Late forks, in all pools of this escape, after which the pinner is bound. */
	static final int LATE_FORKS_BEFORE_BINDING = 64;

	/** The machine's, bound on the common pool when needed. */
	static final CpuEscape SYSTEM = new CpuEscape(ThreadPinner::system, ForkJoinPool.commonPool(), LATE_FORKS_BEFORE_BINDING);

	private final Supplier<ThreadPinner> bind;

	private final Executor background;

	private final int lateForksBeforeBinding;

	private final AtomicInteger lateForks = new AtomicInteger();

	private volatile ThreadPinner bound;

	/**
	 * Makes an escape that binds its pinner once forks keep finding workers late.
	 * @param bind gives the pinner; runs once, on {@code background}
	 * @param background where binding runs
	 * @param lateForksBeforeBinding late forks after which it binds ({@value #LATE_FORKS_BEFORE_BINDING}
	 *        outside tests)
	 */
	CpuEscape(Supplier<ThreadPinner> bind, Executor background, int lateForksBeforeBinding) {
		this.bind = bind;
		this.background = background;
		this.lateForksBeforeBinding = lateForksBeforeBinding;
	}

	/** Counts a fork that found a worker late, and asks for the binding at the count that calls for it. */
	void lateFork() {
		if (this.bound == null && this.lateForks.incrementAndGet() == this.lateForksBeforeBinding) {
			try {
				this.background.execute(() -> this.bound = this.bind.get());
			}
			catch (RuntimeException ex) {
				// Refused (a shut-down pool): no CPU is ever known, and nothing moves, as on other systems.
			}
		}
	}

	/**
	 * The calling thread's CPU.
	 * @return its number, or -1 while the pinner is not bound or where it cannot tell
	 */
	int currentCpu() {
		ThreadPinner pinner = this.bound;
		return (pinner != null) ? pinner.currentCpu() : -1;
	}

	/**
	 * Moves the calling thread off {@code cpu}, its affinity mask left as it was.
	 * @param cpu the CPU to leave
	 * @return whether the thread moved
	 */
	boolean leave(int cpu) {
		ThreadPinner pinner = this.bound;
		return pinner != null && pinner.leaveCpu(cpu);
	}
}
