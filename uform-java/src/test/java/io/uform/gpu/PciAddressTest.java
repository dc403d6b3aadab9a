package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class PciAddressTest {

	@Test
	void spellingsOfOneDeviceCompareEqual() {
		PciAddress cuda = PciAddress.parse("0000:1B:00.0");
		PciAddress nvml = PciAddress.parse("00000000:1B:00.0");
		PciAddress sysfs = PciAddress.parse("0000:1b:00.0");
		PciAddress noFunction = PciAddress.parse("0000:1b:00");
		PciAddress noDomain = PciAddress.parse("1b:00.0");

		assertThat(cuda).isEqualTo(nvml).isEqualTo(sysfs).isEqualTo(noFunction).isEqualTo(noDomain)
			.isEqualTo(new PciAddress(0, 0x1b, 0, 0));
		assertThat(cuda).hasToString("0000:1b:00.0");
	}

	@Test
	void keepsWideDomains() {
		assertThat(PciAddress.parse("00010000:C1:1F.7")).isEqualTo(new PciAddress(0x10000, 0xc1, 0x1f, 7))
			.hasToString("10000:c1:1f.7");
	}

	@Test
	void decodesKfdLocationIds() {
		// location_id = (bus << 8) | (device << 3) | function
		assertThat(PciAddress.ofLocationId(0, 0x0c00)).hasToString("0000:0c:00.0");
		assertThat(PciAddress.ofLocationId(1, (0xc1 << 8) | (3 << 3) | 1)).hasToString("0001:c1:03.1");
	}

	@Test
	void aBusAndDeviceWithoutAFunctionIsNoAddress() {
		// Only domain:bus:device may leave the function out; bus:device is too short to say which is which.
		assertThatIllegalArgumentException().isThrownBy(() -> PciAddress.parse("1b:00"))
			.withMessage("Not a PCI address: '1b:00'");
	}

	@Test
	void aFieldWiderThanEightHexDigitsIsRefusedRatherThanTruncated() {
		// 0x100000000 does not fit the int it would be held in: cut to 32 bits it would alias domain 0.
		assertThatIllegalArgumentException().isThrownBy(() -> PciAddress.parse("100000000:1b:00.0"))
			.withMessage("Not a PCI address: '100000000:1b:00.0'");
		assertThat(PciAddress.parse("ffffffff:1b:00.0").domain()).isEqualTo(0xffffffff);
	}

	@Test
	void rejectsWhatIsNoAddress() {
		assertThatIllegalArgumentException().isThrownBy(() -> PciAddress.parse("GPU-1234"));
		assertThatIllegalArgumentException().isThrownBy(() -> PciAddress.parse(""));
		assertThatIllegalArgumentException().isThrownBy(() -> PciAddress.parse("0000:zz:00.0"));
	}
}
