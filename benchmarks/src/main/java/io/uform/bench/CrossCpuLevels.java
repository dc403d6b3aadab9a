package io.uform.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Mood;

/**
 * Whether a run of slow empty forks is the pool's or the machine's: one executor and one pool-free
 * ping-pong, timed in alternating blocks, each block's median printed side by side. Where the two
 * move together from block to block, within one executor whose objects neither moved nor changed,
 * the level is the machine's cross-CPU latency (on a VM, where the hypervisor puts the two vCPUs),
 * which no build can change.
 *
 * <p>Each block times {@code forks} empty {@code forSlices} forks of two threads, the workers
 * grinding so they do not park between blocks, then parks them and times as many round trips of a
 * value between this thread and a spinning partner thread started for that block.
 *
 * <p>Usage: {@code java -cp <classes>:<uform-java.jar>:<jna.jar> io.uform.bench.CrossCpuLevels
 * [blocks [forks]]} (60 blocks of 20000). Prints one {@code fork|pingpong} pair of medians in
 * microseconds per block, then how many blocks had each ping-pong level and the forks' median in them.
 */
public final class CrossCpuLevels {

	private static volatile long sink;

	private CrossCpuLevels() {
	}

	/**
	 * Runs the blocks and prints their medians.
	 * @param args blocks and forks per block, both optional
	 * @throws InterruptedException if interrupted while the workers settle
	 */
	public static void main(String[] args) throws InterruptedException {
		int blocks = (args.length > 0) ? Integer.parseInt(args[0]) : 60;
		int forks = (args.length > 1) ? Integer.parseInt(args[1]) : 20_000;
		double[] forkMedians = new double[blocks];
		double[] pingMedians = new double[blocks];
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			long[] times = new long[forks];
			for (int i = 0; i < 100_000; i++) {
				executor.forSlices(2, (first, length, thread, colocation) -> sink = first);
			}
			for (int block = 0; block < blocks; block++) {
				executor.drain(Mood.GRINDING);
				for (int i = 0; i < forks; i++) {
					long start = System.nanoTime();
					executor.forSlices(2, (first, length, thread, colocation) -> sink = first);
					times[i] = System.nanoTime() - start;
				}
				forkMedians[block] = median(times);
				// Parked, so the ping-pong's two threads have the two CPUs to themselves; its partner lives
				// only for its block, so it never takes a CPU from the forks.
				executor.drain(Mood.PARKED);
				Thread.sleep(1);
				AtomicLong ball = new AtomicLong();
				Thread partner = new Thread(() -> bounce(ball), "pingpong-partner");
				partner.setDaemon(true);
				partner.start();
				try {
					for (int i = 0; i < forks; i++) {
						long start = System.nanoTime();
						long sent = ball.get() + 1;
						ball.set(sent);
						while (ball.get() == sent) {
							Thread.onSpinWait();
						}
						times[i] = System.nanoTime() - start;
					}
				}
				finally {
					ball.set(-1);
					partner.join();
				}
				pingMedians[block] = median(times);
				System.out.printf(Locale.ROOT, "%.2f|%.2f%s", forkMedians[block], pingMedians[block], (block % 10 == 9) ? "\n" : " ");
			}
		}
		System.out.println();
		summarize(forkMedians, pingMedians);
	}

	/**
	 * A ping-pong partner (here and in {@link ForkTailLatencyBenchmark}): answers every odd value with
	 * the next even one, until the value goes negative.
	 */
	static void bounce(AtomicLong ball) {
		long seen = 0;
		while (true) {
			long now = ball.get();
			if (now < 0) {
				return;
			}
			if (now != seen && (now & 1) == 1) {
				seen = now + 1;
				ball.set(seen);
			}
			Thread.onSpinWait();
		}
	}

	/** Groups blocks by their ping-pong median, in factors of two from 0.06 us, and prints each group's fork median. */
	private static void summarize(double[] forkMedians, double[] pingMedians) {
		TreeMap<Long, List<Double>> byLevel = new TreeMap<>();
		for (int i = 0; i < forkMedians.length; i++) {
			long level = Math.round(Math.log(Math.max(pingMedians[i], 0.01) / 0.06) / Math.log(2));
			byLevel.computeIfAbsent(level, key -> new ArrayList<>()).add(forkMedians[i]);
		}
		System.out.println("# ping-pong level (us)\tblocks\tempty fork median in them (us)");
		byLevel.forEach((level, forks) -> {
			double[] values = forks.stream().mapToDouble(Double::doubleValue).sorted().toArray();
			System.out.printf(Locale.ROOT, "%.2f\t%d\t%.2f%n", 0.06 * Math.pow(2, level), values.length, values[values.length / 2]);
		});
	}

	private static double median(long[] nanos) {
		long[] sorted = nanos.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2] / 1000.0;
	}
}
