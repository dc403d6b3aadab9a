package io.uform.gpu;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import io.uform.failure.Failures;

/**
 * What a VRAM executor owns on one device: the open context, one stream (created, or borrowed and
 * never destroyed), the scratch arena, and the modules it loaded (once per PTX text). The executor
 * makes one per device and releases it when freed.
 *
 * <p>Calls that reach the driver need the context current on the calling thread; the executor's
 * threads do that ({@link #makeCurrent()}), user code never has to. Module loading is
 * {@code synchronized}: deferred calls and fork tasks may both load a kernel on one device.
 *
 * <h2>Work against release</h2>
 * Invariant between a lane's verbs (any thread) and {@link #release()} (the thread that frees the
 * executor, or the deferred thread): every verb runs between {@link #enterWork} and {@link #exitWork},
 * holding {@link #inUse}'s read lock from its check of {@link #released} until its driver call has
 * returned; release sets {@code released} (no new verb gets in) and then takes the write lock before
 * it touches the stream, the scratch or the context. So a verb racing a release either finishes
 * before anything is given back or fails with {@code FREED}; none reaches the driver with memory or a
 * stream that was already given back (which, with another user keeping the context alive, could
 * write into someone else's memory). Lock order: a host buffer's monitor, then {@link #inUse}, then
 * this object's monitor or the scratch arena's ({@code HostBuffer.close()} holds its monitor while it
 * waits for the stream, so a copy takes the buffer's monitor before it enters).
 *
 * <h2>Events</h2>
 * A timed drain marks the stream with an event ({@link #recordEvent()}) and destroys it when done
 * ({@link #destroyEvent(long)}), both as verbs, between {@link #enterWork} and {@link #exitWork}.
 * Between its polls the drain holds no lock, so a release may run in between; then the drain can no
 * longer enter to destroy its event, and the release does it: every event recorded and not yet
 * destroyed is in {@link #events}, which the release empties before it closes the context. Each
 * event is so destroyed exactly once, by its drain or by the release, whichever removes it from the
 * set (the release under the write lock, the drain under a read lock: never both at once).
 */
public final class VramDevice {

	private final int index;

	private final DeviceFacts device;

	private final GpuRuntime runtime;

	private final DeviceContext context;

	/** The backend's ordinal, as its driver numbers the devices this process sees. */
	private final int ordinal;

	private final long stream;

	private final boolean ownsStream;

	private final ScratchArena scratch;

	private final Map<String, Long> modules = new HashMap<>();

	private final Map<String, Long> functions = new HashMap<>();

	/** Set first thing by {@link #release()}; volatile so that work is refused without waiting. */
	private volatile boolean released;

	/** Read-held by a verb from its check to its driver call's return, write-held by the release. */
	private final ReentrantReadWriteLock inUse = new ReentrantReadWriteLock();

	/** Events recorded on the stream and not destroyed yet; drains on several threads add and remove. */
	private final Set<Long> events = ConcurrentHashMap.newKeySet();

	/** Written under {@link #inUse}'s write lock: whether the release ran (not only began). */
	private boolean releaseDone;

	/**
	 * Opens the device, makes its context current on this thread and creates or borrows the stream.
	 * @param index the device's position among the executor's devices
	 * @param device the device
	 * @param runtime its backend
	 * @param ordinal the backend's ordinal for it
	 * @param borrowedStream a stream to borrow, or {@code null} to create one
	 * @param executor the executor's name, for messages
	 * @param scratchLimit bytes, or {@code Long.MAX_VALUE} for none
	 */
	public VramDevice(int index, DeviceFacts device, GpuRuntime runtime, int ordinal, Long borrowedStream,
			String executor, long scratchLimit) {
		this.index = index;
		this.device = device;
		this.runtime = runtime;
		this.ordinal = ordinal;
		this.context = runtime.open(ordinal);
		try {
			this.context.makeCurrent();
			this.ownsStream = (borrowedStream == null);
			this.stream = (this.ownsStream) ? this.context.createStream() : borrowedStream;
		}
		catch (RuntimeException | Error ex) {
			this.context.close();
			throw ex;
		}
		this.scratch = new ScratchArena(this.context, "executor '" + executor + "', device " + index + " ("
				+ device.name() + ")", scratchLimit);
	}

	/**
	 * The device's position among the executor's devices.
	 * @return from 0
	 */
	public int index() {
		return this.index;
	}

	/**
	 * The device.
	 * @return its description
	 */
	public DeviceFacts device() {
		return this.device;
	}

	/**
	 * The device's ordinal in its backend as this process sees it: for CUDA, what {@code cuDeviceGet}
	 * takes, counted after {@code CUDA_VISIBLE_DEVICES}.
	 * @return from 0
	 */
	public int ordinal() {
		return this.ordinal;
	}

	/**
	 * The backend's name.
	 * @return {@code cuda} or {@code simulated}
	 */
	public String runtimeName() {
		return this.runtime.name();
	}

	/**
	 * The open context, for the executor's own driver calls.
	 * @return the context
	 */
	public DeviceContext context() {
		return this.context;
	}

	/**
	 * The stream work is queued on.
	 * @return the {@code CUstream} address
	 */
	public long stream() {
		return this.stream;
	}

	/**
	 * Whether the stream was borrowed (and so is never destroyed here).
	 * @return {@code true} for a borrowed stream
	 */
	public boolean borrowedStream() {
		return !this.ownsStream;
	}

	/**
	 * The scratch arena.
	 * @return the arena
	 */
	public ScratchArena scratch() {
		return this.scratch;
	}

	/**
	 * Binds the context to the calling thread, for work a user queues: refused once released. Only
	 * for a thread the release cannot overlap (the executor's own workers before a device task); a
	 * verb that reaches the driver uses {@link #enterWork} instead.
	 * @param executor the executor's name, for the message
	 * @throws RuntimeException {@code FREED} after {@link #release()}
	 */
	public void makeCurrentForWork(String executor) {
		if (this.released) {
			throw freed(executor);
		}
		this.context.makeCurrent();
	}

	/**
	 * Begins a verb that reaches the driver: refused once released, else holds off the release until
	 * {@link #exitWork()} and binds the context to the calling thread. Call {@code exitWork} in a
	 * {@code finally} exactly when this returned normally.
	 * @param executor the executor's name, for the message
	 * @throws RuntimeException {@code FREED} once {@link #release()} has begun
	 */
	public void enterWork(String executor) {
		if (this.released) {
			// Checked before the lock too: a release waiting for the write lock holds new readers back,
			// and a verb that arrives after the release began is refused at once, not after it.
			throw freed(executor);
		}
		this.inUse.readLock().lock();
		try {
			if (this.released) {
				throw freed(executor);
			}
			this.context.makeCurrent();
		}
		catch (RuntimeException | Error ex) {
			this.inUse.readLock().unlock();
			throw ex;
		}
	}

	/** Ends a verb begun by {@link #enterWork}: the release may go on once no verb is in progress. */
	public void exitWork() {
		this.inUse.readLock().unlock();
	}

	/**
	 * Waits until a release that has begun has ended (the stream synchronised, the memory given back):
	 * a read lock is granted only once the writer is done. For a host buffer about to be freed, which
	 * a copy on the stream may use until then. The caller must hold no verb's read lock (a
	 * {@code HostBuffer.close()}, holding only its own monitor, does not: a copy on that buffer, the
	 * only verb that takes the monitor, takes it before the read lock).
	 */
	public void awaitReleaseDone() {
		this.inUse.readLock().lock();
		this.inUse.readLock().unlock();
	}

	private RuntimeException freed(String executor) {
		return Failures.factory().freed("Executor '" + executor + "' was freed, and device " + this.index
				+ " with it; make a new executor to run more work");
	}

	/**
	 * Whether {@link #release()} has begun: no new work gets in, and the stream, scratch and context
	 * are gone or going once the verbs in progress have returned.
	 * @return {@code true} once released
	 */
	public boolean released() {
		return this.released;
	}

	/** Binds the context to the calling thread. */
	public void makeCurrent() {
		this.context.makeCurrent();
	}

	/** Waits for everything queued on the stream; the context must be current. */
	public void synchronize() {
		this.context.synchronize(this.stream);
	}

	/**
	 * Records an event on the stream, which completes once the work queued on it so far is done,
	 * whatever is queued after; the context must be current, inside a verb ({@link #enterWork}).
	 * Destroy it with {@link #destroyEvent(long)}; a release destroys those still live.
	 * @return the {@code CUevent}
	 */
	public long recordEvent() {
		long event = this.context.createEvent();
		this.events.add(event);
		try {
			this.context.recordEvent(event, this.stream);
		}
		catch (RuntimeException | Error ex) {
			try {
				destroyEvent(event);
			}
			catch (RuntimeException | Error destroyFailed) {
				ex.addSuppressed(destroyFailed);
			}
			throw ex;
		}
		return event;
	}

	/**
	 * Whether the work queued before the event was recorded is done, without waiting; the context must
	 * be current, inside a verb.
	 * @param event from {@link #recordEvent()}
	 * @return {@code true} once that work is done
	 */
	public boolean eventDone(long event) {
		return this.context.eventDone(event);
	}

	/**
	 * Destroys an event from {@link #recordEvent()}, unless it is destroyed already; the context must
	 * be current, inside a verb.
	 * @param event the event
	 */
	public void destroyEvent(long event) {
		// Removed first: a failing destroy is not retried by the release, the driver said its word.
		if (this.events.remove(event)) {
			this.context.destroyEvent(event);
		}
	}

	/**
	 * The kernel {@code entry} of a PTX module, loading the module the first time this device sees
	 * that text; the context must be current.
	 * @param ptx the module's text
	 * @param entry the kernel's name
	 * @return the {@code CUfunction}
	 */
	public synchronized long function(String ptx, String entry) {
		if (this.released) {
			throw Failures.factory().freed("Device " + this.index + " of this executor was freed");
		}
		String key = entry + '\u0000' + ptx;
		Long function = this.functions.get(key);
		if (function != null) {
			return function;
		}
		Long module = this.modules.get(ptx);
		if (module == null) {
			module = this.context.loadModule(ptx);
			this.modules.put(ptx, module);
		}
		long found = this.context.function(module, entry);
		this.functions.put(key, found);
		return found;
	}

	/**
	 * Modules loaded so far.
	 * @return how many
	 */
	public synchronized int modulesLoaded() {
		return this.modules.size();
	}

	/**
	 * Releases everything in order, with the context current on the calling thread: refuses new work,
	 * waits for the verbs in progress on other threads, waits for the stream, destroys the events that
	 * drains left (those the release overtook), unloads the modules,
	 * destroys the stream if it was created here, frees the scratch, closes the context. Every step
	 * runs even if one fails; the first failure is thrown at the end. Calling it again does nothing.
	 * Never call it from inside a verb (a thread holding the read lock would wait for itself); the
	 * executor releases on its own threads once no task can run.
	 */
	public void release() {
		this.released = true;
		this.inUse.writeLock().lock();
		try {
			if (this.releaseDone) {
				return;
			}
			this.releaseDone = true;
			releaseNow();
		}
		finally {
			this.inUse.writeLock().unlock();
		}
	}

	private synchronized void releaseNow() {
		EveryStep steps = new EveryStep();
		steps.run(this.context::makeCurrent);
		steps.run(this::synchronize);
		// No verb runs now (the write lock is held), so nothing adds to the set while it is emptied.
		for (long event : this.events) {
			steps.run(() -> this.context.destroyEvent(event));
		}
		this.events.clear();
		for (long module : this.modules.values()) {
			steps.run(() -> this.context.unloadModule(module));
		}
		this.modules.clear();
		this.functions.clear();
		if (this.ownsStream) {
			steps.run(() -> this.context.destroyStream(this.stream));
		}
		steps.run(this.scratch::close);
		steps.run(this.context::close);
		steps.throwFirst();
	}
}
