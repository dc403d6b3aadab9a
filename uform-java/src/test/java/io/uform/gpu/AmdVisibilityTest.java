package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class AmdVisibilityTest {

	private static final List<String> UUIDS = Arrays.asList("GPU-AAAA000000000001", "GPU-AAAA000000000002",
			"GPU-BBBB000000000003", null);

	private static List<Integer> visible(String rocr, String hip) {
		Map<String, String> environment = new HashMap<>();
		if (rocr != null) {
			environment.put("ROCR_VISIBLE_DEVICES", rocr);
		}
		if (hip != null) {
			environment.put("HIP_VISIBLE_DEVICES", hip);
		}
		return AmdVisibility.visible(environment, UUIDS);
	}

	@Test
	void unsetMeansEveryGpuInKfdOrder() {
		assertThat(visible(null, null)).containsExactly(0, 1, 2, 3);
	}

	@Test
	void emptyMeansNone() {
		assertThat(visible("", null)).isEmpty();
		assertThat(visible(null, "")).isEmpty();
	}

	@Test
	void listOrderIsTheNewOrder() {
		assertThat(visible("3, 1", null)).containsExactly(3, 1);
	}

	@Test
	void stopsAtTheFirstInvalidOutOfRangeOrRepeatedToken() {
		assertThat(visible("0,2,-1,1", null)).containsExactly(0, 2);
		assertThat(visible("1,7,0", null)).containsExactly(1);
		assertThat(visible("2,2,0", null)).containsExactly(2);
		assertThat(visible("1,x,0", null)).containsExactly(1);
		assertThat(visible("1,,0", null)).containsExactly(1);
	}

	@Test
	void readsIndicesAsStrtolBaseZero() {
		assertThat(visible("0x2,01", null)).containsExactly(2, 1);
		assertThat(visible("08", null)).isEmpty();
	}

	@Test
	void matchesUniqueUuidPrefixesOfAtLeastFiveCharacters() {
		assertThat(visible("gpu-bbbb", null)).containsExactly(2);
		assertThat(visible("GPU-AAAA000000000002,0", null)).containsExactly(1, 0);
		// Ambiguous (two GPUs start with it) and too short both end the list.
		assertThat(visible("GPU-AAAA,1", null)).isEmpty();
		assertThat(visible("GPU-", null)).isEmpty();
	}

	@Test
	void aUuidPrefixOfExactlyFiveCharactersIsEnough() {
		assertThat(visible("GPU-B", null)).containsExactly(2);
		assertThat(visible("GPU-A", null)).as("ambiguous").isEmpty();
	}

	@Test
	void aLeadingZeroMakesAnIndexOctalAsStrtolReadsIt() {
		List<String> tenGpus = Arrays.asList(new String[10]);
		assertThat(AmdVisibility.visible(Map.of("ROCR_VISIBLE_DEVICES", "010,0,9"), tenGpus)).containsExactly(8, 0, 9);
		assertThat(AmdVisibility.visible(Map.of("ROCR_VISIBLE_DEVICES", "1,09"), tenGpus)).containsExactly(1);
	}

	@Test
	void hipIndicesApplyToWhatRocrExposed() {
		assertThat(visible("3,2,1", "2,0")).containsExactly(1, 3);
		assertThat(visible(null, "1")).containsExactly(1);
		assertThat(visible("2", "1")).isEmpty();
	}

	@Test
	void hipTakesNoUuids() {
		assertThat(visible(null, "GPU-BBBB")).isEmpty();
	}
}
