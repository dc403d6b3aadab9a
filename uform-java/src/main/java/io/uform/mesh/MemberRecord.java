package io.uform.mesh;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeSet;

/**
 * What one process of a mesh announces about itself in {@code member-<index>.properties}: where it
 * sits, what it agrees to, who it is and which GPUs it brings. {@link FileRendezvous} writes one per
 * process and reads everybody else's.
 *
 * <h2>The file</h2>
 * {@link java.util.Properties} text (ASCII, anything else escaped, so every host reads it the same
 * whatever its locale; one comment line, no date, keys sorted, so one record always gives the same
 * bytes). Instants are nanoseconds since the epoch (UTC), which {@link Long#parseLong} reads back: the
 * years they reach, 1677 to 2262, hold every time a running process can write. Its keys, shown here
 * grouped by meaning (the file sorts them):
 * <pre>
 * uform.mesh.protocol=2                  # FileRendezvous.PROTOCOL; processes of different versions never join
 * member.job=run-42
 * member.index=0                         # hostDomainIndex
 * member.count=4                         # hostDomainCount
 * member.gpusPerMultimemDomain=8         # the value in force, given or derived
 * member.gpusPerMultimemDomain.derived=true
 * member.incarnation=3f0c…               # random, one per bootstrap call: tells two claims of one index apart
 * member.host=node-a                     # the host name
 * member.hostKey=&lt;boot id&gt;/pid:[4026531836]  # Linux boot id and pid namespace; empty where unknown
 * member.pid=1234
 * member.processStarted=1764709674124012636    # the process's start, to tell a reused pid apart; empty where unknown
 * member.bootstrapStarted=1764709675002000000  # when its bootstrap call began (wall clock)
 * member.timeout=PT2M
 * member.written=1764709675003000000
 * member.run=slurm:4242.0.0              # the launcher's run token (ThisProcess.RUN); empty where none
 * member.livenessTimeout=PT10S           # how long its heartbeat may stand still before it counts as dead
 * device.count=1
 * device.0.vendor=NVIDIA
 * device.0.name=NVIDIA H100 80GB HBM3
 * device.0.uuid=GPU-…                    # empty where the vendor gives none
 * device.0.class=nvidia-hopper           # empty where uform has no class for it
 * device.0.memoryBytes=85032747008
 * device.0.multicast=true                # CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
 * </pre>
 *
 * @param protocol the rendezvous protocol version the writer speaks
 * @param job the job name
 * @param index the writer's {@code hostDomainIndex}
 * @param count the writer's {@code hostDomainCount}
 * @param gpusPerMultimemDomain the writer's value in force
 * @param gpusDerived whether the writer derived {@code gpusPerMultimemDomain} from its own GPU count
 * @param incarnation a random id of the writer's bootstrap call
 * @param host the writer's host name
 * @param hostKey what makes a pid meaningful on that host (boot id and pid namespace); empty where unknown
 * @param pid the writer's process id
 * @param processStarted when the writer's process started; {@code null} where unknown
 * @param bootstrapStarted when the writer's bootstrap call began
 * @param timeout the writer's timeout
 * @param written when the record was written
 * @param devices the writer's GPUs, in its executor's order
 * @param run the launcher's token of the writer's run; empty where none
 * @param livenessTimeout how long the writer's heartbeat may stand still before it counts as dead
 */
public record MemberRecord(int protocol, String job, int index, int count, int gpusPerMultimemDomain,
		boolean gpusDerived, String incarnation, String host, String hostKey, long pid, Instant processStarted,
		Instant bootstrapStarted, Duration timeout, Instant written, List<MemberDevice> devices, String run,
		Duration livenessTimeout) {

	/** The default liveness timeout, where a record is made without one. */
	public static final Duration DEFAULT_LIVENESS_TIMEOUT = Duration.ofSeconds(10);

	/** A record with no run token and the default liveness timeout. */
	public MemberRecord(int protocol, String job, int index, int count, int gpusPerMultimemDomain,
			boolean gpusDerived, String incarnation, String host, String hostKey, long pid, Instant processStarted,
			Instant bootstrapStarted, Duration timeout, Instant written, List<MemberDevice> devices) {
		this(protocol, job, index, count, gpusPerMultimemDomain, gpusDerived, incarnation, host, hostKey, pid,
				processStarted, bootstrapStarted, timeout, written, devices, "", DEFAULT_LIVENESS_TIMEOUT);
	}

	/**
	 * One GPU as a member record lists it.
	 * @param vendor the vendor, as {@link io.uform.GpuVendor} names it
	 * @param name the vendor's name for it
	 * @param uuid the vendor's unique id; empty where none
	 * @param gpuClass uform's class for it; empty where none
	 * @param memoryBytes device memory
	 * @param multicast whether it reports NVLink multicast (switch-reduced) support
	 */
	public record MemberDevice(String vendor, String name, String uuid, String gpuClass, long memoryBytes,
			boolean multicast) {

		/** Checks the fields and turns absent text into empty text, which the file can hold. */
		public MemberDevice {
			vendor = Objects.requireNonNullElse(vendor, "");
			name = Objects.requireNonNullElse(name, "");
			uuid = Objects.requireNonNullElse(uuid, "");
			gpuClass = Objects.requireNonNullElse(gpuClass, "");
		}
	}

	/** Checks the fields every record has. */
	public MemberRecord {
		Objects.requireNonNull(job, "job");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(host, "host");
		hostKey = Objects.requireNonNullElse(hostKey, "");
		Objects.requireNonNull(bootstrapStarted, "bootstrapStarted");
		Objects.requireNonNull(timeout, "timeout");
		Objects.requireNonNull(written, "written");
		devices = List.copyOf(devices);
		run = Objects.requireNonNullElse(run, "");
		livenessTimeout = Objects.requireNonNullElse(livenessTimeout, DEFAULT_LIVENESS_TIMEOUT);
	}

	/**
	 * The same record, stamped with a new time of writing.
	 * @param when the time
	 * @return the record
	 */
	MemberRecord writtenAt(Instant when) {
		return new MemberRecord(this.protocol, this.job, this.index, this.count, this.gpusPerMultimemDomain,
				this.gpusDerived, this.incarnation, this.host, this.hostKey, this.pid, this.processStarted,
				this.bootstrapStarted, this.timeout, when, this.devices, this.run, this.livenessTimeout);
	}

	/**
	 * Who wrote the record, as messages name a process.
	 * @return like {@code index 2 (host node-c, pid 4242)}
	 */
	public String who() {
		return "index " + this.index + " (host " + this.host + ", pid " + this.pid + ")";
	}

	/**
	 * The record as the file holds it.
	 * @return the properties text's bytes
	 */
	public byte[] toBytes() {
		Properties properties = new Properties();
		properties.setProperty("uform.mesh.protocol", Integer.toString(this.protocol));
		properties.setProperty("member.job", this.job);
		properties.setProperty("member.index", Integer.toString(this.index));
		properties.setProperty("member.count", Integer.toString(this.count));
		properties.setProperty("member.gpusPerMultimemDomain", Integer.toString(this.gpusPerMultimemDomain));
		properties.setProperty("member.gpusPerMultimemDomain.derived", Boolean.toString(this.gpusDerived));
		properties.setProperty("member.incarnation", this.incarnation);
		properties.setProperty("member.host", this.host);
		properties.setProperty("member.hostKey", this.hostKey);
		properties.setProperty("member.pid", Long.toString(this.pid));
		properties.setProperty("member.processStarted", (this.processStarted == null) ? "" : epochNanos(this.processStarted));
		properties.setProperty("member.bootstrapStarted", epochNanos(this.bootstrapStarted));
		properties.setProperty("member.timeout", this.timeout.toString());
		properties.setProperty("member.written", epochNanos(this.written));
		properties.setProperty("member.run", this.run);
		properties.setProperty("member.livenessTimeout", this.livenessTimeout.toString());
		properties.setProperty("device.count", Integer.toString(this.devices.size()));
		for (int i = 0; i < this.devices.size(); i++) {
			MemberDevice device = this.devices.get(i);
			String prefix = "device." + i + ".";
			properties.setProperty(prefix + "vendor", device.vendor());
			properties.setProperty(prefix + "name", device.name());
			properties.setProperty(prefix + "uuid", device.uuid());
			properties.setProperty(prefix + "class", device.gpuClass());
			properties.setProperty(prefix + "memoryBytes", Long.toString(device.memoryBytes()));
			properties.setProperty(prefix + "multicast", Boolean.toString(device.multicast()));
		}
		return store(properties, "uform mesh member record (see io.uform.mesh.FileRendezvous)");
	}

	/**
	 * Reads a record from a file's bytes.
	 * @param bytes what the file holds
	 * @return the record
	 * @throws IllegalArgumentException naming the key that is missing or malformed
	 */
	public static MemberRecord parse(byte[] bytes) {
		return parse(load(bytes));
	}

	/**
	 * Reads a record from a file's properties, for a reader that has loaded them already.
	 * @param properties what {@link #load(byte[])} read from the file
	 * @return the record
	 * @throws IllegalArgumentException naming the key that is missing or malformed
	 */
	static MemberRecord parse(Properties properties) {
		List<MemberDevice> devices = new ArrayList<>();
		int deviceCount = integer(properties, "device.count");
		for (int i = 0; i < deviceCount; i++) {
			String prefix = "device." + i + ".";
			devices.add(new MemberDevice(text(properties, prefix + "vendor"), text(properties, prefix + "name"),
					text(properties, prefix + "uuid"), text(properties, prefix + "class"),
					number(properties, prefix + "memoryBytes"), Boolean.parseBoolean(text(properties, prefix + "multicast"))));
		}
		String processStarted = text(properties, "member.processStarted");
		return new MemberRecord(integer(properties, "uform.mesh.protocol"), text(properties, "member.job"),
				integer(properties, "member.index"), integer(properties, "member.count"),
				integer(properties, "member.gpusPerMultimemDomain"),
				Boolean.parseBoolean(text(properties, "member.gpusPerMultimemDomain.derived")),
				text(properties, "member.incarnation"), text(properties, "member.host"), text(properties, "member.hostKey"),
				number(properties, "member.pid"), processStarted.isEmpty() ? null : instant(properties, "member.processStarted"),
				instant(properties, "member.bootstrapStarted"), duration(properties, "member.timeout"),
				instant(properties, "member.written"), devices, properties.getProperty("member.run", ""),
				properties.containsKey("member.livenessTimeout") ? duration(properties, "member.livenessTimeout")
						: DEFAULT_LIVENESS_TIMEOUT);
	}

	/**
	 * Properties text of {@code properties}: the comment, then one {@code key=value} line per key in
	 * key order, escaped as {@link Properties#store(java.io.OutputStream, String)} escapes them
	 * (everything outside printable ASCII as a Unicode escape, so the file reads the same on every host
	 * whatever its locale), which {@link Properties#load(java.io.InputStream)} reads back. Not
	 * {@code Properties.store} itself: it adds a {@code #<date>} line, so one record written twice a
	 * second apart gave different bytes, while a process recognises its own record by its bytes
	 * ({@link FileRendezvous}); and its key order differs between JDK versions.
	 * @param properties the keys and values
	 * @param comment one line of ASCII, written first after {@code "# "}
	 * @return the file's bytes: the same for the same properties, every time
	 */
	static byte[] store(Properties properties, String comment) {
		StringBuilder text = new StringBuilder("# ").append(comment).append('\n');
		for (String key : new TreeSet<>(properties.stringPropertyNames())) {
			escape(key, true, text);
			text.append('=');
			escape(properties.getProperty(key), false, text);
			text.append('\n');
		}
		return text.toString().getBytes(StandardCharsets.ISO_8859_1);
	}

	/** Escapes one key or value as {@code Properties.store} does, so that {@code load} reads it back unchanged. */
	private static void escape(String text, boolean key, StringBuilder out) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case ' ' -> out.append((i == 0 || key) ? "\\ " : " ");
				case '\\' -> out.append("\\\\");
				case '\t' -> out.append("\\t");
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				case '\f' -> out.append("\\f");
				case '=', ':', '#', '!' -> out.append('\\').append(c);
				default -> {
					if (c < 0x20 || c > 0x7e) {
						out.append(String.format("\\u%04X", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
	}

	static Properties load(byte[] bytes) {
		Properties properties = new Properties();
		try {
			properties.load(new ByteArrayInputStream(bytes));
		}
		catch (IOException | IllegalArgumentException ex) {
			throw new IllegalArgumentException("not a properties file: " + ex.getMessage(), ex);
		}
		return properties;
	}

	static String text(Properties properties, String key) {
		String value = properties.getProperty(key);
		if (value == null) {
			throw new IllegalArgumentException("key " + key + " is missing");
		}
		return value;
	}

	static int integer(Properties properties, String key) {
		long value = number(properties, key);
		if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
			throw new IllegalArgumentException("key " + key + " = " + value + " is out of range");
		}
		return (int) value;
	}

	static long number(Properties properties, String key) {
		String value = text(properties, key);
		try {
			return Long.parseLong(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("key " + key + " = " + value + " is not a number", ex);
		}
	}

	/**
	 * An instant as records and markers hold it.
	 * @param instant the instant, within the years 1677 to 2262
	 * @return its nanoseconds since the epoch, in decimal
	 * @throws ArithmeticException when it is outside those years
	 */
	static String epochNanos(Instant instant) {
		return Long.toString(Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano()));
	}

	static Instant instant(Properties properties, String key) {
		String value = text(properties, key);
		try {
			return Instant.ofEpochSecond(0, Long.parseLong(value.trim()));
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("key " + key + " = " + value + " is not an instant in nanoseconds since "
					+ "the epoch", ex);
		}
	}

	static Duration duration(Properties properties, String key) {
		String value = text(properties, key);
		try {
			return Duration.parse(value.trim());
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException("key " + key + " = " + value + " is not an ISO-8601 duration", ex);
		}
	}
}
