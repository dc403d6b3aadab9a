package io.uform.gpu;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import io.uform.failure.Failures;

/**
 * The activation scratch of one device of a VRAM executor: device memory taken from the driver in
 * blocks as reservations ask for it, kept for reuse when a reservation is released, and never more
 * in total than the executor's {@code scratchLimit}.
 *
 * <h2>Policy</h2>
 * A reservation takes the smallest free block that fits and is at most twice its size (so a small
 * request does not pin a huge block); otherwise the arena allocates a new block of exactly the size
 * asked (rounded up to {@link #ALIGNMENT}). When that would pass the limit, or the driver is out of
 * memory, the arena first gives its free blocks back to the driver and tries once more; only then
 * does the reservation fail, with {@code OUT_OF_MEMORY} naming the device, the bytes asked,
 * the bytes held and the limit. The executor stays usable after such a failure.
 *
 * <h2>Threads</h2>
 * Every method is {@code synchronized}: reservations come from the device's fork task and from
 * deferred calls, one at a time per device in practice, so the lock is uncontended. Driver calls
 * need the device's context current on the calling thread, which the executor guarantees.
 */
public final class ScratchArena {

	/** Every block and reservation is a multiple of this, the alignment CUDA gives allocations. */
	public static final long ALIGNMENT = 256;

	private final DeviceContext context;

	private final String where;

	private final long limit;

	private final List<Block> free = new ArrayList<>();

	private final List<Block> used = new ArrayList<>();

	private long reserved;

	private long inUse;

	private long highWater;

	private boolean closed;

	/**
	 * Makes an empty arena.
	 * @param context the device it allocates on
	 * @param where names the executor and device in messages, like {@code executor 'vram-2', device 0}
	 * @param limit the most bytes it may hold at once, or {@code Long.MAX_VALUE} for no limit (the
	 *        device's free memory is then the bound)
	 */
	public ScratchArena(DeviceContext context, String where, long limit) {
		this.context = context;
		this.where = where;
		this.limit = limit;
	}

	/**
	 * Reserves scratch.
	 * @param bytes at least 1
	 * @return the device address of at least {@code bytes} bytes, aligned to {@link #ALIGNMENT}
	 * @throws RuntimeException {@code OUT_OF_MEMORY} past the limit or the device's memory;
	 *         {@code FREED} after {@link #close()}
	 */
	public synchronized long reserve(long bytes) {
		if (this.closed) {
			throw Failures.factory().freed("The scratch of " + this.where + " was freed with its executor");
		}
		long size = roundUp(bytes);
		Block block = takeFree(size);
		if (block == null) {
			block = allocate(size, bytes);
		}
		this.used.add(block);
		this.inUse += block.size;
		this.highWater = Math.max(this.highWater, this.inUse);
		return block.address;
	}

	/**
	 * Gives a reservation back for reuse; the memory stays held by the arena.
	 * @param address an address {@link #reserve(long)} returned and not yet released
	 */
	public synchronized void release(long address) {
		if (this.closed) {
			// Freed with the executor: the memory is already back with the driver.
			return;
		}
		for (Iterator<Block> it = this.used.iterator(); it.hasNext();) {
			Block block = it.next();
			if (block.address == address) {
				it.remove();
				this.inUse -= block.size;
				this.free.add(block);
				return;
			}
		}
		throw new IllegalStateException("address 0x" + Long.toHexString(address) + " is not reserved in " + this.where);
	}

	/**
	 * The figures for statistics: held from the driver, handed out now, the most handed out at once,
	 * and the limit.
	 * @return a snapshot
	 */
	public synchronized Figures figures() {
		return new Figures(this.reserved, this.inUse, this.highWater, this.limit);
	}

	/**
	 * Frees every block back to the driver, reserved or not, and refuses later reservations. Calling
	 * it again does nothing.
	 */
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		List<Block> all = new ArrayList<>(this.free);
		all.addAll(this.used);
		this.free.clear();
		this.used.clear();
		this.reserved = 0;
		this.inUse = 0;
		freeEach(all);
	}

	private Block takeFree(long size) {
		Block best = null;
		for (Block block : this.free) {
			if (block.size >= size && block.size / 2 <= size && (best == null || block.size < best.size)) {
				best = block;
			}
		}
		if (best != null) {
			this.free.remove(best);
		}
		return best;
	}

	private Block allocate(long size, long asked) {
		// Written so that it cannot overflow: a size near Long.MAX_VALUE would wrap the sum.
		if (size > this.limit - this.reserved) {
			trim();
			if (size > this.limit - this.reserved) {
				throw outOfMemory(asked, "that would pass the executor's scratchLimit");
			}
		}
		long address;
		try {
			address = this.context.allocate(size);
		}
		catch (RuntimeException ex) {
			boolean outOfMemory = Failures.factory().isOutOfMemory(ex);
			if (!outOfMemory || this.free.isEmpty()) {
				throw outOfMemory ? outOfMemory(asked, "the device's free memory ran out", ex) : ex;
			}
			trim();
			try {
				address = this.context.allocate(size);
			}
			catch (RuntimeException again) {
				throw Failures.factory().isOutOfMemory(again)
						? outOfMemory(asked, "the device's free memory ran out", again) : again;
			}
		}
		this.reserved += size;
		return new Block(address, size);
	}

	/** Gives every free block back to the driver. */
	private void trim() {
		List<Block> blocks = new ArrayList<>(this.free);
		this.free.clear();
		for (Block block : blocks) {
			this.reserved -= block.size;
		}
		freeEach(blocks);
	}

	/**
	 * Frees every block, going on past a failure, then throws the first failure (the others
	 * suppressed into it). The blocks must already be out of {@link #free} and {@link #used}: a block
	 * whose free failed is in an unknown state, and one freed before a later failure must never be
	 * handed out again, nor freed twice by {@link #close()}.
	 */
	private void freeEach(List<Block> blocks) {
		EveryStep steps = new EveryStep();
		for (Block block : blocks) {
			steps.run(() -> this.context.free(block.address));
		}
		steps.throwFirst();
	}

	private RuntimeException outOfMemory(long asked, String bound) {
		return outOfMemory(asked, bound, null);
	}

	private RuntimeException outOfMemory(long asked, String bound, Throwable cause) {
		String limitText = (this.limit == Long.MAX_VALUE) ? "none" : this.limit + " bytes";
		return Failures.factory().outOfMemory("Scratch of " + this.where + " could not grow by " + asked
				+ " bytes: it holds " + this.reserved + " bytes (" + this.inUse + " in use), and " + bound
				+ " (scratchLimit: " + limitText + "). Release reservations you no longer need, ask for less per call, "
				+ "or raise scratchLimit", cause);
	}

	private static long roundUp(long bytes) {
		if (bytes < 1) {
			throw Failures.factory().invalid("bytes", bytes, "reserve at least 1 byte of scratch");
		}
		if (bytes > Long.MAX_VALUE - ALIGNMENT) {
			throw Failures.factory().invalid("bytes", bytes, "no device has that much memory");
		}
		return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
	}

	/**
	 * Scratch figures of one device.
	 * @param reservedBytes held from the driver
	 * @param inUseBytes handed out now
	 * @param highWaterBytes the most handed out at once
	 * @param limitBytes the limit, {@code Long.MAX_VALUE} for none
	 */
	public record Figures(long reservedBytes, long inUseBytes, long highWaterBytes, long limitBytes) {
	}

	/** One driver allocation. */
	private record Block(long address, long size) {
	}
}
