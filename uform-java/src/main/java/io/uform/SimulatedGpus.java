package io.uform;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.uform.gpu.SimulatedDevices;

/**
 * Simulated GPUs: host memory that GPU discovery lists as devices, for tests and development on
 * machines without a GPU (no kernel runs on them). A process opts in with the system property
 * {@value #COUNT_PROPERTY} or the environment variable {@value #COUNT_VARIABLE} (0 to
 * {@value #MAX_COUNT} devices), and sizes them with {@value #MEMORY_PROPERTY} or
 * {@value #MEMORY_VARIABLE} (bytes, or a {@code KB}, {@code MB} or {@code GB} suffix, 1024-based; at
 * least 1 MB; 1 GB unset); the system property wins. Discovery reads them once per process, when
 * something first lists GPUs. A value that cannot be used turns simulated devices off and is one of
 * {@link #problems()}: reading never throws.
 */
public final class SimulatedGpus {

	/** System property holding the device count. */
	public static final String COUNT_PROPERTY = SimulatedDevices.COUNT_PROPERTY;

	/** Environment variable holding the device count, read where the property is not set. */
	public static final String COUNT_VARIABLE = SimulatedDevices.COUNT_VARIABLE;

	/** System property holding the memory per device. */
	public static final String MEMORY_PROPERTY = SimulatedDevices.MEMORY_PROPERTY;

	/** Environment variable holding the memory per device, read where the property is not set. */
	public static final String MEMORY_VARIABLE = SimulatedDevices.MEMORY_VARIABLE;

	/** The most simulated devices a process may ask for. */
	public static final int MAX_COUNT = SimulatedDevices.MAX_COUNT;

	/** The least memory a simulated device may have: 1 MiB. */
	public static final long MIN_MEMORY_BYTES = SimulatedDevices.MIN_MEMORY_BYTES;

	private final SimulatedDevices devices;

	private SimulatedGpus(SimulatedDevices devices) {
		this.devices = devices;
	}

	/**
	 * What GPU discovery read in this process, without making it read.
	 * @return the settings discovery read, or {@code null} while nothing has listed GPUs yet
	 */
	public static SimulatedGpus discovered() {
		SimulatedDevices read = SimulatedDevices.systemIfRead();
		return (read != null) ? new SimulatedGpus(read) : null;
	}

	/**
	 * The settings as discovery would read them from these sources.
	 * @param systemProperties the system properties, or a stand-in
	 * @param environmentVariables the environment variables, or a stand-in
	 * @return the settings
	 */
	public static SimulatedGpus read(Properties systemProperties, Map<String, String> environmentVariables) {
		return new SimulatedGpus(SimulatedDevices.from(systemProperties, environmentVariables));
	}

	/**
	 * How many devices are simulated.
	 * @return 0 (off) to {@value #MAX_COUNT}
	 */
	public int count() {
		return this.devices.count();
	}

	/**
	 * Memory of each simulated device.
	 * @return bytes
	 */
	public long memoryBytes() {
		return this.devices.memoryBytes();
	}

	/**
	 * Settings that could not be used, each naming the setting, its value and what is valid; where
	 * there are any, simulated devices are off.
	 * @return the problems, empty where the settings were fine or absent
	 */
	public List<String> problems() {
		return this.devices.problems();
	}

	/**
	 * What is simulated and who asked, as discovery notes it: {@code 2 simulated devices of 1 GiB each
	 * (uform.devices.simulated=2): host memory, not GPUs}.
	 * @return the note, or {@code null} where none is simulated
	 */
	public String note() {
		return this.devices.note();
	}
}
