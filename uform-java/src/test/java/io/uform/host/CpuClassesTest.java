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

	/** Every x86-64 class, in the order of {@link CpuClasses#known()}. */
	private static final List<String> X86 = List.of("serial", "intel-haswell", "intel-alderlake", "intel-skylake",
			"intel-icelake", "amd-genoa", "amd-turin", "intel-sapphirerapids", "intel-sapphireamx");

	/** Every aarch64 class, in the order of {@link CpuClasses#known()}. */
	private static final List<String> ARM = List.of("serial", "arm-neon", "arm-neonhalf", "arm-neonsdot", "arm-sve",
			"arm-sve2");

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
		assertThat(classes.resolve("cpuClass", null, Fixtures.ERRORS)).isEqualTo(best);
	}

	@Test
	void zen4OffersIntelIcelakeAndSapphireRapidsOffersAmdGenoa() {
		assertThat(CpuClasses.read(Fixtures.root("zen4-epyc-9654")).available()).contains("intel-icelake");
		assertThat(CpuClasses.read(Fixtures.root("sapphirerapids-xeon-platinum-8480plus")).available())
			.contains("amd-genoa");
	}

	@Test
	void aJvmOfAnotherArchitectureThanTheKernelsFileGetsOnlySerial() {
		// An x86-64 JVM under Rosetta for Linux or qemu-user reads the ARM kernel's cpuinfo.
		CpuClasses arm = CpuClasses.fromCpuinfo(Fixtures.cpuinfo("neoverse-n1-graviton2"), "amd64");
		assertThat(arm.available()).contains("arm-neon");
		assertThat(CpuClasses.forThisJvm(arm, "amd64").available()).containsExactly(CpuClasses.SERIAL);
		assertThat(CpuClasses.forThisJvm(arm, "aarch64").available()).contains("arm-neon");
		// LoongArch prints Features lines, as aarch64 does.
		CpuClasses loongArch = CpuClasses.fromCpuinfo("processor\t\t: 0\ncpu family\t\t: Loongson-64bit\n"
				+ "Features\t\t: cpucfg lam ual fpu lsx lasx crc32 complex crypto lvz\n", "loongarch64");
		assertThat(CpuClasses.forThisJvm(loongArch, "loongarch64").available()).containsExactly(CpuClasses.SERIAL);
		// The same architecture keeps what the file offers.
		CpuClasses zen4 = CpuClasses.read(Fixtures.root("zen4-epyc-9654"), "amd64");
		assertThat(CpuClasses.forThisJvm(zen4, "amd64")).isSameAs(zen4);
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
			Set<String> needs = CpuClasses.requiredFlags(cpuClass, Fixtures.ERRORS);
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
		Set<String> genoa = CpuClasses.requiredFlags("amd-genoa", Fixtures.ERRORS);
		assertThat(CpuClasses.requiredFlags("amd-turin", Fixtures.ERRORS)).containsAll(genoa);
		assertThat(CpuClasses.requiredFlags("intel-sapphirerapids", Fixtures.ERRORS)).containsAll(genoa)
			.doesNotContain("avx512_vp2intersect");
		assertThat(CpuClasses.requiredFlags("arm-sve", Fixtures.ERRORS)).doesNotContain("i8mm", "asimddp");
	}

	@Test
	void aFlagMissingOnAnyProcessorRemovesItsClasses() {
		String cpuinfo = "processor\t: 0\nflags\t\t: avx2 f16c fma avx_vnni\n\nprocessor\t: 1\nflags\t\t: avx2 f16c fma\n";
		assertThat(CpuClasses.fromCpuinfo(cpuinfo).available()).containsExactly("serial", "intel-haswell");
	}

	@Test
	void aFlagOnlyTheLastProcessorReportsIsNotOffered() {
		String cpuinfo = "processor\t: 0\nflags\t\t: avx2 f16c fma\n\nprocessor\t: 1\nflags\t\t: avx2 f16c fma avx_vnni\n";
		CpuClasses classes = CpuClasses.fromCpuinfo(cpuinfo);
		assertThat(classes.available()).containsExactly("serial", "intel-haswell");
		assertThat(classes.flags()).containsExactly("avx2", "f16c", "fma");
	}

	@Test
	void theFlagsAreTheWordsAfterTheColonAndNothingElse() {
		CpuClasses classes = CpuClasses.fromCpuinfo("processor\t: 0\nflags\t\t: fpu avx2  fma\t f16c\n", "amd64");
		assertThat(classes.flags()).containsExactly("avx2", "f16c", "fma", "fpu");
		CpuClasses arm = CpuClasses.fromCpuinfo("processor\t: 0\nFeatures\t: fp asimd asimdhp\n", "aarch64");
		assertThat(arm.flags()).containsExactly("asimd", "asimdhp", "fp");
	}

	@Test
	void anUnknownClassAskedOfTheVocabularyOffersNoDefaultToFallBackOn() {
		// requiredFlags has no CPU, so no best class to leave the field unset for.
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> CpuClasses.requiredFlags("fastest", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).startsWith("not a CPU class uform knows, nor close to one; ")
				.doesNotContain("unset"));
	}

	@Test
	void noCpuinfoMeansSerialOnly() {
		assertThat(CpuClasses.fromCpuinfo("").available()).containsExactly("serial");
		assertThat(CpuClasses.read(Fixtures.root("numa-two-socket")).best()).isEqualTo("serial");
	}

	@Test
	void unknownClassIsInvalidAndListsTheClassesThisCpuOffers() {
		CpuClasses classes = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> classes.resolve("cpuClass", "intel-pentium", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT))
			.satisfies((ex) -> assertThat(ex.field()).isEqualTo("cpuClass"))
			.satisfies((ex) -> assertThat(ex.value()).isEqualTo("'intel-pentium'"))
			.withMessageContaining("cpuClass")
			.withMessageContaining("'intel-pentium'")
			.withMessageContaining(String.join(", ", classes.available()))
			.withMessageNotContaining(String.join(", ", X86));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> CpuClasses.requiredFlags("haswell", Fixtures.ERRORS))
			.withMessageContaining("intel-haswell");
	}

	@Test
	void architectureComesFromTheCpuinfoKeysThenFromOsArch() {
		assertThat(CpuClasses.read(Fixtures.root("zen4-epyc-9654"), "aarch64").architecture()).isEqualTo("x86-64");
		assertThat(CpuClasses.read(Fixtures.root("neoverse-v1-graviton3"), "amd64").architecture()).isEqualTo("aarch64");
		assertThat(CpuClasses.fromCpuinfo("", "amd64").architecture()).isEqualTo("x86-64");
		assertThat(CpuClasses.fromCpuinfo("", "x86_64").architecture()).isEqualTo("x86-64");
		assertThat(CpuClasses.fromCpuinfo("", "aarch64").architecture()).isEqualTo("aarch64");
		assertThat(CpuClasses.fromCpuinfo("", "ppc64le").architecture()).isNull();
		assertThat(CpuClasses.fromCpuinfo("", null).architecture()).isNull();
	}

	@Test
	void typoOnX86SuggestsTheNearestClassAndListsTheX86Classes() {
		CpuClasses zen4 = CpuClasses.read(Fixtures.root("zen4-epyc-9654"), "aarch64");
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> zen4.resolve("cpuClass", "intel-haswel", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).isEqualTo(
					"not a CPU class uform knows; did you mean intel-haswell? This x86-64 CPU offers "
							+ String.join(", ", zen4.available()) + " (or leave it unset for amd-genoa)"))
			.withMessageStartingWith("Invalid cpuClass = 'intel-haswel': not a CPU class uform knows; did you mean ")
			.withMessageNotContaining("arm-");
	}

	@Test
	void sameTypoOnAarch64ListsTheArmClassesAndSaysTheSuggestionIsForX86() {
		CpuClasses graviton3 = CpuClasses.read(Fixtures.root("neoverse-v1-graviton3"), "amd64");
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> graviton3.resolve("cpuClass", "intel-haswel", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).isEqualTo(
					"not a CPU class uform knows; did you mean intel-haswell? It is for x86-64 CPUs; "
							+ "this aarch64 CPU offers "
							+ String.join(", ", graviton3.available()) + " (or leave it unset for arm-sve)"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> graviton3.resolve("cpuClass", "intel-sapphirerapid", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).startsWith("not a CPU class uform knows; "
					+ "did you mean intel-sapphirerapids? It is for x86-64 CPUs; this aarch64 "));
		CpuClasses zen4 = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> zen4.resolve("cpuClass", "sve3", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).startsWith("not a CPU class uform knows; "
					+ "did you mean arm-sve or arm-sve2? They are for aarch64 CPUs; this x86-64 "));
		// An aarch64 machine whose cpuinfo says nothing: os.arch decides.
		CpuClasses bare = CpuClasses.fromCpuinfo("", "aarch64");
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> bare.resolve("cpuClass", "arm-sve3", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).isEqualTo(
					"not a CPU class uform knows; did you mean arm-sve or arm-sve2? This aarch64 CPU offers "
							+ "serial (or leave it unset for serial)"));
	}

	@Test
	void thisArchitecturesNearestNamesComeFirst() {
		// 'amd-geon' is two edits from amd-genoa and from arm-neon.
		CpuClasses zen4 = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> zen4.resolve("cpuClass", "amd-geon", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix())
				.startsWith("not a CPU class uform knows; did you mean amd-genoa or arm-neon? "
						+ "arm-neon is for aarch64 CPUs; "));
		CpuClasses graviton3 = CpuClasses.read(Fixtures.root("neoverse-v1-graviton3"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> graviton3.resolve("cpuClass", "amd-geon", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix())
				.startsWith("not a CPU class uform knows; did you mean arm-neon or amd-genoa? "
						+ "amd-genoa is for x86-64 CPUs; "));
	}

	@Test
	void aNameWithoutItsVendorOrInAnotherCaseIsNearItsClass() {
		CpuClasses zen4 = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> zen4.resolve("cpuClass", "haswell", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix())
				.startsWith("not a CPU class uform knows; did you mean intel-haswell? "));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> zen4.resolve("cpuClass", "AMD-Genoa", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).startsWith("not a CPU class uform knows; did you mean amd-genoa? "));
	}

	@Test
	void garbageSuggestsNothingAndListsThisArchitecturesClasses() {
		CpuClasses zen4 = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> zen4.resolve("cpuClass", "fastest", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).isEqualTo("not a CPU class uform knows, nor close to one; "
					+ "this x86-64 CPU offers " + String.join(", ", zen4.available()) + " (or leave it unset for amd-genoa)")
				.as("only the classes this CPU offers: a class it lacks would fail next")
				.doesNotContain("intel-sapphirerapids", "intel-sapphireamx", "amd-turin"));
		CpuClasses graviton2 = CpuClasses.read(Fixtures.root("neoverse-n1-graviton2"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> graviton2.resolve("cpuClass", "fastest", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).isEqualTo("not a CPU class uform knows, nor close to one; "
					+ "this aarch64 CPU offers " + String.join(", ", graviton2.available())
					+ " (or leave it unset for arm-neonhalf)").doesNotContain("arm-sve"));
	}

	@Test
	void anotherArchitectureListsEveryClass() {
		CpuClasses power = CpuClasses.fromCpuinfo("", "ppc64le");
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> power.resolve("cpuClass", "fastest", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.fix()).isEqualTo("not a CPU class uform knows, nor close to one; "
					+ "this CPU offers serial (or leave it unset for serial)"));
	}

	@Test
	void classThisCpuLacksListsTheMissingFlagsAndTheAvailableClasses() {
		CpuClasses classes = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> classes.resolve("cpuClass", "intel-sapphirerapids", Fixtures.ERRORS))
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.INVALID_ARGUMENT))
			.withMessageContaining("lacks avx512_fp16;")
			.withMessageContaining("serial, intel-haswell, intel-skylake, intel-icelake, amd-genoa")
			.withMessageContaining("leave it unset for amd-genoa");
		CpuClasses graviton3 = CpuClasses.read(Fixtures.root("neoverse-v1-graviton3"));
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> graviton3.resolve("cpuClass", "arm-sve2", Fixtures.ERRORS))
			.withMessageContaining("lacks sve2;");
		assertThatExceptionOfType(UformException.class)
			.isThrownBy(() -> graviton3.resolve("cpuClass", "intel-haswell", Fixtures.ERRORS))
			.withMessageContaining("lacks avx2 f16c fma;");
	}

	@Test
	void availableClassResolvesToItself() {
		CpuClasses classes = CpuClasses.read(Fixtures.root("zen4-epyc-9654"));
		assertThat(classes.resolve("cpuClass", "intel-icelake", Fixtures.ERRORS)).isEqualTo("intel-icelake");
		assertThat(classes.resolve("cpuClass", "serial", Fixtures.ERRORS)).isEqualTo("serial");
	}
}
