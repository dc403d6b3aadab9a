package io.uform;

/**
 * A kernel loaded on one device of a VRAM executor ({@link DeviceLane#kernel(KernelSource)}): the
 * module is loaded once per device and PTX text, and unloaded when the executor is freed.
 */
public final class Kernel {

	private final DeviceLane lane;

	private final String entry;

	private final long function;

	Kernel(DeviceLane lane, String entry, long function) {
		this.lane = lane;
		this.entry = entry;
		this.function = function;
	}

	/**
	 * The kernel's name in its module.
	 * @return the entry
	 */
	public String entry() {
		return this.entry;
	}

	/**
	 * The device it was loaded on.
	 * @return the lane
	 */
	public DeviceLane lane() {
		return this.lane;
	}

	long function(DeviceLane user) {
		if (user != this.lane) {
			throw new UformException(UformException.Status.INVALID_ARGUMENT, "Kernel " + this.entry + " of device "
					+ this.lane.index() + " was launched on device " + user.index() + "; load it on each device with kernel()");
		}
		return this.function;
	}

	@Override
	public String toString() {
		return "Kernel[" + this.entry + " on device " + this.lane.index() + "]";
	}
}
