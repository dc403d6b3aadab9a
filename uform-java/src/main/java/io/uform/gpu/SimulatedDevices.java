package io.uform.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

import io.uform.failure.Failures;

/**
 * Whether this process asked for simulated devices, how many and how large: the opt-in that
 * {@link SimulatedRuntime} is built from, read from system properties and the environment.
 *
 * <ul>
 * <li>{@value #COUNT_PROPERTY} (system property) or {@value #COUNT_VARIABLE} (environment variable):
 * how many devices, 0 to {@value #MAX_COUNT}; absent, blank or 0 is off.</li>
 * <li>{@value #MEMORY_PROPERTY} or {@value #MEMORY_VARIABLE}: memory per device, in bytes or with a
 * {@code KB}, {@code MB} or {@code GB} suffix (1024-based, any case, like {@code 512MB}); at least
 * 1 MB; absent or blank is {@link #DEFAULT_MEMORY_BYTES 1 GiB}.</li>
 * </ul>
 * For each of the two settings the system property wins over the environment variable, so that a
 * launcher's {@code -D} overrides what the shell exported. A blank value counts as absent.
 *
 * <p>Parsing never throws: a value that cannot be used turns simulated devices off and becomes one of
 * {@link #problems()}, naming the setting, the value and what is valid, because this runs inside GPU
 * discovery, which must never fail (see {@link GpuDiscovery}). Turning them off rather than guessing
 * keeps the rule that simulated devices appear only exactly as asked for.
 */
public final class SimulatedDevices {

	/** System property holding the device count. */
	public static final String COUNT_PROPERTY = "uform.devices.simulated";

	/** Environment variable holding the device count, used when the property is absent. */
	public static final String COUNT_VARIABLE = "UFORM_DEVICES_SIMULATED";

	/** System property holding the memory per device. */
	public static final String MEMORY_PROPERTY = "uform.devices.simulated.memory";

	/** Environment variable holding the memory per device, used when the property is absent. */
	public static final String MEMORY_VARIABLE = "UFORM_DEVICES_SIMULATED_MEMORY";

	/** The most simulated devices a process may ask for. */
	public static final int MAX_COUNT = 64;

	/** The least memory a simulated device may have: 1 MiB. */
	public static final long MIN_MEMORY_BYTES = 1L << 20;

	/** Memory per device when none is asked for: 1 GiB. */
	public static final long DEFAULT_MEMORY_BYTES = 1L << 30;

	private static final SimulatedDevices NONE = new SimulatedDevices(0, DEFAULT_MEMORY_BYTES, List.of(), List.of());

	private static volatile SimulatedDevices system;

	private final int count;

	private final long memoryBytes;

	private final List<String> problems;

	/** The settings that were given, as {@code name=value}, for the note. */
	private final List<String> origin;

	private SimulatedDevices(int count, long memoryBytes, List<String> problems, List<String> origin) {
		this.count = count;
		this.memoryBytes = memoryBytes;
		this.problems = List.copyOf(problems);
		this.origin = List.copyOf(origin);
	}

	/**
	 * No simulated devices: what a process gets without opting in.
	 * @return the empty opt-in
	 */
	public static SimulatedDevices none() {
		return NONE;
	}

	/**
	 * A given number of devices, configured in code rather than read from settings (tests, embedding).
	 * @param count how many devices, 0 to {@value #MAX_COUNT}
	 * @param memoryBytes memory per device, at least 1
	 * @return the opt-in
	 * @throws RuntimeException {@code INVALID_ARGUMENT} for a count or size out of range
	 */
	public static SimulatedDevices of(int count, long memoryBytes) {
		if (count < 0 || count > MAX_COUNT) {
			throw Failures.factory().invalid("count", count, "use 0 to " + MAX_COUNT + " simulated devices");
		}
		if (memoryBytes < 1) {
			throw Failures.factory().invalid("memoryBytes", memoryBytes, "give each simulated device at least 1 byte");
		}
		return new SimulatedDevices(count, memoryBytes, List.of(), List.of("configured in code"));
	}

	/**
	 * The opt-in of this process, read once from {@link System#getProperties()} and
	 * {@link System#getenv()} on first use; set the property before anything lists GPUs.
	 * @return the opt-in, the same one on every call
	 */
	public static SimulatedDevices system() {
		SimulatedDevices read = system;
		if (read == null) {
			synchronized (SimulatedDevices.class) {
				read = system;
				if (read == null) {
					read = from(System.getProperties(), System.getenv());
					system = read;
				}
			}
		}
		return read;
	}

	/**
	 * The opt-in {@link #system()} has read, without reading it: for code that sets the properties on
	 * a user's behalf (the Spring Boot starter) and must know whether it is already too late.
	 * @return what {@link #system()} returns, or {@code null} while nothing in this process has
	 * called it yet
	 */
	public static SimulatedDevices systemIfRead() {
		return system;
	}

	/**
	 * Reads the opt-in from the given sources, so that tests need not touch the real ones.
	 * @param properties system properties, or a stand-in
	 * @param environment environment variables, or a stand-in
	 * @return the opt-in; never throws
	 */
	public static SimulatedDevices from(Properties properties, Map<String, String> environment) {
		Objects.requireNonNull(properties, "properties");
		Objects.requireNonNull(environment, "environment");
		List<String> problems = new ArrayList<>();
		List<String> origin = new ArrayList<>();
		Setting countSetting = Setting.read(properties, environment, COUNT_PROPERTY, COUNT_VARIABLE);
		Setting memorySetting = Setting.read(properties, environment, MEMORY_PROPERTY, MEMORY_VARIABLE);
		int count = 0;
		if (countSetting != null) {
			count = parseCount(countSetting, problems);
			origin.add(countSetting.toString());
		}
		long memory = DEFAULT_MEMORY_BYTES;
		if (memorySetting != null) {
			// Checked even when the count is off: a wrong size is worth reporting before it is relied on.
			memory = parseMemory(memorySetting, problems);
			origin.add(memorySetting.toString());
		}
		if (!problems.isEmpty()) {
			return new SimulatedDevices(0, DEFAULT_MEMORY_BYTES, problems, origin);
		}
		return new SimulatedDevices(count, memory, problems, origin);
	}

	private static int parseCount(Setting setting, List<String> problems) {
		String valid = "use a whole number of devices from 0 (off) to " + MAX_COUNT;
		int count;
		try {
			count = Integer.parseInt(setting.value);
		}
		catch (NumberFormatException ex) {
			problems.add(setting.problem("is not a device count", valid));
			return 0;
		}
		if (count < 0 || count > MAX_COUNT) {
			problems.add(setting.problem("is out of range", valid));
			return 0;
		}
		return count;
	}

	private static long parseMemory(Setting setting, List<String> problems) {
		String valid = "use a number of bytes of at least " + MIN_MEMORY_BYTES + " (1 MB), or a number with a KB, MB "
				+ "or GB suffix (1024-based), like 512MB";
		String text = setting.value.toUpperCase(Locale.ROOT);
		int shift = 0;
		if (text.endsWith("KB")) {
			shift = 10;
		}
		else if (text.endsWith("MB")) {
			shift = 20;
		}
		else if (text.endsWith("GB")) {
			shift = 30;
		}
		String digits = (shift == 0 ? text : text.substring(0, text.length() - 2)).trim();
		long number;
		try {
			number = Long.parseLong(digits);
		}
		catch (NumberFormatException ex) {
			problems.add(setting.problem("is not a memory size", valid));
			return DEFAULT_MEMORY_BYTES;
		}
		if (number < 0 || number > (Long.MAX_VALUE >> shift)) {
			problems.add(setting.problem("is out of range", valid));
			return DEFAULT_MEMORY_BYTES;
		}
		long bytes = number << shift;
		if (bytes < MIN_MEMORY_BYTES) {
			problems.add(setting.problem("is below the 1 MB minimum", valid));
			return DEFAULT_MEMORY_BYTES;
		}
		return bytes;
	}

	/**
	 * How many devices to simulate.
	 * @return 0 (off) to {@value #MAX_COUNT}
	 */
	public int count() {
		return this.count;
	}

	/**
	 * Whether any device is to be simulated.
	 * @return {@code true} when {@link #count()} is above 0
	 */
	public boolean enabled() {
		return this.count > 0;
	}

	/**
	 * Memory of each simulated device.
	 * @return bytes
	 */
	public long memoryBytes() {
		return this.memoryBytes;
	}

	/**
	 * Settings that could not be used, each naming the setting, its value and what is valid; when
	 * there are any, simulated devices are off.
	 * @return the problems, empty when the settings were fine or absent
	 */
	public List<String> problems() {
		return this.problems;
	}

	/**
	 * The line GPU discovery notes when devices are simulated, so that every listing says they are
	 * host memory, like {@code 2 simulated devices of 1 GiB each (uform.devices.simulated=2): host
	 * memory, not GPUs}.
	 * @return the line, or {@code null} when none is simulated
	 */
	public String note() {
		if (this.count == 0) {
			return null;
		}
		String devices = (this.count == 1) ? "1 simulated device of " + size(this.memoryBytes)
				: this.count + " simulated devices of " + size(this.memoryBytes) + " each";
		return devices + " ("
				+ String.join(", ", this.origin) + "): host memory, not GPUs";
	}

	/**
	 * Spells a size with the largest binary unit that divides it exactly, so that the note shows
	 * the value as it was likely given.
	 * @param bytes a size
	 * @return like {@code 1 GiB}, {@code 1536 MiB} or {@code 1000000 bytes}
	 */
	static String size(long bytes) {
		if (bytes != 0 && bytes % (1L << 30) == 0) {
			return (bytes >> 30) + " GiB";
		}
		if (bytes != 0 && bytes % (1L << 20) == 0) {
			return (bytes >> 20) + " MiB";
		}
		if (bytes != 0 && bytes % (1L << 10) == 0) {
			return (bytes >> 10) + " KiB";
		}
		return bytes + " bytes";
	}

	@Override
	public String toString() {
		return "SimulatedDevices[count=" + this.count + ", memoryBytes=" + this.memoryBytes + ", problems="
				+ this.problems + "]";
	}

	/** One setting as found: which name it came from and its trimmed value. */
	private record Setting(String name, String value) {

		/** The property if set and not blank, else the variable if so, else {@code null}. */
		static Setting read(Properties properties, Map<String, String> environment, String property, String variable) {
			String fromProperty = properties.getProperty(property);
			if (fromProperty != null && !fromProperty.isBlank()) {
				return new Setting(property, fromProperty.trim());
			}
			String fromVariable = environment.get(variable);
			if (fromVariable != null && !fromVariable.isBlank()) {
				return new Setting(variable, fromVariable.trim());
			}
			return null;
		}

		String problem(String what, String valid) {
			return "Simulated devices are off: " + this.name + " = \"" + this.value + "\" " + what + "; " + valid;
		}

		@Override
		public String toString() {
			return this.name + "=" + this.value;
		}
	}
}
