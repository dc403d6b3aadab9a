package io.uform.spring.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.Uform;

/**
 * Binds the live readings of every GPU this process sees ({@link Uform#gpuDevices()}) to a registry:
 * memory used and total, utilization, power and temperature, as the table of {@code docs/actuator.md}
 * (Metrics, GPUs) names them, each tagged {@code device} (the ordinal VRAM executors and
 * {@code uform.scratch.*} use), {@code uuid} (as NVML spells it, {@code GPU-…}, the value of NVIDIA's
 * DCGM exporter's {@code UUID} label), {@code vendor} and {@code gpu.class} ({@code unknown} where
 * uform has none).
 *
 * <p>A meter is registered only where the vendor reports its reading on that device when the binder
 * is bound ({@link GpuReadings}' field non-null): a card without power sensors gets no
 * {@code uform.gpu.power} series rather than a made-up one. A reading that later goes missing, or a
 * driver that fails, reads {@code NaN}.
 *
 * <h2>Sampling</h2>
 * Readings are taken when the registry is read (a scrape, a push), never on the work path, and at
 * most once per device per sample interval (1 s unless given): the five gauges of one device share
 * one reading, and a registry read by several exporters does not query the driver once per meter.
 * Each device's latest reading sits in an {@link AtomicReferenceArray} (read and written with volatile
 * semantics, so a reader sees a whole {@link GpuReadings} and when it was taken); a stale one is
 * refreshed under that device's own lock, re-checked there, so concurrent scrapes read the driver once.
 *
 * <p>The gauges hold their sampler strongly: device readings belong to the process, not to an object
 * whose life a weak reference should follow.
 */
public final class UformGpuMetrics implements MeterBinder {

	/** How often a device is read at most, unless another interval is given. */
	public static final Duration DEFAULT_SAMPLE_INTERVAL = Duration.ofSeconds(1);

	private final List<GpuDevice> devices;

	private final Sampler sampler;

	/** Binds every device, read at most once per {@link #DEFAULT_SAMPLE_INTERVAL}. */
	public UformGpuMetrics() {
		this(DEFAULT_SAMPLE_INTERVAL);
	}

	/**
	 * Binds every device, read at most once per {@code sampleInterval}.
	 * @param sampleInterval the least time between two readings of one device; zero reads on every
	 *        gauge read
	 */
	public UformGpuMetrics(Duration sampleInterval) {
		this(Uform.gpuDevices(), Uform::gpuReadings, sampleInterval, System::nanoTime);
	}

	/** Over given devices, readings and clock, for tests. */
	UformGpuMetrics(List<GpuDevice> devices, IntFunction<GpuReadings> readings, Duration sampleInterval,
			LongSupplier nanoClock) {
		if (sampleInterval.isNegative()) {
			throw new IllegalArgumentException("sampleInterval must be zero or positive, was " + sampleInterval);
		}
		this.devices = List.copyOf(devices);
		this.sampler = new Sampler(this.devices.size(), readings, sampleInterval.toNanos(), nanoClock);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (int ordinal = 0; ordinal < this.devices.size(); ordinal++) {
			GpuDevice device = this.devices.get(ordinal);
			Tags tags = Tags.of(Tag.of("device", Integer.toString(ordinal)), Tag.of("uuid", orUnknown(device.uuid())),
					Tag.of("vendor", device.vendor().name().toLowerCase(Locale.ROOT)),
					Tag.of("gpu.class", orUnknown(device.gpuClass())));
			GpuReadings now = this.sampler.readings(ordinal);
			for (Reading reading : Reading.values()) {
				register(registry, now, ordinal, tags, reading);
			}
		}
	}

	private void register(MeterRegistry registry, GpuReadings now, int ordinal, Tags tags, Reading reading) {
		if (reading.field.apply(now) == null) {
			return;
		}
		Gauge.builder(reading.meter, this.sampler, (sampler) -> sampler.value(ordinal, reading))
			.tags(tags)
			.description(reading.description)
			.baseUnit(reading.unit)
			.strongReference(true)
			.register(registry);
	}

	private static String orUnknown(@Nullable String value) {
		return (value == null || value.isBlank()) ? "unknown" : value;
	}

	/** One reading: its meter, unit and where it is in {@link GpuReadings}. */
	private enum Reading {

		MEMORY_USED("uform.gpu.memory.used", "bytes", "Device memory in use, as the vendor counts it",
				GpuReadings::memoryUsedBytes),

		MEMORY_TOTAL("uform.gpu.memory.total", "bytes", "Device memory", GpuReadings::memoryTotalBytes),

		UTILIZATION("uform.gpu.utilization", "percent", "Share of the last sample period the GPU was busy, 0-100",
				GpuReadings::utilizationPercent),

		POWER("uform.gpu.power", "watts", "Board power draw", GpuReadings::powerWatts),

		TEMPERATURE("uform.gpu.temperature", "celsius", "GPU temperature (NVIDIA: die, AMD: edge)",
				GpuReadings::temperatureCelsius);

		final String meter;

		final String unit;

		final String description;

		final Function<GpuReadings, @Nullable Number> field;

		Reading(String meter, String unit, String description, Function<GpuReadings, @Nullable Number> field) {
			this.meter = meter;
			this.unit = unit;
			this.description = description;
			this.field = field;
		}
	}

	/** Each device's latest reading, refreshed at most once per interval; see the class comment. */
	static final class Sampler {

		private static final Log logger = LogFactory.getLog(UformGpuMetrics.class);

		private final IntFunction<GpuReadings> readings;

		private final long intervalNanos;

		private final LongSupplier nanoClock;

		private final AtomicReferenceArray<@Nullable Sample> samples;

		private final Object[] locks;

		Sampler(int devices, IntFunction<GpuReadings> readings, long intervalNanos, LongSupplier nanoClock) {
			this.readings = readings;
			this.intervalNanos = intervalNanos;
			this.nanoClock = nanoClock;
			this.samples = new AtomicReferenceArray<>(devices);
			this.locks = new Object[devices];
			for (int i = 0; i < devices; i++) {
				this.locks[i] = new Object();
			}
		}

		double value(int ordinal, Reading reading) {
			Number value = reading.field.apply(readings(ordinal));
			return (value != null) ? value.doubleValue() : Double.NaN;
		}

		GpuReadings readings(int ordinal) {
			Sample sample = this.samples.get(ordinal);
			if (sample != null && fresh(sample)) {
				return sample.readings;
			}
			synchronized (this.locks[ordinal]) {
				sample = this.samples.get(ordinal);
				if (sample != null && fresh(sample)) {
					return sample.readings;
				}
				GpuReadings readings;
				try {
					readings = this.readings.apply(ordinal);
				}
				catch (RuntimeException ex) {
					// A failing driver reads NaN until the next interval, when it is asked again.
					logger.debug("Could not read GPU " + ordinal + ": " + ex.getMessage(), ex);
					readings = GpuReadings.NONE;
				}
				GpuReadings taken = (readings != null) ? readings : GpuReadings.NONE;
				this.samples.set(ordinal, new Sample(taken, this.nanoClock.getAsLong()));
				return taken;
			}
		}

		private boolean fresh(Sample sample) {
			return this.nanoClock.getAsLong() - sample.takenNanos < this.intervalNanos;
		}
	}

	/** A reading and when it was taken. */
	private record Sample(GpuReadings readings, long takenNanos) {
	}
}
