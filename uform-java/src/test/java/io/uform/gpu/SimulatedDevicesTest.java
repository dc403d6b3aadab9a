package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import io.uform.UformException;

class SimulatedDevicesTest {

	private static final long MIB = 1L << 20;

	private static final long GIB = 1L << 30;

	private static Properties properties(String... pairs) {
		Properties properties = new Properties();
		for (int i = 0; i < pairs.length; i += 2) {
			properties.setProperty(pairs[i], pairs[i + 1]);
		}
		return properties;
	}

	@Test
	void absentIsOffWithNothingToSay() {
		SimulatedDevices devices = SimulatedDevices.from(properties(), Map.of());

		assertThat(devices.enabled()).isFalse();
		assertThat(devices.count()).isZero();
		assertThat(devices.problems()).isEmpty();
		assertThat(devices.note()).isNull();
	}

	@Test
	void zeroOrBlankIsOff() {
		assertThat(SimulatedDevices.from(properties("uform.devices.simulated", "0"), Map.of()).enabled()).isFalse();
		assertThat(SimulatedDevices.from(properties(), Map.of("UFORM_DEVICES_SIMULATED", " ")).enabled()).isFalse();
	}

	@Test
	void countsFromZeroToTheMaximumAreAcceptedWithoutAProblem() {
		SimulatedDevices zero = SimulatedDevices.from(properties("uform.devices.simulated", "0"), Map.of());
		assertThat(zero.problems()).isEmpty();
		assertThat(zero.enabled()).isFalse();
		SimulatedDevices most = SimulatedDevices.from(
				properties("uform.devices.simulated", String.valueOf(SimulatedDevices.MAX_COUNT)), Map.of());
		assertThat(most.problems()).isEmpty();
		assertThat(most.count()).isEqualTo(SimulatedDevices.MAX_COUNT);
		assertThat(most.enabled()).isTrue();
		assertThat(SimulatedDevices.of(0, 1).enabled()).isFalse();
		assertThat(SimulatedDevices.of(SimulatedDevices.MAX_COUNT, 1).count()).isEqualTo(SimulatedDevices.MAX_COUNT);
		assertThat(SimulatedDevices.of(1, 1).memoryBytes()).isEqualTo(1);
	}

	@Test
	void aBlankPropertyOrVariableIsAbsentNotAProblem() {
		SimulatedDevices devices = SimulatedDevices.from(
				properties("uform.devices.simulated", " ", "uform.devices.simulated.memory", ""),
				Map.of("UFORM_DEVICES_SIMULATED", "2", "UFORM_DEVICES_SIMULATED_MEMORY", "\t"));
		assertThat(devices.problems()).isEmpty();
		assertThat(devices.count()).isEqualTo(2);
		assertThat(devices.memoryBytes()).isEqualTo(GIB);
	}

	@Test
	void noneIsOffWithNothingToSay() {
		assertThat(SimulatedDevices.none().enabled()).isFalse();
		assertThat(SimulatedDevices.none().problems()).isEmpty();
		assertThat(SimulatedDevices.none().note()).isNull();
	}

	@Test
	void theNoteSpellsTheSizeInTheLargestUnitThatDividesIt() {
		assertThat(SimulatedDevices.size(3 * GIB / 2)).isEqualTo("1536 MiB");
		assertThat(SimulatedDevices.size(MIB + 512 * 1024)).isEqualTo("1536 KiB");
		assertThat(SimulatedDevices.size(MIB + 1)).isEqualTo("1048577 bytes");
		assertThat(SimulatedDevices.from(properties("uform.devices.simulated", "1", "uform.devices.simulated.memory",
				"1536KB"), Map.of()).note()).startsWith("1 simulated device of 1536 KiB (");
	}

	@Test
	void theVariableAloneTurnsThemOnWithOneGibEach() {
		SimulatedDevices devices = SimulatedDevices.from(properties(), Map.of("UFORM_DEVICES_SIMULATED", "2"));

		assertThat(devices.count()).isEqualTo(2);
		assertThat(devices.memoryBytes()).isEqualTo(GIB);
		assertThat(devices.problems()).isEmpty();
		assertThat(devices.note())
			.isEqualTo("2 simulated devices of 1 GiB each (UFORM_DEVICES_SIMULATED=2): host memory, not GPUs");
	}

	@Test
	void thePropertyWinsOverTheVariableForEachSetting() {
		SimulatedDevices devices = SimulatedDevices.from(
				properties("uform.devices.simulated", "3", "uform.devices.simulated.memory", "256MB"),
				Map.of("UFORM_DEVICES_SIMULATED", "1", "UFORM_DEVICES_SIMULATED_MEMORY", "2GB"));

		assertThat(devices.count()).isEqualTo(3);
		assertThat(devices.memoryBytes()).isEqualTo(256 * MIB);
		assertThat(devices.note()).isEqualTo("3 simulated devices of 256 MiB each (uform.devices.simulated=3, "
				+ "uform.devices.simulated.memory=256MB): host memory, not GPUs");
	}

	@Test
	void eachSettingFallsBackToItsVariableOnItsOwn() {
		SimulatedDevices devices = SimulatedDevices.from(properties("uform.devices.simulated", "1"),
				Map.of("UFORM_DEVICES_SIMULATED", "5", "UFORM_DEVICES_SIMULATED_MEMORY", "64mb"));

		assertThat(devices.count()).isEqualTo(1);
		assertThat(devices.memoryBytes()).isEqualTo(64 * MIB);
	}

	@Test
	void memoryTakesBytesAndBinarySuffixesInAnyCase() {
		assertThat(memory("1048576")).isEqualTo(MIB);
		assertThat(memory("2048KB")).isEqualTo(2 * MIB);
		assertThat(memory("2048 kb")).isEqualTo(2 * MIB);
		assertThat(memory("512Mb")).isEqualTo(512 * MIB);
		assertThat(memory(" 3gb ")).isEqualTo(3 * GIB);
	}

	private static long memory(String value) {
		SimulatedDevices devices = SimulatedDevices.from(
				properties("uform.devices.simulated", "1", "uform.devices.simulated.memory", value), Map.of());
		assertThat(devices.problems()).isEmpty();
		return devices.memoryBytes();
	}

	@Test
	void aCountThatIsNoNumberIsAProblemAndTurnsThemOff() {
		SimulatedDevices devices = SimulatedDevices.from(properties("uform.devices.simulated", "two"), Map.of());

		assertThat(devices.enabled()).isFalse();
		assertThat(devices.note()).isNull();
		assertThat(devices.problems()).containsExactly("Simulated devices are off: uform.devices.simulated = \"two\" "
				+ "is not a device count; use a whole number of devices from 0 (off) to 64");
	}

	@Test
	void countsOutOfRangeAreProblemsNamingTheVariable() {
		assertThat(SimulatedDevices.from(properties(), Map.of("UFORM_DEVICES_SIMULATED", "65")).problems())
			.singleElement().asString().contains("UFORM_DEVICES_SIMULATED = \"65\" is out of range", "0 (off) to 64");
		assertThat(SimulatedDevices.from(properties(), Map.of("UFORM_DEVICES_SIMULATED", "-1")).problems())
			.singleElement().asString().contains("\"-1\" is out of range");
	}

	@Test
	void badMemoryIsAProblemAndTurnsThemOff() {
		SimulatedDevices small = SimulatedDevices.from(
				properties("uform.devices.simulated", "2", "uform.devices.simulated.memory", "1000"), Map.of());
		SimulatedDevices word = SimulatedDevices.from(properties("uform.devices.simulated", "2"),
				Map.of("UFORM_DEVICES_SIMULATED_MEMORY", "lots"));
		SimulatedDevices negative = SimulatedDevices.from(
				properties("uform.devices.simulated", "2", "uform.devices.simulated.memory", "-5MB"), Map.of());
		SimulatedDevices huge = SimulatedDevices.from(
				properties("uform.devices.simulated", "2", "uform.devices.simulated.memory", "9999999999999GB"), Map.of());

		assertThat(small.enabled()).isFalse();
		assertThat(small.problems()).containsExactly("Simulated devices are off: uform.devices.simulated.memory = "
				+ "\"1000\" is below the 1 MB minimum; use a number of bytes of at least 1048576 (1 MB), or a number "
				+ "with a KB, MB or GB suffix (1024-based), like 512MB");
		assertThat(word.enabled()).isFalse();
		assertThat(word.problems()).singleElement().asString()
			.contains("UFORM_DEVICES_SIMULATED_MEMORY = \"lots\" is not a memory size");
		assertThat(negative.problems()).singleElement().asString().contains("\"-5MB\" is out of range");
		assertThat(huge.problems()).singleElement().asString().contains("\"9999999999999GB\" is out of range");
	}

	@Test
	void badMemoryIsReportedEvenWhileTheCountIsOff() {
		SimulatedDevices devices = SimulatedDevices.from(properties(), Map.of("UFORM_DEVICES_SIMULATED_MEMORY", "1KB"));

		assertThat(devices.enabled()).isFalse();
		assertThat(devices.problems()).singleElement().asString().contains("below the 1 MB minimum");
	}

	@Test
	void configuredInCodeChecksItsArguments() {
		SimulatedDevices devices = SimulatedDevices.of(4, 3 * MIB / 2);

		assertThat(devices.count()).isEqualTo(4);
		assertThat(devices.note()).isEqualTo("4 simulated devices of 1536 KiB each (configured in code): host "
				+ "memory, not GPUs");
		assertThatThrownBy(() -> SimulatedDevices.of(65, GIB)).isInstanceOfSatisfying(UformException.class,
				(ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT));
		assertThatThrownBy(() -> SimulatedDevices.of(1, 0)).isInstanceOf(UformException.class);
	}
}
