package io.uform.gpu;

/**
 * What tests outside this package need of a {@link SimulatedRuntime}'s streams and events: work
 * that stays running on a stream until the test finishes it (what a kernel another library queued on
 * a shared stream is on a GPU), and how many events are live, to show that none leaked.
 */
public final class SimulatedStreams {

	private SimulatedStreams() {
	}

	/**
	 * Queues work on a stream that runs until {@link RunningWork#finish()}.
	 * @param runtime the simulated runtime
	 * @param ordinal the simulated ordinal
	 * @param stream a stream of that device, or 0 for its legacy default stream
	 * @return the work
	 */
	public static RunningWork start(SimulatedRuntime runtime, int ordinal, long stream) {
		return new RunningWork(runtime.startWork(ordinal, stream));
	}

	/**
	 * Events created on a device and not destroyed, by every context of it.
	 * @param runtime the simulated runtime
	 * @param ordinal the simulated ordinal
	 * @return how many
	 */
	public static int liveEvents(SimulatedRuntime runtime, int ordinal) {
		return runtime.liveEvents(ordinal);
	}

	/** Work running on a simulated stream. */
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
}
