package io.uform.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.Uform;

/**
 * What uform's first use costs a cold JVM: what an application's start does with it, on the calling
 * thread (the Spring Boot starter does the first two on a background thread, which on a machine with
 * few cores competes with the main thread all the same): {@link Uform#preinitialize()}, GPU
 * discovery ({@link Uform#gpuDevices()}), and a first RAM executor of two threads, whose workers are
 * pinned. Prints one line: {@code FIRST_USE wall_ms=.. cpu_ms=.. executor_ms=.. classes=.. pinning=..
 * devices=..}, wall and process CPU time from before the first call to the executor made, the wall
 * time of making the executor alone (what the thread that makes it pays when the first two ran on
 * another thread before, as the starter's background preinitializer does), and the classes loaded by
 * then.
 *
 * <p>One JVM measures one start: {@code benchmarks/first-use.sh} runs it many times, in fresh JVMs,
 * alternating this build's {@code uform-java} jar with another build's, and compares them.
 */
public final class FirstUseCost {

	private FirstUseCost() {
	}

	public static void main(String[] args) {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		long cpu = os.getProcessCpuTime();
		long start = System.nanoTime();
		Uform.preinitialize();
		int devices = Uform.gpuDevices().size();
		long making = System.nanoTime();
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2))) {
			long made = System.nanoTime();
			long wall = made - start;
			long used = os.getProcessCpuTime() - cpu;
			int classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
			System.out.println(String.format(Locale.ROOT,
					"FIRST_USE wall_ms=%.1f cpu_ms=%.1f executor_ms=%.1f classes=%d pinning=%s devices=%d", wall / 1e6,
					used / 1e6, (made - making) / 1e6, classes, executor.statistics().pinning().replace(' ', '_'), devices));
		}
	}
}
