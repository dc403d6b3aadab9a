package io.uform;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

import io.uform.gpu.EveryStep;
import io.uform.gpu.VramDevice;
import io.uform.host.DeferredCalls;
import io.uform.host.HostPlacement;
import io.uform.host.HostPool;
import io.uform.host.ThreadPinner;

/**
 * What an executor owns (its host threads, its deferred calls, its devices), kept apart from the
 * {@link Executor} object so that the threads never reference it: the {@link java.lang.ref.Cleaner}
 * can then free an executor nobody holds.
 */
final class ExecutorResources implements Runnable {

	final String name;

	final HostPool<ThreadTask, ProngTask, SliceTask> pool;

	final DeferredCalls deferred;

	/**
	 * Set once free() has run the queued calls and joined the threads (or given up on them). Until
	 * then forks still run: the queued deferred calls that free() runs may fork.
	 */
	final AtomicBoolean freed = new AtomicBoolean();

	/** Won by the one free() call that does the freeing; the others wait for {@link #released}. */
	final AtomicBoolean releasing = new AtomicBoolean();

	/** Opened when the winning free() call returns or throws. */
	final CountDownLatch released = new CountDownLatch(1);

	final AtomicReference<String> pinFailure = new AtomicReference<>();

	/** A VRAM executor's devices, in {@code devices} order; empty for a RAM executor. */
	final List<VramDevice> devices;

	/** Their ordinals in {@link Uform#gpuDevices()}. */
	final List<Integer> ordinals;

	/** The class each dispatches as: the config's {@code gpuClass}, else the device's own. */
	final List<String> gpuClasses;

	final VramPlan plan;

	private boolean devicesReleased;

	/** Set by the deferred thread after its last call. */
	private volatile boolean runnerDone;

	/**
	 * What releasing the devices threw (a {@link RuntimeException} or an {@link Error}), for free()
	 * to report whichever thread released them. Written under this object's lock, in
	 * {@link #releaseDevices()}, before the lock is let go: a free() that finds the devices
	 * released, which takes the same lock, always sees it.
	 */
	private volatile Throwable releaseFailure;

	/** The device being released now and what that waits for, for a free() that runs out of time. */
	private volatile String releasingDevice;

	/** Whether this executor counts as holding its devices (see {@link VramPlan}). */
	private boolean held;

	ExecutorResources(String name, HostPlacement placement, ThreadPinner pinner, Consumer<Thread> threadStart, VramPlan plan) {
		this.name = name;
		this.plan = plan;
		// The caller of a fork is an application thread and is never pinned; workers pin themselves.
		if (placement.threads() == 1) {
			this.pinFailure.set("one thread, the caller's, which uform does not pin");
		}
		this.devices = (plan == null) ? List.of() : openDevices(name, plan);
		this.ordinals = (plan == null) ? List.of() : plan.ordinals;
		this.gpuClasses = (plan == null) ? List.of()
				: plan.devices.stream()
					.map((device) -> (plan.gpuClass != null) ? plan.gpuClass : device.gpuClass())
					.toList();
		List<VramDevice> opened = this.devices;
		IntConsumer startWorker = (thread) -> {
			String failure = pinner.pinCurrentThread(placement.cpusOf(thread));
			if (failure != null) {
				this.pinFailure.compareAndSet(null, failure);
			}
			// A VRAM executor's worker t serves device t for its whole life: bind its context once.
			if (!opened.isEmpty()) {
				opened.get(thread).makeCurrent();
			}
		};
		HostPool<ThreadTask, ProngTask, SliceTask> workers;
		try {
			workers = new HostPool<>(name, placement.threads(), placement.colocationOfThread(), startWorker, threadStart,
					TaskBodies.INSTANCE, UformFailures.INSTANCE);
		}
		catch (RuntimeException | Error ex) {
			releaseDevices();
			throw ex;
		}
		this.pool = workers;
		try {
			// The runner stops the workers once the last queued call has run, so that freeing never
			// needs a thread of its own to wait (the Cleaner's action below does not wait at all).
			Runnable beforeEachCall = (opened.isEmpty()) ? null : opened.get(0)::makeCurrent;
			this.deferred = new DeferredCalls(name, placement.deferredLimit(), workers::isInsideTask, this::onRunnerStop,
					beforeEachCall, threadStart, UformFailures.INSTANCE);
		}
		catch (Throwable ex) {
			// Started workers would otherwise wait forever for a fork nobody can send.
			try {
				workers.stop();
			}
			catch (InterruptedException ie) {
				Thread.currentThread().interrupt();
			}
			releaseDevices();
			throw ex;
		}
		if (plan != null) {
			plan.hold();
			this.held = true;
			workers.whenStopped(this::releaseDevicesWhenIdle);
		}
	}

	/** Opens every device of the plan in order; on a failure, closes those already open. */
	private static List<VramDevice> openDevices(String name, VramPlan plan) {
		List<VramDevice> opened = new ArrayList<>();
		try {
			for (int i = 0; i < plan.devices.size(); i++) {
				opened.add(new VramDevice(i, Gpus.facts(plan.devices.get(i)), plan.runtimes.get(i),
						plan.runtimeOrdinals.get(i), (plan.streams == null) ? null : plan.streams.get(i), name,
						plan.scratchLimit));
			}
		}
		catch (RuntimeException | Error ex) {
			for (VramDevice device : opened) {
				try {
					device.release();
				}
				catch (RuntimeException | Error again) {
					ex.addSuppressed(again);
				}
			}
			throw ex;
		}
		return List.copyOf(opened);
	}

	/**
	 * Runs on the deferred thread after the last call. Stops the workers; when no fork is in
	 * progress (the stop took at once), nothing can touch the devices any more, so they are
	 * released here too: that is how an executor the collector frees gives its devices back.
	 */
	private void onRunnerStop() {
		this.runnerDone = true;
		this.pool.requestStop();
		releaseDevicesWhenIdle();
	}

	/**
	 * Releases the devices once nothing can touch them: the deferred thread has run its last call
	 * and the workers' stop took (no fork in progress, none to come). Called by both of those
	 * events, whichever comes last does it: normally the deferred thread at free or collection;
	 * after a free that gave up, the stuck call's or fork's own thread when it finally returns.
	 */
	private void releaseDevicesWhenIdle() {
		if (!this.runnerDone || !this.pool.isStopping()) {
			return;
		}
		try {
			releaseDevices();
		}
		catch (RuntimeException | Error ex) {
			// Kept by releaseDevices for free() to report (on the collector's path nobody is
			// listening); caught here so that the deferred thread, which usually runs this, ends
			// normally even on an Error.
		}
	}

	/**
	 * Releases every device once: streams synchronised, modules unloaded, created streams
	 * destroyed, scratch freed, contexts released. The first failure is thrown after all ran.
	 */
	synchronized void releaseDevices() {
		if (this.devicesReleased || this.devices == null) {
			return;
		}
		this.devicesReleased = true;
		if (this.held) {
			this.held = false;
			this.plan.letGo();
		}
		EveryStep steps = new EveryStep();
		for (VramDevice device : this.devices) {
			this.releasingDevice = "releasing device " + device.index() + " (" + device.device().name() + "), which "
					+ "waits for the work queued on its stream to finish";
			steps.run(device::release);
		}
		this.releasingDevice = null;
		try {
			steps.throwFirst();
		}
		catch (RuntimeException | Error ex) {
			this.releaseFailure = ex;
			throw ex;
		}
	}

	/**
	 * Throws what releasing the devices threw, whichever thread released them.
	 * @throws RuntimeException or {@link Error}, as the release threw it
	 */
	void throwReleaseFailure() {
		Throwable failure = this.releaseFailure;
		if (failure instanceof RuntimeException ex) {
			throw ex;
		}
		if (failure instanceof Error error) {
			throw error;
		}
	}

	/**
	 * What the release of the devices waits for now.
	 * @return a description, or {@code null} when no release is in progress
	 */
	String releasingNow() {
		return this.releasingDevice;
	}

	/**
	 * The Cleaner's action, for an executor nobody references: refuses new calls and lets the
	 * deferred thread run what is queued and then stop the workers. It never waits, so one
	 * executor's stuck call cannot hold up the cleaning of others (one Cleaner thread serves all).
	 */
	@Override
	public void run() {
		this.deferred.shutdown();
	}
}
