package io.uform;

/**
 * Work that {@link Executor#forDevices(DeviceTask)} runs once per device of a VRAM executor, all
 * devices in parallel, each on a host thread with that device's context current.
 */
@FunctionalInterface
public interface DeviceTask {

	/**
	 * Runs for one device.
	 * @param lane the device, its stream and its scratch
	 */
	void run(DeviceLane lane);
}
