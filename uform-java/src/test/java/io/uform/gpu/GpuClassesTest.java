package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class GpuClassesTest {

	@ParameterizedTest
	@CsvSource(nullValues = "none", value = { "2,0,none", "3,7,nvidia-kepler", "5,2,nvidia-maxwell",
			"6,0,nvidia-pascal", "7,0,nvidia-volta", "7,2,nvidia-volta", "7,5,nvidia-turing", "8,0,nvidia-ampere",
			"8,6,nvidia-ampere", "8,7,nvidia-ampere", "8,9,nvidia-ada", "9,0,nvidia-hopper", "10,0,nvidia-blackwell",
			"10,3,nvidia-blackwell", "11,0,nvidia-blackwell", "12,0,nvidia-blackwell", "12,1,nvidia-blackwell",
			"13,0,none" })
	void mapsComputeCapabilities(int major, int minor, String expected) {
		assertThat(GpuClasses.nvidia(major, minor)).isEqualTo(expected);
	}

	@ParameterizedTest
	@CsvSource(nullValues = "none", value = { "90000,gfx900,amd-gcn5", "90006,gfx906,amd-gcn5",
			"90012,gfx90c,amd-gcn5", "90008,gfx908,amd-cdna", "90010,gfx90a,amd-cdna2", "90400,gfx940,amd-cdna3",
			"90402,gfx942,amd-cdna3", "90500,gfx950,amd-cdna4", "100100,gfx1010,amd-rdna1",
			"100300,gfx1030,amd-rdna2", "100306,gfx1036,amd-rdna2", "110000,gfx1100,amd-rdna3",
			"110001,gfx1101,amd-rdna3", "110501,gfx1151,amd-rdna3", "120000,gfx1200,amd-rdna4",
			"120001,gfx1201,amd-rdna4", "120500,gfx1250,none", "130000,gfx1300,none", "80003,gfx803,none" })
	void mapsGfxTargets(int version, String name, String expected) {
		assertThat(GpuClasses.gfxName(version)).isEqualTo(name);
		assertThat(GpuClasses.amd(version)).isEqualTo(expected);
	}

	@Test
	void everyMappedClassIsInTheVocabulary() {
		for (int major = 0; major < 20; major++) {
			for (int minor = 0; minor < 10; minor++) {
				String gpuClass = GpuClasses.nvidia(major, minor);
				if (gpuClass != null) {
					assertThat(GpuClasses.known()).contains(gpuClass);
				}
			}
		}
		for (int version : new int[] { 90000, 90008, 90010, 90402, 90500, 100100, 100300, 110000, 120001 }) {
			assertThat(GpuClasses.known()).contains(GpuClasses.amd(version));
		}
	}
}
