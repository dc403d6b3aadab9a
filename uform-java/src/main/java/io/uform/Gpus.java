package io.uform;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.uform.gpu.DeviceFacts;
import io.uform.gpu.GpuDiscovery;
import io.uform.gpu.Readings;

/**
 * The API's GPU value types made from the runtime's and back: {@link GpuDevice} from
 * {@link DeviceFacts}, {@link GpuReadings} from {@link Readings}, vendors by name. The runtime
 * ({@code io.uform.gpu}) names no API type, so that the two packages do not import each other.
 */
final class Gpus {

	/** The last discovery's devices, made once, so that every caller gets the same list. */
	private static volatile Listed listed;

	private Gpus() {
	}

	/**
	 * A discovery's devices, as the API shows them.
	 * @param discovery the discovery
	 * @return its devices, in its order; the same list on every call for one discovery
	 */
	static List<GpuDevice> devices(GpuDiscovery discovery) {
		Listed last = listed;
		if (last == null || last.discovery != discovery) {
			last = new Listed(discovery, devices(discovery.devices()));
			listed = last;
		}
		return last.devices;
	}

	/**
	 * Devices as the API shows them.
	 * @param facts the runtime's devices
	 * @return the same devices, in the same order
	 */
	static List<GpuDevice> devices(List<DeviceFacts> facts) {
		List<GpuDevice> devices = new ArrayList<>(facts.size());
		for (DeviceFacts device : facts) {
			devices.add(device(device));
		}
		return Collections.unmodifiableList(devices);
	}

	static GpuDevice device(DeviceFacts facts) {
		return new GpuDevice(GpuVendor.valueOf(facts.vendor().name()), facts.vendorOrdinal(), facts.gpuClass(),
				facts.computeUnits(), facts.memoryBytes(), facts.name(), facts.uuid(), facts.pciBusId());
	}

	static DeviceFacts facts(GpuDevice device) {
		return new DeviceFacts(DeviceFacts.Vendor.valueOf(device.vendor().name()), device.vendorOrdinal(),
				device.gpuClass(), device.computeUnits(), device.memoryBytes(), device.name(), device.uuid(),
				device.pciBusId());
	}

	static GpuReadings readings(Readings readings) {
		return new GpuReadings(readings.memoryUsedBytes(), readings.memoryTotalBytes(), readings.utilizationPercent(),
				readings.powerWatts(), readings.temperatureCelsius());
	}

	private record Listed(GpuDiscovery discovery, List<GpuDevice> devices) {
	}
}
