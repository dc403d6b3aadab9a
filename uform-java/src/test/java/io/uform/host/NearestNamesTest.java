package io.uform.host;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NearestNamesTest {

	private static final List<String> NAMES = List.of("serial", "intel-haswell", "intel-skylake", "amd-rdna1",
			"amd-rdna2", "amd-rdna3", "nvidia-hopper", "nvidia-ada");

	@Test
	void distanceCountsInsertionsDeletionsSubstitutionsAndSwapsIgnoringCase() {
		assertThat(NearestNames.distance("intel-haswell", "intel-haswell")).isZero();
		assertThat(NearestNames.distance("Intel-Haswell", "intel-haswell")).isZero();
		assertThat(NearestNames.distance("intel-haswel", "intel-haswell")).isEqualTo(1);
		assertThat(NearestNames.distance("intel-hasswell", "intel-haswell")).isEqualTo(1);
		assertThat(NearestNames.distance("intel-hasvell", "intel-haswell")).isEqualTo(1);
		assertThat(NearestNames.distance("intel-hawsell", "intel-haswell")).as("a swap is one edit").isEqualTo(1);
		assertThat(NearestNames.distance("", "serial")).isEqualTo(6);
	}

	@Test
	void distanceIsTheSameEitherWayRoundAndToAnEmptyNameIsItsLength() {
		assertThat(NearestNames.distance("serial", "")).isEqualTo(6);
		assertThat(NearestNames.distance("ab", "x")).isEqualTo(2);
		assertThat(NearestNames.distance("x", "ab")).isEqualTo(2);
		assertThat(NearestNames.distance("amd-rdna3", "nvidia-ada")).isEqualTo(NearestNames.distance("nvidia-ada", "amd-rdna3"));
	}

	@Test
	void onlyTwoNeighboursExchangedCountAsOneSwap() {
		// One character shared across the pair is no swap: a deletion and an insertion.
		assertThat(NearestNames.distance("ab", "bc")).isEqualTo(2);
		assertThat(NearestNames.distance("ab", "ca")).isEqualTo(2);
		assertThat(NearestNames.distance("ab", "ba")).isEqualTo(1);
	}

	@Test
	void suggestsEveryNameAtTheSmallestDistanceInTheOrderGiven() {
		assertThat(NearestNames.nearest("intel-haswel", NAMES)).containsExactly("intel-haswell");
		assertThat(NearestNames.nearest("amd-rdna4", NAMES)).containsExactly("amd-rdna1", "amd-rdna2", "amd-rdna3");
		assertThat(NearestNames.nearest("amd-rdna4", List.of("amd-rdna3", "amd-rdna2", "amd-rdna1")))
			.containsExactly("amd-rdna3", "amd-rdna2", "amd-rdna1");
	}

	@Test
	void aMissingOrForeignVendorCountsOneEdit() {
		assertThat(NearestNames.nearest("haswell", NAMES)).containsExactly("intel-haswell");
		assertThat(NearestNames.nearest("amd-skylake", NAMES)).containsExactly("intel-skylake");
		assertThat(NearestNames.nearest("hoper", NAMES)).containsExactly("nvidia-hopper");
	}

	@Test
	void suggestsNothingWhenNoNameIsClose() {
		assertThat(NearestNames.nearest("fastest", NAMES)).isEmpty();
		assertThat(NearestNames.nearest("intel-pentium", NAMES)).isEmpty();
		assertThat(NearestNames.nearest("nvidia-h100", NAMES)).isEmpty();
		assertThat(NearestNames.nearest("auto", NAMES)).isEmpty();
		assertThat(NearestNames.nearest("", NAMES)).isEmpty();
		assertThat(NearestNames.nearest(null, NAMES)).isEmpty();
	}

	@Test
	void listsAlternativesAsAPersonWould() {
		assertThat(NearestNames.either(List.of("a"))).isEqualTo("a");
		assertThat(NearestNames.either(List.of("a", "b"))).isEqualTo("a or b");
		assertThat(NearestNames.either(List.of("a", "b", "c"))).isEqualTo("a, b or c");
	}
}
