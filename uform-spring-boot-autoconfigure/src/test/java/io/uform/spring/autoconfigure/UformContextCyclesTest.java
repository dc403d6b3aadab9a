package io.uform.spring.autoconfigure;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.DeviceBuffer;
import io.uform.Executor;
import io.uform.GpuDevice;
import io.uform.GpuVendor;
import io.uform.ScratchStatistics;
import io.uform.Uform;
import io.uform.gpu.SimulatedRuntime;
import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.spring.autoconfigure.models.UformModelsAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Starting and closing a context with both executors (RAM, and VRAM on both of this module's
 * simulated devices) a hundred times leaks neither threads nor device memory nor the contexts: every
 * cycle uses both executors, reserves scratch on every device and leaves it reserved, and the close
 * must give all of it back and leave the closed context to the garbage collector (the context here has
 * no Actuator, whose soft-referenced caches would be Boot's to clear). With a model of
 * {@code uform.models}, a hundred cycles leave no thread, no ONNX Runtime session (whose weights would
 * show in resident memory) and no heap behind.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UformContextCyclesTest {

	private static final int CYCLES = 100;

	/** Scratch reserved per device per cycle, and never closed by the test: the free must return it. */
	private static final long SCRATCH_BYTES = 1 << 20;

	/**
	 * Threads the JVM may gain over the 100 cycles for reasons that are not a leak (a JIT compiler
	 * thread, the attach listener). A leak of even one thread per cycle would be 100.
	 */
	private static final int THREAD_TOLERANCE = 3;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=2");

	@Test
	void aHundredStartCloseCyclesLeakNoThreadNoDeviceMemoryAndNoContext() throws Exception {
		List<Integer> simulated = simulatedDiscoveryOrdinals();
		assertThat(simulated).as("discovery ordinals of the simulated devices").hasSize(2);
		ApplicationContextRunner bothDevices = this.contextRunner.withPropertyValues(
				"uform.vram.devices=" + simulated.get(0) + "," + simulated.get(1));
		long[] startBytes = usedBytes();
		long[] startReadings = readings(simulated);
		// One cycle first: it starts what lives once per JVM (uform's Cleaner thread, class loading),
		// which is not a leak.
		cycle(bothDevices, 0, startBytes);
		assertThat(UformThreads.awaitNone(Duration.ofSeconds(5)))
			.as("uform threads alive after the first cycle")
			.isEmpty();
		int baseline = UformThreads.liveThreads();
		List<String> made = new ArrayList<>();
		long start = System.nanoTime();
		for (int c = 1; c <= CYCLES; c++) {
			made.addAll(cycle(bothDevices, c, startBytes));
		}
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(made).as("executors made").hasSize(2 * CYCLES).doesNotHaveDuplicates();
		assertThat(UformThreads.awaitNone(Duration.ofSeconds(5)))
			.as("uform threads alive after %d cycles", CYCLES)
			.isEmpty();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		int live = UformThreads.liveThreads();
		while (live > baseline + THREAD_TOLERANCE && System.nanoTime() - deadline < 0) {
			TimeUnit.MILLISECONDS.sleep(20);
			live = UformThreads.liveThreads();
		}
		assertThat(live).as("live threads after %d cycles; baseline %d; %d cycles took "
				+ "%d ms", CYCLES, baseline, CYCLES, millis)
			.isLessThanOrEqualTo(baseline + THREAD_TOLERANCE);
		assertThat(usedBytes()).as("simulated device memory in use after %d cycles", CYCLES).containsExactly(startBytes);
		assertThat(readings(simulated)).as("Uform.gpuReadings memory used after %d cycles", CYCLES)
			.containsExactly(startReadings);
		assertThat(stillReachable()).as("closed contexts still strongly reachable after %d cycles", CYCLES).isZero();
	}

	@Test
	void aHundredCyclesWithAModelLeakNoThreadNoNativeSessionAndNoHeap() throws Exception {
		ApplicationContextRunner withModel = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformModelsAutoConfiguration.class))
			.withPropertyValues("uform.ram.threads=2", "uform.vram.enabled=false",
					"uform.models.minilm.model=classpath:/all-minilm-l6-v2-q.onnx",
					"uform.models.minilm.tokenizer=classpath:/all-minilm-l6-v2-q-tokenizer.json",
					"uform.models.minilm.max-tokens=256");
		// Two cycles first: ONNX Runtime's environment and DJL's tokenizer library load once per JVM.
		modelCycle(withModel, 0);
		modelCycle(withModel, 0);
		assertThat(UformThreads.awaitNone(Duration.ofSeconds(5))).as("uform threads alive after the first cycles")
			.isEmpty();
		int baseline = UformThreads.liveThreads();
		long heap = usedHeap();
		long resident = 0;
		for (int c = 1; c <= CYCLES; c++) {
			modelCycle(withModel, c);
			if (c == CYCLES / 2) {
				resident = residentBytes();
			}
		}
		assertThat(UformThreads.awaitNone(Duration.ofSeconds(5))).as("uform threads alive after %d cycles", CYCLES)
			.isEmpty();
		assertThat(UformThreads.liveThreads()).as("live threads after %d cycles with a model", CYCLES)
			.isLessThanOrEqualTo(baseline + THREAD_TOLERANCE);
		assertThat(stillReachable()).as("closed contexts still strongly reachable after %d cycles", CYCLES).isZero();
		// A session left open holds the model's weights (about 23 MB here) natively, and more: with the
		// close skipped, 100 cycles grew the process's resident memory by 3,976 MB, linearly. Without a
		// leak it grows too, but only while the allocator's arenas fill: 538 MB over the first 50 cycles,
		// then 40 MB over the next 50 and 23 MB over the 300 after; on a loaded machine the first 100
		// reached 1,079 MB, failing a bound on all of them. So the bound is on the second half, where a
		// quarter of the weights per cycle still tells a leak from the allocator.
		long weights = new org.springframework.core.io.ClassPathResource("all-minilm-l6-v2-q.onnx").contentLength();
		int measured = CYCLES - CYCLES / 2;
		assertThat(residentBytes() - resident)
			.as("resident memory grown over the last %d of %d cycles; a session holds %d bytes of weights", measured,
					CYCLES, weights)
			.isLessThan(measured * weights / 4);
		assertThat(usedHeap() - heap).as("heap grown over %d cycles", CYCLES).isLessThan(MODEL_CYCLES_HEAP_TOLERANCE);
	}

	/** Heap a hundred model cycles may gain without a leak (class metadata is not heap). */
	private static final long MODEL_CYCLES_HEAP_TOLERANCE = 32L << 20;

	/** One start and close with a model: it embeds on the executor, and is closed with the context. */
	private static void modelCycle(ApplicationContextRunner contextRunner, int number) {
		TextEmbeddingModel[] model = new TextEmbeddingModel[1];
		contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			CLOSED.add(new WeakReference<>(context.getSourceApplicationContext()));
			model[0] = context.getBean(TextEmbeddingModel.class);
			assertThat(model[0].embed("cycle " + number)).hasSize(384);
		});
		assertThatThrownBy(() -> model[0].embed("after the close")).as("cycle %d: the model after close", number)
			.isInstanceOf(IllegalStateException.class);
		assertThat(model[0].executor().statistics().state()).isEqualTo(Executor.State.FREED);
	}

	private static long usedHeap() throws InterruptedException {
		Runtime runtime = Runtime.getRuntime();
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 3; i++) {
			System.gc();
			TimeUnit.MILLISECONDS.sleep(50);
			used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
		}
		return used;
	}

	/** The process's resident memory (VmRSS), where native allocations show. */
	private static long residentBytes() throws java.io.IOException {
		for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
			if (line.startsWith("VmRSS:")) {
				return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
			}
		}
		throw new AssertionError("no VmRSS in /proc/self/status");
	}

	/**
	 * How many closed contexts the garbage collector has not taken: none should be reachable once
	 * closed, through a static registry, a thread or a listener the starter left behind.
	 */
	private static long stillReachable() throws InterruptedException {
		long left = CLOSED.size();
		for (int attempt = 0; attempt < 20 && left > 0; attempt++) {
			System.gc();
			TimeUnit.MILLISECONDS.sleep(25);
			left = CLOSED.stream().filter((closed) -> closed.get() != null).count();
		}
		return left;
	}

	/** Every context the cycles closed, weakly. */
	private static final List<WeakReference<ConfigurableApplicationContext>> CLOSED = new ArrayList<>();

	/**
	 * One start and close: uses both executors, leaves scratch reserved on each device, checks the
	 * memory is in use while the context runs and back to {@code startBytes} once it is closed.
	 * @return the names of the executors made
	 */
	private static List<String> cycle(ApplicationContextRunner contextRunner, int number, long[] startBytes) {
		List<Executor> made = new ArrayList<>();
		contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			CLOSED.add(new WeakReference<>(context.getSourceApplicationContext()));
			Executor ram = context.getBean(Executor.class);
			Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
			made.add(ram);
			made.add(vram);
			assertThat(ram.defer(() -> number).get(10, TimeUnit.SECONDS)).isEqualTo(number);
			int[] forked = new int[ram.threads()];
			ram.forThreads((thread, colocation) -> forked[thread]++);
			assertThat(forked).containsOnly(1);
			// Reserved and not closed: freeing the executor must give it back.
			List<DeviceBuffer> leftOpen = new ArrayList<>();
			vram.forDevices((lane) -> {
				DeviceBuffer buffer = lane.reserve(SCRATCH_BYTES);
				synchronized (leftOpen) {
					leftOpen.add(buffer);
				}
			});
			assertThat(leftOpen).hasSize(2);
			assertThat(vram.statistics().scratch()).extracting(ScratchStatistics::inUseBytes)
				.allSatisfy((bytes) -> assertThat(bytes).isGreaterThanOrEqualTo(SCRATCH_BYTES));
			long[] during = usedBytes();
			for (int device = 0; device < during.length; device++) {
				assertThat(during[device]).as("cycle %d: device %d memory in use", number, device)
					.isGreaterThanOrEqualTo(startBytes[device] + SCRATCH_BYTES);
			}
		});
		assertThat(made).extracting((executor) -> executor.statistics().state())
			.as("cycle %d: executors after close", number)
			.containsOnly(Executor.State.FREED);
		assertThat(usedBytes()).as("cycle %d: simulated device memory in use after close", number)
			.containsExactly(startBytes);
		return made.stream().map(Executor::name).toList();
	}

	private static long[] usedBytes() {
		SimulatedRuntime runtime = SimulatedRuntime.system();
		return new long[] { runtime.usedBytes(0), runtime.usedBytes(1) };
	}

	/** What {@link Uform#gpuReadings(int)}, the public reading, says is in use on each device. */
	private static long[] readings(List<Integer> ordinals) {
		return ordinals.stream().mapToLong((ordinal) -> Uform.gpuReadings(ordinal).memoryUsedBytes()).toArray();
	}

	/** Where discovery lists the simulated devices: after every real GPU, if the machine has any. */
	private static List<Integer> simulatedDiscoveryOrdinals() {
		List<GpuDevice> devices = Uform.gpuDevices();
		List<Integer> ordinals = new ArrayList<>();
		for (int ordinal = 0; ordinal < devices.size(); ordinal++) {
			if (devices.get(ordinal).vendor() == GpuVendor.SIMULATED) {
				ordinals.add(ordinal);
			}
		}
		return ordinals;
	}
}
