package io.uform.host;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The Linux cpulist syntax ({@code nodeN/cpulist}, {@code Cpus_allowed_list}) that {@link CpuList}
 * reads and prints: which CPUs a list names, which lists are refused with a message naming the item,
 * where the CPU id range ends, and how CPU ids print back as a compact list for messages.
 */
class CpuListTest {

	@Test
	void numbersAndInclusiveRangesParseToAscendingCpusWithoutDuplicates() {
		assertThat(CpuList.parse("8-11,0-3,2,15\n")).containsExactly(0, 1, 2, 3, 8, 9, 10, 11, 15);
	}

	@Test
	void aRangeWhoseEndsAreEqualIsThatOneCpu() {
		assertThat(CpuList.parse("3-3")).containsExactly(3);
		assertThat(CpuList.parse("0-0,5-5")).containsExactly(0, 5);
	}

	@Test
	void aDescendingRangeIsRefusedNamingTheRangeAndTheList() {
		assertThatIllegalArgumentException().isThrownBy(() -> CpuList.parse("0,3-1"))
			.withMessage("Descending range '3-1' in cpulist '0,3-1'");
	}

	@Test
	void aBlankOrAbsentListNamesNoCpus() {
		assertThat(CpuList.parse(null)).isEmpty();
		assertThat(CpuList.parse("")).isEmpty();
		assertThat(CpuList.parse(" \n")).isEmpty();
	}

	@Test
	void emptyItemsBetweenCommasAreSkipped() {
		assertThat(CpuList.parse("0,,2")).containsExactly(0, 2);
		assertThat(CpuList.parse(" , 4-5")).containsExactly(4, 5);
	}

	@Test
	void anItemThatIsNoNumberIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> CpuList.parse("0-3,x"))
			.withMessage("Item 'x' of cpulist '0-3,x' is not N or A-B");
	}

	@Test
	void cpuIdsRunUpToTheLimitAndOneBeyondIsACorruptFile() {
		int last = CpuList.MAX_CPUS - 1;
		assertThat(CpuList.parse(String.valueOf(last))).containsExactly(last);
		assertThat(CpuList.parse((last - 1) + "-" + last)).containsExactly(last - 1, last);
		assertThatIllegalArgumentException().isThrownBy(() -> CpuList.parse(String.valueOf(CpuList.MAX_CPUS)))
			.withMessage("Item '" + CpuList.MAX_CPUS + "' of cpulist '" + CpuList.MAX_CPUS + "' names CPU "
					+ CpuList.MAX_CPUS + ", outside 0-" + last);
		assertThatIllegalArgumentException().isThrownBy(() -> CpuList.parse("0-" + CpuList.MAX_CPUS))
			.withMessageContaining("names CPU " + CpuList.MAX_CPUS);
	}

	@Test
	void formatPrintsRunsAsRangesAndLoneCpusAsNumbers() {
		assertThat(CpuList.format(new int[] { 0, 1, 2, 3, 8 })).isEqualTo("0-3,8");
		assertThat(CpuList.format(new int[] { 0, 2 })).isEqualTo("0,2");
		assertThat(CpuList.format(new int[] { 5 })).isEqualTo("5");
		assertThat(CpuList.format(new int[0])).isEmpty();
	}

	@Test
	void formatPrintsCpusGivenInAnyOrderAscending() {
		int[] cpus = { 9, 8, 1, 0, 2 };
		assertThat(CpuList.format(cpus)).isEqualTo("0-2,8-9");
		assertThat(cpus).as("the caller's array is left as it was").containsExactly(9, 8, 1, 0, 2);
	}

	@Test
	void whatFormatPrintsParsesBackToTheSameCpus() {
		int[] cpus = { 0, 1, 2, 3, 8, 9, 10, 11, 13, 64 };
		assertThat(CpuList.parse(CpuList.format(cpus))).containsExactly(cpus);
	}
}
