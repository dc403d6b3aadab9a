package io.uform.host;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class CpuClassesTest {

	static Stream<Arguments> machines() {
		return Stream.of(
				Arguments.of("local-epyc-zen4", "amd-genoa",
						List.of("serial", "intel-haswell", "intel-skylake", "intel-icelake", "amd-genoa")),
				Arguments.of("haswell-xeon-e5-2690v3", "intel-haswell", List.of("serial", "intel-haswell")),
				Arguments.of("haswell-vm-masked-e5-2690v3", "serial", List.of("serial")),
				Arguments.of("skylake-sp-xeon-platinum-8180", "intel-skylake",
						List.of("serial", "intel-haswell", "intel-skylake")),
				Arguments.of("icelake-sp-xeon-platinum-8380", "intel-icelake",
						List.of("serial", "intel-haswell", "intel-skylake", "intel-icelake")),
				Arguments.of("sapphirerapids-xeon-platinum-8480plus", "intel-sapphireamx",
						List.of("serial", "intel-haswell", "intel-alderlake", "intel-skylake", "intel-icelake", "amd-genoa",
								"intel-sapphirerapids", "intel-sapphireamx")),
				Arguments.of("zen4-epyc-9654", "amd-genoa",
						List.of("serial", "intel-haswell", "intel-skylake", "intel-icelake", "amd-genoa")),
				Arguments.of("zen5-ryzen-9-9950x", "amd-turin",
						List.of("serial", "intel-haswell", "intel-alderlake", "intel-skylake", "intel-icelake", "amd-genoa",
								"amd-turin")),
				Arguments.of("neoverse-n1-graviton2", "arm-neonhalf", List.of("serial", "arm-neon", "arm-neonhalf")),
				// Neoverse V1 has SVE (256-bit) but not SVE2: Graviton3's Features line has no sve2.
				Arguments.of("neoverse-v1-graviton3", "arm-sve",
						List.of("serial", "arm-neon", "arm-neonhalf", "arm-neonsdot", "arm-sve")),
				Arguments.of("neoverse-v2-grace", "arm-sve2",
						List.of("serial", "arm-neon", "arm-neonhalf", "arm-neonsdot", "arm-sve", "arm-sve2")));
	}

	@ParameterizedTest(name = "{0} -> {1}")
	@MethodSource("machines")
	void classifiesFixtureMachines(String fixture, String best, List<String> available) {
		CpuClasses classes = CpuClasses.read(Fixtures.root(fixture));
		assertThat(classes.available()).containsExactlyElementsOf(available);
		assertThat(classes.best()).isEqualTo(best);
		assertThat(classes.resolve("cpuClass", null)).isEqualTo(best);
	}

	@Test
	void zen4OffersIntelIcelakeAndSapphireRapidsOffersAmdGenoa() {
		assertThat(CpuClasses.read(Fixtures.root("zen4-epyc-9654")).available()).contains("intel-icelake");
		assertThat(CpuClasses.read(Fixtures.root("sapphirerapids-xeon-platinum-8480plus")).available())
			.contains("amd-genoa");
	}

	@Test
	void thisMachineIsClassifiedAsItsFixture() {
		// The fixture is a copy of this project's build machine; elsewhere this only checks that
		// reading the real file works and yields at least serial.
		CpuClasses system = CpuClasses.system();
		assertThat(system.available()).startsWith(CpuClasses.SERIAL);
		assertThat(CpuClasses.known()).contains(system.best());
	}

	@Test
	void aClassIsAvailableExactlyWhenAllItsFlagsArePresent() {
		for (String cpuClass : CpuClasses.known()) {
			Set<String> needs = CpuClasses.requiredFlags(cpuClass);
			CpuClasses exact = CpuClasses.fromCpuinfo("flags\t\t: " + String.join(" ", needs) + "\n");
			assertThat(exact.available()).as(cpuClass).contains(cpuClass);
			for (String flag : needs) {
				Set<String> fewer = new java.util.TreeSet<>(needs);
				fewer.remove(flag);
				CpuClasses lacking = CpuClasses.fromCpuinfo("flags\t\t: " + String.join(" ", fewer) + "\n");
				assertThat(lacking.available()).as(cpuClass + " without " + flag).doesNotContain(cpuClass);
			}
		}
	}

	@Test
	void vocabularyIsSpelledVendorNameAndStartsWithSerial() {
		assertThat(CpuClasses.known()).first().isEqualTo("serial");
		assertThat(CpuClasses.known().subList(1, CpuClasses.known().size()))
			.allSatisfy((name) -> assertThat(name).matches("(intel|amd|arm)-[a-z0-9]+"));
		assertThat(CpuClasses.requiredFlags("amd-turin")).containsAll(CpuClasses.requiredFlags("amd-genoa"));
		assertThat(CpuClasses.requiredFlags("intel-sapphirerapids")).containsAll(CpuClasses.requiredFlags("amd-genoa"))
			.doesNotContain("avx512_vp2intersect");
		assertThat(CpuClasses.requiredFlags("arm-sve")).doesNotContain("i8mm", "asimddp");
	}

	@Test
	void aFlagMissingOnAnyProcessorRemovesItsClasses() {
		String cpuinfo = "processor\t: 0\nflags\t\t: avx2 f16c fma avx_vnni\n\nprocessor\t: 1\nflags\t\t: avx2 f16c fma\n";
		assertThat(CpuClasses.fromCpuinfo(cpuinfo).available()).containsExactly("serial", "intel-haswell");
	}

	@Test
	void noCpuinfoMeansSerialOnly() {
		assertThat(CpuClasses.fromCpuinfo("").available()).containsExactly("serial");
		assertThat(CpuClasses.read(Fixtures.root("numa-two-socket")).best()).isEqualTo("serial");
	}

	@Test
	void unknownClassIsInvalidAndListsTheKnownOnes() {
		CpuClasses classes = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class).isThrownBy(() -> classes.resolve("cpuClass", "intel-pentium"))
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT))
			.withMessageContaining("cpuClass")
			.withMessageContaining("'intel-pentium'")
			.withMessageContaining(String.join(", ", CpuClasses.known()));
		assertThatExceptionOfType(UformException.class).isThrownBy(() -> CpuClasses.requiredFlags("haswell"))
			.withMessageContaining("intel-haswell");
	}

	@Test
	void classThisCpuLacksListsTheMissingFlagsAndTheAvailableClasses() {
		CpuClasses classes = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> classes.resolve("cpuClass", "intel-sapphirerapids"))
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT))
			.withMessageContaining("lacks avx512_fp16;")
			.withMessageContaining("serial, intel-haswell, intel-skylake, intel-icelake, amd-genoa")
			.withMessageContaining("leave it unset for amd-genoa");
		CpuClasses graviton3 = CpuClasses.read(Fixtures.root("neoverse-v1-graviton3"));
		assertThatExceptionOfType(UformException.class).isThrownBy(() -> graviton3.resolve("cpuClass", "arm-sve2"))
			.withMessageContaining("lacks sve2;");
		assertThatExceptionOfType(UformException.class).isThrownBy(() -> graviton3.resolve("cpuClass", "intel-haswell"))
			.withMessageContaining("lacks avx2 f16c fma;");
	}

	@Test
	void availableClassResolvesToItself() {
		CpuClasses classes = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThat(classes.resolve("cpuClass", "intel-icelake")).isEqualTo("intel-icelake");
		assertThat(classes.resolve("cpuClass", "serial")).isEqualTo("serial");
	}
}
