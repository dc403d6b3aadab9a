package io.uform.host;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link InheritedAffinityPinner}: a worker whose inherited mask already lies within its domain makes
 * no call and never asks for the system pinner (which would bind JNA); any other asks it, and gets its
 * answer, as does a worker whose mask cannot be read.
 */
class InheritedAffinityPinnerTest {

	private final AtomicInteger asked = new AtomicInteger();

	private final ThreadPinner system = new ThreadPinner() {

		@Override
		public String pinCurrentThread(int[] cpus) {
			InheritedAffinityPinnerTest.this.asked.incrementAndGet();
			return "the system pinner's answer";
		}

		@Override
		public Optional<int[]> currentThreadAffinity() {
			InheritedAffinityPinnerTest.this.asked.incrementAndGet();
			return Optional.of(new int[] { 7 });
		}
	};

	private ThreadPinner pinnerSeeing(int... mask) {
		return new InheritedAffinityPinner(() -> Optional.of(mask), () -> {
			this.asked.incrementAndGet();
			return this.system;
		});
	}

	@Test
	void aMaskWithinTheDomainIsLeftAsItIsWithoutAskingTheSystemPinner() {
		assertThat(pinnerSeeing(0, 1, 2, 3).pinCurrentThread(new int[] { 0, 1, 2, 3 })).isNull();
		assertThat(pinnerSeeing(2, 3).pinCurrentThread(new int[] { 0, 1, 2, 3 })).as("narrowed by taskset").isNull();
		assertThat(pinnerSeeing(2, 3).currentThreadAffinity()).contains(new int[] { 2, 3 });
		assertThat(this.asked).hasValue(0);
	}

	@Test
	void aMaskReachingOutsideTheDomainIsPinnedByTheSystemPinner() {
		// Two domains, [0-1] and [2-3]: a worker of the second starts with its creator's [0-3].
		assertThat(pinnerSeeing(0, 1, 2, 3).pinCurrentThread(new int[] { 2, 3 })).isEqualTo("the system pinner's answer");
		assertThat(pinnerSeeing(1, 2).pinCurrentThread(new int[] { 2, 3 })).isEqualTo("the system pinner's answer");
		assertThat(pinnerSeeing(0, 1).pinCurrentThread(new int[] { 2, 3 })).isEqualTo("the system pinner's answer");
	}

	@Test
	void aMaskThatCannotBeReadIsTheSystemPinnersToDecide() {
		ThreadPinner pinner = new InheritedAffinityPinner(Optional::empty, () -> this.system);
		assertThat(pinner.pinCurrentThread(new int[] { 0 })).isEqualTo("the system pinner's answer");
		assertThat(pinner.currentThreadAffinity()).contains(new int[] { 7 });
		assertThat(pinnerSeeing().pinCurrentThread(new int[] { 0 })).as("an empty mask").isEqualTo("the system pinner's answer");
	}

	@Test
	void withinComparesSortedSets() {
		assertThat(InheritedAffinityPinner.within(new int[] { 0, 5, 9 }, new int[] { 0, 1, 5, 8, 9 })).isTrue();
		assertThat(InheritedAffinityPinner.within(new int[] { 0, 5, 10 }, new int[] { 0, 1, 5, 8, 9 })).isFalse();
		assertThat(InheritedAffinityPinner.within(new int[] { 4 }, new int[] { 0, 1, 5 })).isFalse();
		assertThat(InheritedAffinityPinner.within(new int[] { 0 }, new int[0])).isFalse();
		assertThat(InheritedAffinityPinner.within(new int[0], new int[] { 0 })).isFalse();
	}

	@Test
	void theRealPinnerReadsThisThreadsMaskAsTheSystemDoes() {
		org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name", "").startsWith("Linux"),
				"reads /proc/thread-self/status, Linux's");
		int[] read = ThreadPinner.forWorkers().currentThreadAffinity().orElseThrow();
		assertThat(read).containsExactly(ThreadPinner.system().currentThreadAffinity().orElseThrow());
	}
}
