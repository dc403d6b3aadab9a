package io.uform.spring.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.GpuDevice;
import io.uform.GpuReadings;
import io.uform.GpuVendor;
import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link UformGpuMetrics} over devices and readings the test controls, with a clock it moves: a
 * meter only for what the vendor reports, tags that join with DCGM, and at most one reading per
 * device per sample interval however often the registry is read.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UformGpuMetricsTest {

	private static final GpuDevice HOPPER = new GpuDevice(GpuVendor.NVIDIA, 0, "nvidia-hopper", 132, 80L << 30,
			"NVIDIA H100 80GB HBM3", "GPU-5fa2c1d0-8f3e-4b1a-9c7d-2e6f1a0b3c4d", "0000:17:00.0");

	private static final GpuDevice MI300 = new GpuDevice(GpuVendor.AMD, 0, null, 304, 192L << 30, "AMD Instinct MI300X",
			"GPU-0123456789ABCDEF", "0000:83:00.0");

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	private final AtomicInteger reads = new AtomicInteger();

	@Test
	void onlyReadingsTheVendorReportsGetAMeterTaggedToJoinWithDcgm() {
		MeterRegistry registry = new SimpleMeterRegistry();
		metrics(List.of(HOPPER, MI300), (ordinal) -> (ordinal == 0) ? new GpuReadings(1L << 30, 80L << 30, 42, 350.5, 61.0)
				: new GpuReadings(2L << 30, 192L << 30, 7, null, 48.0), Duration.ofSeconds(1)).bindTo(registry);
		assertThat(registry.get("uform.gpu.memory.used")
			.tags("device", "0", "uuid", "GPU-5fa2c1d0-8f3e-4b1a-9c7d-2e6f1a0b3c4d", "vendor", "nvidia", "gpu.class",
					"nvidia-hopper")
			.gauge()
			.value()).isEqualTo(1L << 30);
		assertThat(registry.get("uform.gpu.memory.total").tag("device", "0").gauge().value()).isEqualTo(80L << 30);
		assertThat(registry.get("uform.gpu.utilization").tag("device", "0").gauge().value()).isEqualTo(42);
		assertThat(registry.get("uform.gpu.power").tag("device", "0").gauge().value()).isEqualTo(350.5);
		assertThat(registry.get("uform.gpu.temperature").tag("device", "0").gauge().value()).isEqualTo(61.0);
		assertThat(registry.get("uform.gpu.temperature")
			.tags("device", "1", "uuid", "GPU-0123456789ABCDEF", "vendor", "amd", "gpu.class", "unknown")
			.gauge()
			.value()).isEqualTo(48.0);
		assertThat(registry.find("uform.gpu.power").tag("device", "1").gauges())
			.as("no power sensor on device 1: no series")
			.isEmpty();
		assertThat(registry.get("uform.gpu.memory.used").gauge().getId().getBaseUnit()).isEqualTo("bytes");
		assertThat(registry.get("uform.gpu.utilization").gauge().getId().getBaseUnit()).isEqualTo("percent");
		assertThat(registry.get("uform.gpu.power").gauge().getId().getBaseUnit()).isEqualTo("watts");
		assertThat(registry.get("uform.gpu.temperature").gauge().getId().getBaseUnit()).isEqualTo("celsius");
		assertThat(registry.getMeters()).hasSize(9);
	}

	@Test
	void eachDeviceIsReadAtMostOncePerIntervalHoweverOftenTheRegistryIsRead() {
		MeterRegistry registry = new SimpleMeterRegistry();
		AtomicLong used = new AtomicLong(100);
		metrics(List.of(HOPPER, MI300), (ordinal) -> new GpuReadings(used.get(), 1000L, 1, 2.0, 3.0),
				Duration.ofSeconds(1)).bindTo(registry);
		assertThat(this.reads).as("one reading per device when bound").hasValue(2);
		for (int scrape = 0; scrape < 10; scrape++) {
			registry.getMeters().forEach((meter) -> meter.measure().forEach((measurement) -> measurement.getValue()));
		}
		used.set(200);
		this.clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
		assertThat(registry.get("uform.gpu.memory.used").tag("device", "0").gauge().value()).isEqualTo(100);
		assertThat(this.reads).hasValue(2);
		this.clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
		assertThat(registry.get("uform.gpu.memory.used").tag("device", "0").gauge().value()).isEqualTo(200);
		assertThat(registry.get("uform.gpu.power").tag("device", "0").gauge().value()).isEqualTo(2.0);
		assertThat(this.reads).as("device 0 read again, once for its five gauges").hasValue(3);
		assertThat(registry.get("uform.gpu.memory.used").tag("device", "1").gauge().value()).isEqualTo(200);
		assertThat(this.reads).hasValue(4);
	}

	@Test
	void aFailingOrVanishedReadingReadsNaNAndTheDeviceIsAskedAgainNextInterval() {
		MeterRegistry registry = new SimpleMeterRegistry();
		AtomicReference<GpuReadings> next = new AtomicReference<>(new GpuReadings(5L, 10L, null, 300.0, null));
		metrics(List.of(HOPPER), (ordinal) -> {
			GpuReadings readings = next.get();
			if (readings == null) {
				throw new UformException(UformException.Status.DEVICE_ERROR, "NVML: GPU is lost");
			}
			return readings;
		}, Duration.ofSeconds(1)).bindTo(registry);
		next.set(null);
		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
		assertThat(registry.get("uform.gpu.memory.used").gauge().value()).isNaN();
		assertThat(registry.get("uform.gpu.power").gauge().value()).isNaN();
		next.set(new GpuReadings(6L, 10L, null, null, null));
		assertThat(registry.get("uform.gpu.memory.used").gauge().value()).as("within the interval").isNaN();
		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
		assertThat(registry.get("uform.gpu.memory.used").gauge().value()).isEqualTo(6);
		assertThat(registry.get("uform.gpu.power").gauge().value()).as("no longer reported").isNaN();
	}

	@Test
	void aZeroIntervalReadsOnEveryGaugeReadAndANegativeOneIsRefused() {
		MeterRegistry registry = new SimpleMeterRegistry();
		metrics(List.of(HOPPER), (ordinal) -> new GpuReadings(1L, 2L, null, null, null), Duration.ZERO)
			.bindTo(registry);
		registry.get("uform.gpu.memory.used").gauge().value();
		registry.get("uform.gpu.memory.total").gauge().value();
		assertThat(this.reads).hasValue(3);
		assertThatThrownBy(() -> new UformGpuMetrics(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("sampleInterval");
	}

	private UformGpuMetrics metrics(List<GpuDevice> devices, IntFunction<GpuReadings> readings, Duration interval) {
		return new UformGpuMetrics(devices, (ordinal) -> {
			this.reads.incrementAndGet();
			return readings.apply(ordinal);
		}, interval, this.clock::get);
	}
}
