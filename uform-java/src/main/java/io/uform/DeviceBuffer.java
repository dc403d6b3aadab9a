package io.uform;

import io.uform.gpu.ScratchArena;

/**
 * A reservation of a VRAM executor's scratch on one device: device memory a task copies into and
 * passes to kernels ({@link KernelArgs#buffer(DeviceBuffer)}). Its address never reaches user code,
 * so a kernel can only be given memory the executor handed out. Close it to give the memory back to
 * the scratch for reuse; what is still open is freed with the executor.
 *
 * <p>Work on one device runs in order on its one stream, so a closed reservation can be handed out
 * again at once: later work on that stream runs after earlier work that used it.
 */
public final class DeviceBuffer implements AutoCloseable {

	private final DeviceLane lane;

	private final ScratchArena scratch;

	private final long address;

	private final long bytes;

	private boolean closed;

	DeviceBuffer(DeviceLane lane, ScratchArena scratch, long address, long bytes) {
		this.lane = lane;
		this.scratch = scratch;
		this.address = address;
		this.bytes = bytes;
	}

	/**
	 * The bytes asked for (the reservation may hold a little more, rounded up).
	 * @return at least 1
	 */
	public long bytes() {
		return this.bytes;
	}

	/**
	 * The device it lives on.
	 * @return the lane that reserved it
	 */
	public DeviceLane lane() {
		return this.lane;
	}

	/**
	 * Whether it was given back.
	 * @return {@code true} after {@link #close()}
	 */
	public synchronized boolean closed() {
		return this.closed;
	}

	/** Gives the memory back to the scratch; a second call does nothing. */
	@Override
	public synchronized void close() {
		if (!this.closed) {
			this.closed = true;
			this.scratch.release(this.address);
		}
	}

	/** The device address, for the executor's own driver calls; checks the reservation is live. */
	synchronized long address(DeviceLane user, String use) {
		if (this.closed) {
			throw new UformException(UformException.Status.INVALID_ARGUMENT, "A device buffer of " + this.bytes
					+ " bytes was used in " + use + " after it was closed; keep it open until the work that uses it is queued");
		}
		if (user != this.lane) {
			throw new UformException(UformException.Status.INVALID_ARGUMENT, "A device buffer of device "
					+ this.lane.index() + " was used in " + use + " on device " + user.index()
					+ "; reserve it on the device that uses it");
		}
		return this.address;
	}

	@Override
	public String toString() {
		return "DeviceBuffer[" + this.bytes + " bytes on device " + this.lane.index() + (this.closed ? ", closed" : "") + "]";
	}
}
