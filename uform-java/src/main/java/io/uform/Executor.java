package io.uform;

import java.lang.ref.Cleaner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

import io.uform.UformException.Status;
import io.uform.gpu.GpuDiscovery;
import io.uform.gpu.GpuRuntime;
import io.uform.gpu.ScratchArena;
import io.uform.gpu.VramDevice;
import io.uform.host.CpuClasses;
import io.uform.host.DeferredCalls;
import io.uform.host.DeferredCounts;
import io.uform.host.HostPlacement;
import io.uform.host.HostPool;
import io.uform.host.NumaDomain;
import io.uform.host.NumaTopology;
import io.uform.host.ThreadPinner;

/**
 * The threads (or streams) work runs on, shared across models: an executor owns host threads or
 * device streams and the activation scratch; a model owns weights. Keeping them apart lets one
 * executor serve several models and makes the cost of spawning threads visible at the line that
 * makes the executor.
 *
 * <h2>Making one</h2>
 * {@link #forRam(ExecutorForRamConfig)} spawns host threads; {@link #forVram(ExecutorForVramConfig)}
 * opens GPU streams; {@link #onPool(long, ExecutorOnPoolConfig)} would borrow a foreign pool and
 * reports unsupported, as uform does.
 *
 * <h2>Running work</h2>
 * A <em>fork</em> runs a task over the executor's threads and returns when every thread is done; the
 * thread that calls it takes part as thread 0. {@link #forThreads} runs once per thread;
 * {@link #forN} hands each thread one static slice of the indices; {@link #forNDynamic} hands out
 * indices one at a time for uneven work; {@link #forSlices} gives each thread its slice as one call.
 * Forks from many threads at once are served one after another in arrival order. A fork started
 * from inside a task of the same executor runs inline on the current thread (see {@link HostPool}).
 * If tasks throw, the fork throws the first failure with the others suppressed into it; the executor
 * stays usable.
 *
 * <p>A <em>deferred call</em> ({@link #defer(Callable)}) runs later, in submission order, one at a
 * time, and may itself fork over all the threads. At most {@code deferredLimit} are in flight;
 * beyond that {@code defer} waits for a slot (or, with a wait limit, is rejected). A thread that
 * cannot wait for a slot is refused at once instead: a deferred call, and a task of this executor
 * (the call holding a slot may be waiting for that task's fork). Futures complete on uform's
 * completion threads, never on the deferred thread, so continuations cannot stall or deadlock it.
 * A blocking {@code get()} or {@code join()} from the deferred thread on a deferred call that has not
 * run yet would wait for ever (it runs only after the waiting call returns), and fails at once with
 * {@link Status#INVALID_ARGUMENT} instead.
 * Cancelling a future before its call starts means the call never runs.
 *
 * <h2>Hooks</h2>
 * {@link ExecutorHooks}, given when the executor is made, carry the submitting thread's context (a
 * trace, the logging MDC) to the deferred thread and observe each deferred call
 * ({@link DeferredCallDecorator}), and optionally restore the forking thread's context on the threads
 * that run a fork's parts ({@link ForkDecorator}). Without them a fork pays one field check.
 *
 * <h2>Lifecycle</h2>
 * {@code RUNNING → DRAINING → RUNNING} around {@link #drain(Mood)}, and {@code → FREED} with
 * {@link #free()}. After {@code free} every call that runs or submits work fails with
 * {@link Status#FREED}; {@link #statistics()} still answers. {@link #drain(Mood, Duration)} and
 * {@link #free(Duration)} bound their waits, so a call that never returns cannot hold up a
 * shutdown. An executor nobody references is freed by the garbage collector eventually, without
 * blocking the collector's thread; {@code free} (or try-with-resources) frees it now. Threads are
 * daemons; calls still queued when the JVM exits never run, and their futures complete with
 * {@link Status#FREED}.
 */
public final class Executor implements AutoCloseable {

	/** What an executor drives. */
	public enum Kind {
		/** Host threads, for RAM-resident models. */
		RAM,
		/** GPU streams, for VRAM-resident models. */
		VRAM
	}

	/** Where an executor is in its lifecycle. */
	public enum State {
		/** Accepting and running work. */
		RUNNING,
		/** A {@link #drain(Mood)} is waiting for submitted work to finish. */
		DRAINING,
		/**
		 * New deferred calls are refused ({@link #refuseDeferred}, or a {@link #free()} under way); the
		 * submitted ones and forks still run, until the executor is freed.
		 */
		CLOSING,
		/** Freed: threads joined, nothing more runs. */
		FREED
	}

	/**
	 * The cleaner that frees an unreachable executor's resources, made with the first executor (a holder
	 * class: initialising {@code Executor}, as {@link Uform#preinitialize()} does, starts no thread).
	 */
	private static final class Cleaning {

		static final Cleaner CLEANER = Cleaner.create(Executors.defaultThreadFactory());

		private Cleaning() {
		}
	}

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	private final ExecutorResources resources;

	private final ExecutorFreeing freeing;

	private final Kind kind;

	private final HostPlacement placement;

	private final ExecutorDraining draining;

	private final List<DeviceLane> lanes;

	/** Never changes: read on every fork and deferred call, so a plain final field. */
	private final DeferredCallDecorator deferredCallDecorator;

	private final ForkDecorator forkDecorator;

	private Executor(Kind kind, HostPlacement placement, ThreadPinner pinner, Consumer<Thread> threadStart,
			VramPlan plan, ExecutorHooks hooks) {
		this.kind = kind;
		this.placement = placement;
		this.deferredCallDecorator = hooks.deferredCalls();
		this.forkDecorator = hooks.forks();
		this.resources = new ExecutorResources(kind.name().toLowerCase() + "-" + SEQUENCE.incrementAndGet(), placement, pinner,
				threadStart, plan);
		List<DeviceLane> made = new ArrayList<>();
		for (VramDevice device : this.resources.devices) {
			made.add(new DeviceLane(this, device, plan.devices.get(device.index())));
		}
		this.lanes = List.copyOf(made);
		this.freeing = new ExecutorFreeing(this.resources);
		this.draining = new ExecutorDraining(this.resources, this.lanes);
		Cleaning.CLEANER.register(this, this.resources);
	}

	/**
	 * Spawns host threads for RAM-resident models. Absent config fields are derived from the machine.
	 * @param config where the threads go, how many, how many deferred calls
	 * @return a running executor; free it when done
	 * @throws UformException {@link Status#INVALID_ARGUMENT} naming the bad field and value
	 */
	public static Executor forRam(ExecutorForRamConfig config) {
		return forRam(config, ExecutorHooks.NONE, Thread::start);
	}

	/**
	 * Spawns host threads for RAM-resident models, with hooks around deferred calls and forks.
	 * @param config where the threads go, how many, how many deferred calls
	 * @param hooks what to do around deferred calls and forks; {@link ExecutorHooks#NONE} for nothing
	 * @return a running executor; free it when done
	 * @throws UformException {@link Status#INVALID_ARGUMENT} naming the bad field and value
	 */
	public static Executor forRam(ExecutorForRamConfig config, ExecutorHooks hooks) {
		return forRam(config, hooks, Thread::start);
	}

	/** {@link #forRam(ExecutorForRamConfig)}, starting threads through a hook that tests make fail. */
	static Executor forRam(ExecutorForRamConfig config, Consumer<Thread> threadStart) {
		return forRam(config, ExecutorHooks.NONE, threadStart);
	}

	private static Executor forRam(ExecutorForRamConfig config, ExecutorHooks hooks, Consumer<Thread> threadStart) {
		UformException.requireArgument(config, "config", "pass ExecutorForRamConfig.defaults() to derive every field");
		requireHooks(hooks);
		HostPlacement placement = config.place(NumaTopology.system(), CpuClasses.system(),
				Runtime.getRuntime().availableProcessors());
		return new Executor(Kind.RAM, placement, ThreadPinner.forWorkers(), threadStart, null, hooks);
	}

	/**
	 * Spawns host threads with every field derived from the machine.
	 * @return a running executor
	 */
	public static Executor forRam() {
		return forRam(ExecutorForRamConfig.defaults());
	}

	/**
	 * Opens one stream per device for VRAM-resident models: retains each device's primary context,
	 * creates a stream on it (or borrows one from {@code streams}), and starts one host thread per
	 * device, near the devices' NUMA nodes. Work runs on it with {@link #forDevices(DeviceTask)} and
	 * deferred calls; activation scratch grows per device as work reserves it, up to
	 * {@code scratchLimit}.
	 * @param config which devices, streams and scratch; absent fields are derived (one free device,
	 *        its own GPU class, its nearest NUMA node, new streams, no scratch limit)
	 * @return a running executor; free it when done
	 * @throws UformException {@link Status#NO_DEVICE} when this process sees no GPU (the message says
	 *         why); {@link Status#INVALID_ARGUMENT} naming a bad field; {@link Status#UNSUPPORTED} for
	 *         an AMD device (no HIP binding yet); {@link Status#DEVICE_ERROR} when the driver refuses
	 */
	public static Executor forVram(ExecutorForVramConfig config) {
		return forVram(config, ExecutorHooks.NONE);
	}

	/**
	 * Opens one stream per device for VRAM-resident models, as {@link #forVram(ExecutorForVramConfig)},
	 * with hooks around deferred calls and forks ({@link #forDevices} included).
	 * @param config which devices, streams and scratch
	 * @param hooks what to do around deferred calls and forks; {@link ExecutorHooks#NONE} for nothing
	 * @return a running executor; free it when done
	 * @throws UformException as {@link #forVram(ExecutorForVramConfig)}
	 */
	public static Executor forVram(ExecutorForVramConfig config, ExecutorHooks hooks) {
		UformException.requireArgument(config, "config", "pass ExecutorForVramConfig.defaults() to derive every field");
		requireHooks(hooks);
		GpuDiscovery discovery = GpuDiscovery.system();
		List<GpuDevice> devices = Gpus.devices(discovery);
		if (devices.isEmpty()) {
			List<String> why = new ArrayList<>(discovery.problems());
			why.addAll(discovery.notes());
			throw new UformException(Status.NO_DEVICE, "No GPU found for a VRAM executor: this process sees no NVIDIA "
					+ "(libcuda.so.1) or AMD (amdkfd) device" + (why.isEmpty() ? "" : " (" + String.join("; ", why) + ")")
					+ ". Check nvidia-smi or rocm-smi and CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, run the model on "
					+ "Executor.forRam(), or opt in to simulated devices for development (-Duform.devices.simulated=1)");
		}
		return forVram(config, devices, VramPlan::systemRuntime, hooks);
	}

	/** {@link #forVram(ExecutorForVramConfig)} over given devices and backends, for tests. */
	static Executor forVram(ExecutorForVramConfig config, List<GpuDevice> devices,
			BiFunction<GpuDevice, Integer, GpuRuntime> runtimes) {
		return forVram(config, devices, runtimes, ExecutorHooks.NONE);
	}

	static Executor forVram(ExecutorForVramConfig config, List<GpuDevice> devices,
			BiFunction<GpuDevice, Integer, GpuRuntime> runtimes, ExecutorHooks hooks) {
		UformException.requireArgument(config, "config", "pass ExecutorForVramConfig.defaults() to derive every field");
		requireHooks(hooks);
		VramPlan plan = VramPlan.of(config, devices, Path.of("/"), runtimes);
		HostPlacement placement = plan.hostConfig.place(NumaTopology.system(), CpuClasses.system(),
				Runtime.getRuntime().availableProcessors());
		return new Executor(Kind.VRAM, placement, ThreadPinner.forWorkers(), Thread::start, plan, hooks);
	}

	/**
	 * Opens a VRAM executor on one free device with every other field derived.
	 * @return a running executor
	 */
	public static Executor forVram() {
		return forVram(ExecutorForVramConfig.defaults());
	}

	/**
	 * Borrows a ForkUnion {@code fu_pool_t} by address, which uform reports unsupported until
	 * borrowing is designed.
	 * @param pool the pool's address
	 * @param config its placement
	 * @return never
	 * @throws UformException always, {@link Status#UNSUPPORTED}
	 */
	public static Executor onPool(long pool, ExecutorOnPoolConfig config) {
		throw new UformException(Status.UNSUPPORTED, "Executor.onPool borrows a ForkUnion pool by address, which "
				+ "uform reports unsupported until borrowing is designed; use Executor.forRam() to own the threads instead");
	}

	/**
	 * What this executor drives.
	 * @return RAM or VRAM
	 */
	public Kind kind() {
		return this.kind;
	}

	/**
	 * The executor's name, which its threads' names start with after {@code uform-}.
	 * @return a name like {@code ram-1}
	 */
	public String name() {
		return this.resources.name;
	}

	/**
	 * Threads taking part in a fork, the caller included.
	 * @return at least 1
	 */
	public int threads() {
		return this.placement.threads();
	}

	/**
	 * How many memory domains the threads span; a task's colocation is below this.
	 * @return at least 1
	 */
	public int colocations() {
		return this.placement.colocations();
	}

	/**
	 * Runs a task once on every thread.
	 * @param task gets the thread index and its colocation
	 */
	public void forThreads(ThreadTask task) {
		requireTask(task);
		DecoratedForks.forThreads(pool(), this.forkDecorator, task);
	}

	/**
	 * Runs indices {@code 0..n-1}, each thread one contiguous static slice (sizes differ by at most one).
	 * @param n how many indices, 0 or more
	 * @param task gets the index, the thread and its colocation
	 */
	public void forN(int n, ProngTask task) {
		checkCount(n);
		requireTask(task);
		DecoratedForks.forN(pool(), this.forkDecorator, n, task);
	}

	/**
	 * Runs indices {@code 0..n-1} in static slices.
	 * @param n how many indices, 0 or more
	 * @param task gets the index
	 */
	public void forN(int n, IntConsumer task) {
		requireTask(task);
		forN(n, (index, thread, colocation) -> task.accept(index));
	}

	/**
	 * Runs indices {@code 0..n-1} handed out one at a time, so threads that finish early take more.
	 * @param n how many indices, 0 or more
	 * @param task gets the index, the thread and its colocation
	 */
	public void forNDynamic(int n, ProngTask task) {
		checkCount(n);
		requireTask(task);
		DecoratedForks.forNDynamic(pool(), this.forkDecorator, n, task);
	}

	/**
	 * Runs indices {@code 0..n-1} handed out one at a time.
	 * @param n how many indices, 0 or more
	 * @param task gets the index
	 */
	public void forNDynamic(int n, IntConsumer task) {
		requireTask(task);
		forNDynamic(n, (index, thread, colocation) -> task.accept(index));
	}

	/**
	 * Runs indices {@code 0..n-1} as one call per thread with its static slice; threads with an empty
	 * slice are not called.
	 * @param n how many indices, 0 or more
	 * @param task gets the slice's first index and length, the thread and its colocation
	 */
	public void forSlices(int n, SliceTask task) {
		checkCount(n);
		requireTask(task);
		DecoratedForks.forSlices(pool(), this.forkDecorator, n, task);
	}

	/**
	 * Runs a task once per device of a VRAM executor, all devices in parallel: each on its own host
	 * thread (the calling thread takes device 0) with that device's context current. Returns when
	 * every task has returned; work the tasks queued on the streams may still be running unless they
	 * synchronised. Failures are thrown as for {@link #forThreads}.
	 * @param task gets its device's lane: the device, its stream and its scratch
	 * @throws UformException {@link Status#INVALID_ARGUMENT} on a RAM executor
	 */
	public void forDevices(DeviceTask task) {
		requireTask(task);
		if (this.kind != Kind.VRAM) {
			throw new UformException(Status.INVALID_ARGUMENT, "forDevices() runs one task per GPU device, and executor '"
					+ name() + "' is a RAM executor; make one with Executor.forVram(), or use forThreads()");
		}
		List<DeviceLane> all = this.lanes;
		forThreads((thread, colocation) -> {
			DeviceLane lane = all.get(thread);
			// Thread 0 is the caller, an application thread; a worker's binding may have been changed by
			// a foreign library. Either way the task starts with its device's context current.
			lane.bind();
			task.run(lane);
		});
	}

	/**
	 * The devices of a VRAM executor, for deferred calls and other code that queues device work.
	 * @return one lane per device, in {@code devices} order; empty for a RAM executor
	 */
	public List<DeviceLane> lanes() {
		return this.lanes;
	}

	/**
	 * The GPUs this executor drives.
	 * @return in {@code devices} order; empty for a RAM executor
	 */
	public List<GpuDevice> devices() {
		List<GpuDevice> devices = new ArrayList<>(this.lanes.size());
		for (DeviceLane lane : this.lanes) {
			devices.add(lane.device());
		}
		// Not List.copyOf: like Stream.toList() before, contains(null) answers false rather than throwing.
		return Collections.unmodifiableList(devices);
	}

	/**
	 * Submits a deferred call, waiting for a slot if {@code deferredLimit} calls are in flight.
	 * @param <T> the result type
	 * @param call the call; it runs on the executor's deferred thread and may fork
	 * @return completed with the call's result, or exceptionally with what it threw; cancelling it
	 *         before the call starts means the call never runs
	 * @throws UformException {@link Status#FREED} after {@link #free()} or {@link #refuseDeferred};
	 *         {@link Status#TIMEOUT} from inside a task or deferred call of this executor while every
	 *         slot is taken (they cannot wait); {@link Status#INTERRUPTED} when interrupted while
	 *         waiting for a slot
	 */
	public <T> CompletableFuture<T> defer(Callable<T> call) {
		return defer(call, null);
	}

	/**
	 * Submits a deferred call that returns nothing.
	 * @param call the call
	 * @return completed when the call has run
	 */
	public CompletableFuture<Void> defer(Runnable call) {
		UformException.requireArgument(call, "deferred call", "pass a Callable or Runnable to defer()");
		return defer(() -> {
			call.run();
			return null;
		}, null);
	}

	/**
	 * Submits a deferred call, waiting at most {@code maxWait} for a slot.
	 * @param <T> the result type
	 * @param call the call
	 * @param maxWait longest wait for a slot; {@link Duration#ZERO} rejects at once when all are
	 *        taken; {@code null} waits as long as it takes
	 * @return completed with the call's result, or exceptionally with what it threw
	 * @throws UformException {@link Status#TIMEOUT} when no slot freed in time (the call was not
	 *         submitted); {@link Status#FREED} after {@link #free()} or {@link #refuseDeferred};
	 *         {@link Status#INTERRUPTED} when interrupted while waiting for a slot
	 */
	public <T> CompletableFuture<T> defer(Callable<T> call, Duration maxWait) {
		if (maxWait != null && maxWait.isNegative()) {
			throw UformException.invalid("maxWait", maxWait, "must be zero (reject at once) or positive, or null to wait");
		}
		DeferredCallDecorator.Decoration decoration = decorate(call);
		if (decoration != null) {
			return DecoratedDeferredCall.submit(this.resources.deferred, decoration, call, maxWait);
		}
		return this.resources.deferred.submit(call, maxWait);
	}

	/**
	 * Submits a deferred call whose end is heard on the deferred thread instead of through a future,
	 * for {@link DeferredCallExecutor}, which gives its submitters none: no completion thread is woken
	 * per call. {@code ended} runs right after the call (after the decoration hears it), must not
	 * block, and gets what the call threw or {@code null}; for a call a bounded free drops unstarted,
	 * it runs on a completion thread with that failure.
	 * @param call the call
	 * @param maxWait as for {@link #defer(Callable, Duration)}, not negative
	 * @param ended hears how the call ended
	 * @throws UformException as {@link #defer(Callable, Duration)}
	 */
	void deferWithoutFuture(Callable<?> call, Duration maxWait, Consumer<Throwable> ended) {
		DeferredCallDecorator.Decoration decoration = decorate(call);
		if (decoration != null) {
			DecoratedDeferredCall.submitWithoutFuture(this.resources.deferred, decoration, call, maxWait, ended);
			return;
		}
		this.resources.deferred.submitWithoutFuture(call, maxWait, ended);
	}

	/**
	 * The decoration of a deferred call about to be submitted, made on the submitting thread; {@code null}
	 * without a decorator, or where the decorator leaves this call undecorated.
	 */
	private DeferredCallDecorator.Decoration decorate(Callable<?> call) {
		DeferredCallDecorator decorator = this.deferredCallDecorator;
		if (decorator == null) {
			return null;
		}
		UformException.requireArgument(call, "deferred call", "pass a Callable or Runnable to defer()");
		return decorator.decorate(this);
	}

	/**
	 * Waits for every call submitted so far, then idles threads in {@link Mood#PARKED}.
	 * @throws UformException as {@link #drain(Mood)}
	 */
	public void drain() {
		drain(Mood.PARKED);
	}

	/**
	 * Waits for every call submitted so far (deferred calls, any fork in progress, and on a VRAM
	 * executor the work queued on its streams), then idles the threads in the given mood.
	 * @param mood {@link Mood#PARKED} to use no CPU when idle, {@link Mood#GRINDING} to spin for the
	 *        lowest wake-up latency
	 * @throws UformException {@link Status#INVALID_ARGUMENT} from inside a task or deferred call of
	 *         this executor, which would wait for itself; {@link Status#INTERRUPTED} when interrupted
	 *         while waiting (the mood is then unchanged); {@link Status#FREED} after {@link #free()},
	 *         or when a free on another thread overtakes the wait on a VRAM executor's streams;
	 *         {@link Status#DEVICE_ERROR} when work queued on a stream failed (a kernel that faulted
	 *         surfaces here, naming the driver call that reported it)
	 */
	public void drain(Mood mood) {
		awaitDrained(mood, null);
	}

	/**
	 * Waits at most {@code timeout} for every call submitted so far (deferred calls, any fork in
	 * progress, and on a VRAM executor the work queued on its streams by the time those are done,
	 * which it marks with an event per stream and polls: work queued on a stream after that point,
	 * by another library on a borrowed stream, is not waited for), then idles the threads in the
	 * given mood.
	 * @param mood what idle threads do once drained
	 * @param timeout the longest wait; {@link Duration#ZERO} only looks
	 * @return {@code true} when everything finished in time and the mood is set; {@code false} when
	 *         something was still running at the deadline (the mood is then unchanged)
	 * @throws UformException as {@link #drain(Mood)}
	 */
	public boolean drain(Mood mood, Duration timeout) {
		UformException.requireArgument(timeout, "timeout", "pass how long to wait, e.g. Duration.ofSeconds(30)");
		if (timeout.isNegative()) {
			throw UformException.invalid("timeout", timeout, "must be zero (only look) or positive");
		}
		return awaitDrained(mood, timeout);
	}

	private boolean awaitDrained(Mood mood, Duration timeout) {
		UformException.requireArgument(mood, "mood", "pass Mood.PARKED or Mood.GRINDING");
		checkNotFreed();
		requireOutsideTask("drain()");
		return this.draining.drain(mood, ExecutorFreeing.deadline(timeout));
	}

	/**
	 * Refuses new deferred calls from now on and waits at most {@code timeout} for those already
	 * submitted; forks keep running until {@link #free()}. The first half of a late shutdown, the way
	 * Spring's task executors shut down when they await termination: the Spring Boot starter calls it
	 * when the application context closes and frees the executor only when the context destroys it,
	 * after Spring's own executors, so that an {@code @Async} method the context still waits for can
	 * fork here. A deferred call submitted after it fails with {@link Status#FREED}, saying so. The
	 * state is {@link State#CLOSING} from then on. Calling it again waits again; after a free it does
	 * nothing.
	 * @param timeout the longest wait; {@link Duration#ZERO} only looks; {@code null} waits as long as
	 *        the calls take
	 * @return {@code true} when every deferred call submitted before this one has finished (its future
	 *         complete), or the executor was freed already; {@code false} when one was still queued or
	 *         running at the deadline (it goes on: {@link #free(Duration)} bounds it). As with
	 *         {@link #drain(Mood)}, a free on another thread meanwhile does not end the wait: a call it
	 *         gave up on is still waited for, so bound the wait
	 * @throws UformException {@link Status#INVALID_ARGUMENT} from inside a task or deferred call of
	 *         this executor, or from a continuation that runs as one of its calls completes, which would
	 *         wait for itself (nothing is refused then), or for a negative timeout;
	 *         {@link Status#INTERRUPTED} when interrupted while waiting (new calls stay refused)
	 */
	public boolean refuseDeferred(Duration timeout) {
		if (timeout != null && timeout.isNegative()) {
			throw UformException.invalid("timeout", timeout, "must be zero (only look) or positive, or null to wait");
		}
		ExecutorResources owned = this.resources;
		if (owned.freed.get()) {
			return true;
		}
		// Checked before anything changes: a refused call leaves the executor as it was.
		requireOutsideTask("refuseDeferred()");
		owned.deferred.requireMayWait("refuseDeferred()");
		boolean finished = this.draining.refuseDeferred(ExecutorFreeing.deadline(timeout));
		if (!finished) {
			this.freeing.refusalRanOut(timeout);
		}
		return finished;
	}

	/**
	 * Refuses new deferred calls, runs every deferred call still queued (they may still fork), waits
	 * for a fork in progress, and joins every thread. It waits as long as those calls take; use
	 * {@link #free(Duration)} to bound that. Calls from many threads at once all return once the
	 * executor is freed; a call after that does nothing.
	 * @throws UformException {@link Status#INVALID_ARGUMENT} from inside a task or deferred call of
	 *         this executor, which would wait for itself, or while a live {@link Mesh} borrows it (free
	 *         the mesh first); {@link Status#INTERRUPTED} when interrupted while waiting: the executor
	 *         is then freed as {@link #free(Duration)} frees one that runs out of time
	 */
	public void free() {
		this.freeing.free(null);
	}

	/**
	 * Frees the executor as {@link #free()} does, but waits at most {@code period} for the deferred
	 * calls still queued or running and the fork in progress. When they do not finish in time, it
	 * gives up on them: the calls that had not started never run (their futures complete with
	 * {@link Status#FREED}), the call still running is left to return by itself (it is not
	 * interrupted, as Spring's executors do not interrupt on a timed-out await-termination), and
	 * the executor is freed anyway: new work is refused, every idle thread is joined, and the rest
	 * end as soon as what they run returns.
	 * @param period how long to wait, as Spring Boot's {@code await-termination-period}
	 * @throws UformException {@link Status#TIMEOUT} when it gave up, naming the call that was still
	 *         running and where it was; the executor is freed all the same.
	 *         {@link Status#INVALID_ARGUMENT} while a live {@link Mesh} borrows it: free the mesh first
	 */
	public void free(Duration period) {
		UformException.requireArgument(period, "period", "pass how long to wait, e.g. Duration.ofSeconds(30)");
		if (period.isNegative()) {
			throw UformException.invalid("period", period, "must be zero (do not wait) or positive");
		}
		this.freeing.free(period);
	}

	/**
	 * Leaves this executor's shutdown at JVM exit to whoever owns it. Without this, uform's own
	 * shutdown hook completes the futures of the deferred calls still queued at exit with
	 * {@link Status#FREED} at once (see {@link #free()}). An owner that frees the executor from a
	 * shutdown hook of its own, as the Spring Boot starter does when SIGTERM closes the application
	 * context, calls this once it has the executor: JVM shutdown hooks run at the same time, and
	 * uform's would otherwise drop the queued calls while the owner's graceful shutdown is still
	 * letting them run. The owner must then free the executor at exit, or the futures of calls queued
	 * at exit never complete. Calling it again, or on a freed executor, does nothing more.
	 */
	public void leaveExitToOwner() {
		this.resources.deferred.leaveExitToOwner();
	}

	/**
	 * Whether the current thread is one this executor's work may be waiting for: its deferred thread,
	 * or a thread inside one of its tasks. Work handed to the executor from there and then waited for
	 * would queue behind its own submitter and never run; so {@link DeferredCallExecutor} runs such a
	 * task inline, as a nested fork runs, and a model on the executor embeds inline there instead of
	 * deferring. Code of yours that defers and waits should do the same.
	 * @return {@code true} on the deferred thread or inside a task of this executor
	 */
	public boolean isOwnThread() {
		return this.resources.deferred.isRunnerThread() || this.resources.pool.isInsideTask();
	}

	/**
	 * Whether this executor was freed: the state {@link #statistics()} reports, without the rest of its
	 * snapshot (a mesh's bootstrap asks before it begins).
	 */
	boolean isFreed() {
		return this.resources.freed.get();
	}

	/**
	 * Counts a mesh as borrowing this executor, so that {@link #free()} refuses until it is freed.
	 * @param what the mesh, as the refusal names it: {@code job 'run-42'}
	 * @throws UformException {@link Status#FREED} once the executor is freed or being freed
	 */
	void lendToMesh(String what) {
		this.freeing.lendToMesh(what);
	}

	/**
	 * Counts a mesh lent by {@link #lendToMesh} as gone.
	 * @param what the mesh, as it was lent
	 */
	void returnFromMesh(String what) {
		this.freeing.returnFromMesh(what);
	}

	/**
	 * Each device's ordinal in its backend ({@code CUdevice} ordinal for NVIDIA, after
	 * {@code CUDA_VISIBLE_DEVICES}), for the mesh to query the driver about it.
	 * @return in {@code devices} order; empty for a RAM executor
	 */
	List<Integer> runtimeOrdinals() {
		VramPlan plan = this.resources.plan;
		return (plan == null) ? List.of() : plan.runtimeOrdinals;
	}

	/** Same as {@link #free()}, for try-with-resources. */
	@Override
	public void close() {
		free();
	}

	/**
	 * A snapshot of state and counters; answers after {@link #free()} too.
	 * @return the snapshot
	 */
	public ExecutorStatistics statistics() {
		DeferredCalls deferred = this.resources.deferred;
		DeferredCounts counts = deferred.counts();
		HostPool<ThreadTask, ProngTask, SliceTask> pool = this.resources.pool;
		State state = (this.resources.freed.get()) ? State.FREED
				: (deferred.refusesNew()) ? State.CLOSING : this.draining.inProgress() ? State.DRAINING : State.RUNNING;
		List<Integer> ids = new ArrayList<>(this.placement.domains().size());
		for (NumaDomain domain : this.placement.domains()) {
			ids.add(domain.id());
		}
		List<Integer> domains = Collections.unmodifiableList(ids);
		String pinned = this.resources.pinFailure.get();
		List<ScratchStatistics> scratch = new ArrayList<>();
		for (VramDevice device : this.resources.devices) {
			ScratchArena.Figures figures = device.scratch().figures();
			scratch.add(new ScratchStatistics(device.index(), this.resources.ordinals.get(device.index()),
					figures.reservedBytes(), figures.inUseBytes(), figures.highWaterBytes(),
					(figures.limitBytes() == Long.MAX_VALUE) ? null : figures.limitBytes()));
		}
		Mood mood = pool.isGrinding() ? Mood.GRINDING : Mood.PARKED;
		return new ExecutorStatistics(name(), this.kind, state, mood, threads(), domains,
				this.placement.cpuClass(), (pinned == null) ? "pinned" : "not pinned: " + pinned, pool.forks(),
				deferred.inFlight(), deferred.limit(), counts.completed(), counts.failed(), counts.cancelled(),
				counts.rejected(), deferred.running(), counts.waitCount(), counts.waitNanos(), counts.runCount(),
				counts.runNanos(), this.resources.ordinals, this.resources.gpuClasses,
				this.resources.plan != null && this.resources.plan.streams != null, List.copyOf(scratch));
	}

	@Override
	public String toString() {
		ExecutorStatistics stats = statistics();
		return "Executor[" + stats.name() + ", " + stats.kind() + ", " + stats.state() + ", threads=" + stats.threads()
				+ ", memoryDomains=" + stats.memoryDomains() + ", cpuClass=" + stats.cpuClass() + ", " + stats.pinning()
				+ "]";
	}

	/** Refuses, from inside a task of this executor, a call that waits for the executor's work. */
	private void requireOutsideTask(String what) {
		if (this.resources.pool.isInsideTask()) {
			throw new UformException(Status.INVALID_ARGUMENT, what + " was called from inside a task of executor '"
					+ name() + "', which would wait for itself; call it after the fork returns");
		}
	}

	private static void requireHooks(ExecutorHooks hooks) {
		UformException.requireArgument(hooks, "hooks", "pass ExecutorHooks.NONE for none");
	}

	private HostPool<ThreadTask, ProngTask, SliceTask> pool() {
		checkNotFreed();
		return this.resources.pool;
	}

	private void checkNotFreed() {
		if (this.resources.freed.get()) {
			if (this.resources.deferred.isRunnerThread()) {
				// A call that a bounded free gave up on: a new executor is not what it needs.
				throw new UformException(Status.FREED, "Executor '" + name() + "' was freed while this deferred call was "
						+ "still running (the free's period ran out), so the call can no longer fork on it; return from "
						+ "the call, and make long calls check Thread.interrupted() or a deadline so that they end in time");
			}
			throw new UformException(Status.FREED, "Executor '" + name() + "' was freed; make a new executor to run more work");
		}
	}

	private static void requireTask(Object task) {
		UformException.requireArgument(task, "task", "pass the work to run, e.g. (index, thread, colocation) -> ...");
	}

	private static void checkCount(int n) {
		if (n < 0) {
			throw UformException.invalid("n", n, "a fork runs 0 or more indices");
		}
	}
}
