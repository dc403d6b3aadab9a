package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

/**
 * Two models on one executor share its threads: no thread but the executor's ever calls a session,
 * and neither ONNX Runtime nor the tokenizer starts a thread of its own.
 */
@Timeout(120)
class SharedExecutorTest {

	@Test
	void twoModelsOnOneExecutorRunOnlyOnItsThreadsAndStartNoneOfTheirOwn() throws Exception {
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null))) {
			// Once per JVM, DJL's tokenizer library starts threads of its own as it loads (a process
			// reaper, JNA's cleaner), and the executor its completion threads: load and use a model once
			// first, so that what is counted is what loading and running models starts.
			try (TextEmbeddingModel warmUp = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
					MiniLm.OPTIONS)) {
				warmUp.embed(MiniLm.TEXTS);
			}
			Map<Long, String> before = tasks();
			Set<Thread> javaBefore = Thread.getAllStackTraces().keySet();
			Set<String> sessionThreads = ConcurrentHashMap.newKeySet();
			Map<Long, String> started;
			List<Thread> javaStarted;
			try (TextEmbeddingModel mean = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS);
					TextEmbeddingModel cls = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
							MiniLm.OPTIONS.withName("cls").withPooling(Pooling.CLS))) {
				for (TextEmbeddingModel model : List.of(mean, cls)) {
					model.sessions().get(0).probe = thread -> sessionThreads.add(thread.getName());
				}
				Thread other = new Thread(() -> {
					for (int round = 0; round < 5; round++) {
						cls.embed(MiniLm.TEXTS);
						cls.embed(MiniLm.TEXTS.get(round));
					}
				}, "second-caller");
				other.start();
				for (int round = 0; round < 5; round++) {
					mean.embed(MiniLm.TEXTS);
					mean.embed(MiniLm.TEXTS.get(round));
				}
				other.join();
				assertThat(mean.embed(MiniLm.TEXTS.get(1))).isNotEqualTo(cls.embed(MiniLm.TEXTS.get(1)));
				// While the sessions are open: a session's pools end with it.
				started = tasks();
				javaStarted = new ArrayList<>(Thread.getAllStackTraces().keySet());
			}
			String prefix = "uform-" + executor.name() + "-";
			assertThat(sessionThreads).as("threads that called a session").isNotEmpty()
				.allSatisfy(name -> assertThat(name).startsWith(prefix));
			assertThat(sessionThreads).as("both of the executor's threads took part").hasSizeGreaterThan(1);
			started.keySet().removeAll(before.keySet());
			// Java threads started meanwhile (this test's caller, a JDK pool's worker) are not native
			// pools: each accounts for one new task of its name. So do the JVM's compiler and GC threads,
			// which grow on demand. Any other new task is a native pool someone started (it takes the
			// name of the thread that started it, so names alone would not tell).
			javaStarted.removeAll(javaBefore);
			List<String> javaNames = new ArrayList<>();
			for (Thread thread : javaStarted) {
				javaNames.add(thread.getName().substring(0, Math.min(15, thread.getName().length())));
			}
			started.values().removeIf(name -> javaNames.remove(name) || jvmThread(name));
			assertThat(started).as("native threads started while two models loaded and embedded").isEmpty();
		}
	}

	private static boolean jvmThread(String name) {
		return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre") || name.startsWith("GC Thread")
				|| name.startsWith("G1 ");
	}

	/** Every native thread of this process, by id, with the name the kernel has for it. */
	private static Map<Long, String> tasks() throws IOException {
		Map<Long, String> tasks = new HashMap<>();
		try (Stream<Path> all = Files.list(Path.of("/proc/self/task"))) {
			for (Path task : (Iterable<Path>) all::iterator) {
				try {
					tasks.put(Long.parseLong(task.getFileName().toString()), Files.readString(task.resolve("comm")).strip());
				}
				catch (IOException ex) {
					// It ended while being listed.
				}
			}
		}
		return tasks;
	}
}
