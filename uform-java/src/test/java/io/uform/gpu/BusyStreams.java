package io.uform.gpu;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.jna.Pointer;

/**
 * A {@link SimulatedRuntime} whose streams a test can keep busy: work started with
 * {@link #start(int, long)} runs until the test finishes it, as a kernel that another library queued
 * on a shared stream runs on a GPU. The simulated runtime itself leaves nothing running (copies move
 * their bytes when they are queued), so this layers a GPU's completion order ({@link SimulatedStream})
 * over its contexts: a stream query sees all running work, also work queued a moment ago; an event
 * sees only the work queued before it was recorded; a synchronise waits for the work queued before
 * it. Everything else, checks and failures included, is the simulated runtime's own.
 */
public final class BusyStreams implements GpuRuntime {

	private final SimulatedRuntime runtime;

	/** Each stream's running work, by device, since stream 0 is a different stream on every device. */
	private final Map<DeviceStream, SimulatedStream> streams = new ConcurrentHashMap<>();

	/** Where each event recorded through these contexts was recorded. */
	private final Map<Long, Recorded> recorded = new ConcurrentHashMap<>();

	/** Events created through these contexts, by device; {@link #liveEvents} asks which still exist. */
	private final Map<Integer, Set<Long>> created = new ConcurrentHashMap<>();

	/**
	 * Busy streams over simulated devices.
	 * @param runtime the simulated runtime whose contexts do the work
	 */
	public BusyStreams(SimulatedRuntime runtime) {
		this.runtime = runtime;
	}

	/**
	 * The simulated devices.
	 * @return as {@link SimulatedRuntime#devices()} lists them
	 */
	public List<DeviceFacts> devices() {
		return this.runtime.devices();
	}

	@Override
	public String name() {
		return this.runtime.name();
	}

	@Override
	public DeviceContext open(int ordinal) {
		return new BusyContext(this.runtime.open(ordinal), ordinal);
	}

	/**
	 * Queues on a stream work that runs until {@link RunningWork#finish()}.
	 * @param ordinal the simulated ordinal
	 * @param stream a stream of that device, or 0 for its legacy default stream
	 * @return the work
	 * @throws RuntimeException {@code DEVICE_ERROR} for a stream the device does not have
	 */
	public RunningWork start(int ordinal, long stream) {
		try (DeviceContext probe = this.runtime.open(ordinal)) {
			probe.idle(stream);
		}
		return new RunningWork(stream(ordinal, stream).start());
	}

	/**
	 * Events created on a device through these contexts and not destroyed yet, by a destroy or with
	 * the context that made them, as the simulated runtime itself answers.
	 * @param ordinal the simulated ordinal
	 * @return how many
	 */
	public int liveEvents(int ordinal) {
		int live = 0;
		try (DeviceContext probe = this.runtime.open(ordinal)) {
			for (long event : this.created.getOrDefault(ordinal, Set.of())) {
				try {
					probe.eventDone(event);
					live++;
				}
				catch (RuntimeException gone) {
					// The runtime no longer knows it.
				}
			}
		}
		return live;
	}

	private SimulatedStream stream(int ordinal, long stream) {
		return this.streams.computeIfAbsent(new DeviceStream(ordinal, stream), (key) -> new SimulatedStream());
	}

	private record DeviceStream(int ordinal, long stream) {
	}

	private record Recorded(SimulatedStream stream, long position) {
	}

	/** Work running on a busy stream. */
	public static final class RunningWork {

		private final SimulatedStream.Work work;

		RunningWork(SimulatedStream.Work work) {
			this.work = work;
		}

		/** Ends the work; finishing it again does nothing. */
		public void finish() {
			this.work.finish();
		}
	}

	/** A simulated context, with the waits and queries that see running work. */
	private final class BusyContext implements DeviceContext {

		private final DeviceContext context;

		private final int ordinal;

		BusyContext(DeviceContext context, int ordinal) {
			this.context = context;
			this.ordinal = ordinal;
		}

		@Override
		public void synchronize(long stream) {
			this.context.synchronize(stream);
			stream(this.ordinal, stream).awaitQueuedSoFar();
		}

		@Override
		public boolean idle(long stream) {
			return this.context.idle(stream) && stream(this.ordinal, stream).idle();
		}

		@Override
		public long createEvent() {
			long event = this.context.createEvent();
			BusyStreams.this.created.computeIfAbsent(this.ordinal, (key) -> ConcurrentHashMap.newKeySet()).add(event);
			return event;
		}

		@Override
		public void recordEvent(long event, long stream) {
			this.context.recordEvent(event, stream);
			SimulatedStream on = stream(this.ordinal, stream);
			BusyStreams.this.recorded.put(event, new Recorded(on, on.position()));
		}

		@Override
		public boolean eventDone(long event) {
			// As cuEventQuery: an event never recorded is done.
			Recorded at = (this.context.eventDone(event)) ? BusyStreams.this.recorded.get(event) : null;
			return at == null || at.stream().reached(at.position());
		}

		@Override
		public void destroyEvent(long event) {
			this.context.destroyEvent(event);
			BusyStreams.this.recorded.remove(event);
		}

		@Override
		public int ordinal() {
			return this.context.ordinal();
		}

		@Override
		public void makeCurrent() {
			this.context.makeCurrent();
		}

		@Override
		public long createStream() {
			return this.context.createStream();
		}

		@Override
		public void destroyStream(long stream) {
			this.context.destroyStream(stream);
		}

		@Override
		public long allocate(long bytes) {
			return this.context.allocate(bytes);
		}

		@Override
		public void free(long address) {
			this.context.free(address);
		}

		@Override
		public MemoryInfo memoryInfo() {
			return this.context.memoryInfo();
		}

		@Override
		public void copyToDevice(long device, Pointer host, long bytes, long stream) {
			this.context.copyToDevice(device, host, bytes, stream);
		}

		@Override
		public void copyToHost(Pointer host, long device, long bytes, long stream) {
			this.context.copyToHost(host, device, bytes, stream);
		}

		@Override
		public long loadModule(String ptx) {
			return this.context.loadModule(ptx);
		}

		@Override
		public long function(long module, String entry) {
			return this.context.function(module, entry);
		}

		@Override
		public void unloadModule(long module) {
			this.context.unloadModule(module);
		}

		@Override
		public void launch(long function, int[] grid, int[] block, int sharedBytes, long stream,
				KernelArgument[] arguments) {
			this.context.launch(function, grid, block, sharedBytes, stream, arguments);
		}

		@Override
		public void close() {
			this.context.close();
		}
	}
}
