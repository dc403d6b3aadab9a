package io.uform.host;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link InheritedAffinityPinner}: on a one-node machine a worker whose inherited mask already lies
 * within its domain makes no call and never asks for the system pinner (which would bind JNA); any
 * other asks it, and gets its answer, as does a worker whose mask cannot be read, and every worker on
 * a machine with several nodes. The mask is the thread's own, online CPUs only.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InheritedAffinityPinnerTest {

	@TempDir
	Path root;

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
		return pinnerSeeing(true, mask);
	}

	private ThreadPinner pinnerSeeing(boolean oneNode, int... mask) {
		return new InheritedAffinityPinner(() -> oneNode, () -> Optional.of(mask), () -> {
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

	/**
	 * On a machine with several nodes even a worker already on its domain makes the call: a process
	 * confined to one node by a cpuset sees one domain, and since Linux 6.2 only a thread that made the
	 * call keeps its mask when the cpuset is widened; one that made none follows it onto other nodes.
	 */
	@Test
	void onAMachineWithSeveralNodesEveryWorkerAsksTheSystemPinner() {
		assertThat(pinnerSeeing(false, 0, 1).pinCurrentThread(new int[] { 0, 1 })).isEqualTo("the system pinner's answer");
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
		ThreadPinner pinner = new InheritedAffinityPinner(() -> true, Optional::empty, () -> this.system);
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

	/** {@code Cpus_allowed_list} lists offline CPUs too (SMT off, CPUs taken offline, hot-plug slots). */
	@Test
	void theMaskReadIsTheThreadsOnlineCpus() throws Exception {
		status("Name:\tworker\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n");
		Files.createDirectories(this.root.resolve("sys/devices/system/cpu"));
		Files.writeString(this.root.resolve("sys/devices/system/cpu/online"), "0-3\n");
		assertThat(InheritedAffinityPinner.currentMask(this.root)).contains(new int[] { 0, 1, 2, 3 });
		Files.writeString(this.root.resolve("sys/devices/system/cpu/online"), "9\n");
		assertThat(InheritedAffinityPinner.currentMask(this.root)).as("no online CPU in the mask").isEmpty();
		Files.delete(this.root.resolve("sys/devices/system/cpu/online"));
		assertThat(InheritedAffinityPinner.currentMask(this.root)).as("no online list").contains(new int[] { 0, 1, 2, 3, 4, 5, 6, 7 });
	}

	/** The JVM cuts a thread's name to 15 bytes in the first line, through a character where it is not ASCII. */
	@Test
	void aStatusFileWhoseNameLineIsNoUtf8IsReadAllTheSame() throws Exception {
		Path status = this.root.resolve("proc/thread-self/status");
		Files.createDirectories(status.getParent());
		byte[] name = "Name:\t\u0416\u0416\u0416\u0416\u0416\u0416\u0416".getBytes(StandardCharsets.UTF_8);
		byte[] cut = java.util.Arrays.copyOf(name, name.length - 1);
		Files.write(status, concat(cut, "\nCpus_allowed_list:\t0-1\n".getBytes(StandardCharsets.US_ASCII)));
		assertThat(InheritedAffinityPinner.currentMask(this.root)).contains(new int[] { 0, 1 });
	}

	@Test
	void theRealPinnerReadsThisThreadsMaskAsTheSystemDoes() {
		org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name", "").startsWith("Linux"),
				"reads /proc/thread-self/status, Linux's");
		int[] read = ThreadPinner.forWorkers().currentThreadAffinity().orElseThrow();
		assertThat(read).containsExactly(ThreadPinner.system().currentThreadAffinity().orElseThrow());
	}

	/** The thread's own mask, not the process's: a thread narrowed to one CPU reads that CPU alone. */
	@Test
	void aNarrowedThreadReadsItsOwnMask() throws Exception {
		assumeTrue(System.getProperty("os.name", "").startsWith("Linux"), "reads /proc/thread-self/status, Linux's");
		int[] process = ThreadPinner.system().currentThreadAffinity().orElseThrow();
		assumeTrue(process.length >= 2, "needs two CPUs to narrow a thread to one");
		AtomicReference<Object> seen = new AtomicReference<>();
		Thread narrowed = new Thread(() -> {
			String failure = ThreadPinner.system().pinCurrentThread(new int[] { process[0] });
			seen.set((failure != null) ? failure : ThreadPinner.forWorkers().currentThreadAffinity().orElseThrow());
		});
		narrowed.start();
		narrowed.join(10_000);
		assertThat(seen.get()).isEqualTo(new int[] { process[0] });
	}

	private void status(String text) throws Exception {
		Path status = this.root.resolve("proc/thread-self/status");
		Files.createDirectories(status.getParent());
		Files.writeString(status, text);
	}

	private static byte[] concat(byte[] a, byte[] b) {
		byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
		System.arraycopy(b, 0, both, a.length, b.length);
		return both;
	}
}
