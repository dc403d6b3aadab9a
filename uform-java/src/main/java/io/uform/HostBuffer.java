package io.uform;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;

/**
 * Native host memory for copies to and from a device ({@link DeviceLane#copyToDevice},
 * {@link DeviceLane#copyToHost}). Copies are queued on the device's stream and read or write this
 * memory later, so it lives outside the Java heap (the collector may move heap arrays) and stays
 * alive until its lane's stream has been synchronised: {@link #close()} synchronises first. Reads,
 * writes and {@code close} hold its monitor, so a close on another thread never frees the memory
 * under a read or write.
 */
public final class HostBuffer implements AutoCloseable {

	private final DeviceLane lane;

	private final long bytes;

	private Memory memory;

	HostBuffer(DeviceLane lane, long bytes) {
		this.lane = lane;
		this.bytes = bytes;
		try {
			this.memory = new Memory(bytes);
		}
		catch (OutOfMemoryError ex) {
			throw new UformException(UformException.Status.OUT_OF_MEMORY, "A host buffer of " + bytes + " bytes could not be "
					+ "allocated (" + ex.getMessage() + "); use a smaller buffer and copy in parts", ex);
		}
	}

	/**
	 * Its size.
	 * @return bytes
	 */
	public long bytes() {
		return this.bytes;
	}

	/**
	 * Writes floats at a byte offset.
	 * @param offset where, in bytes
	 * @param values what
	 * @return this buffer
	 */
	public synchronized HostBuffer putFloats(long offset, float[] values) {
		UformException.requireArgument(values, "values", "pass the floats to write");
		check(offset, (long) values.length * Float.BYTES, "putFloats");
		this.memory.write(offset, values, 0, values.length);
		return this;
	}

	/**
	 * Reads floats from a byte offset.
	 * @param offset where, in bytes
	 * @param into where to put them; its length says how many
	 * @return {@code into}
	 */
	public synchronized float[] getFloats(long offset, float[] into) {
		UformException.requireArgument(into, "into", "pass an array as long as the floats to read");
		check(offset, (long) into.length * Float.BYTES, "getFloats");
		this.memory.read(offset, into, 0, into.length);
		return into;
	}

	/**
	 * Writes bytes at an offset.
	 * @param offset where
	 * @param values what
	 * @return this buffer
	 */
	public synchronized HostBuffer putBytes(long offset, byte[] values) {
		UformException.requireArgument(values, "values", "pass the bytes to write");
		check(offset, values.length, "putBytes");
		this.memory.write(offset, values, 0, values.length);
		return this;
	}

	/**
	 * Reads bytes from an offset.
	 * @param offset where
	 * @param into where to put them; its length says how many
	 * @return {@code into}
	 */
	public synchronized byte[] getBytes(long offset, byte[] into) {
		UformException.requireArgument(into, "into", "pass an array as long as the bytes to read");
		check(offset, into.length, "getBytes");
		this.memory.read(offset, into, 0, into.length);
		return into;
	}

	/**
	 * Waits for the lane's stream, so no queued copy still uses this memory, then frees it. After the
	 * executor was freed (its streams were synchronised then) it only frees.
	 */
	@Override
	public synchronized void close() {
		if (this.memory != null) {
			this.lane.synchronizeIfLive();
			this.memory.close();
			this.memory = null;
		}
	}

	/**
	 * Refuses a copy on another lane: {@link #close()} waits for this buffer's own lane's stream only,
	 * and would free the memory under a copy still queued on another.
	 */
	void requireLane(DeviceLane used, String use) {
		if (used != this.lane) {
			throw new UformException(UformException.Status.INVALID_ARGUMENT, "A host buffer of " + this.lane + " was "
					+ "used in " + use + " on " + used + "; make one with that lane's hostBuffer(bytes)");
		}
	}

	/** The native memory, for the executor's own driver calls; checks the range. */
	synchronized Pointer pointer(long offset, long length, String use) {
		check(offset, length, use);
		return this.memory.share(offset);
	}

	private synchronized void check(long offset, long length, String use) {
		if (this.memory == null) {
			throw new UformException(UformException.Status.INVALID_ARGUMENT, "A host buffer was used in " + use
					+ " after it was closed");
		}
		if (offset < 0 || length < 0 || offset > this.bytes - length) {
			throw UformException.invalid("offset", offset, use + " of " + length + " bytes does not fit a host buffer of "
					+ this.bytes + " bytes");
		}
	}
}
