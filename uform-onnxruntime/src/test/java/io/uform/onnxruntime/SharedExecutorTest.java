package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
			Set<String> sessionThreads = ConcurrentHashMap.newKeySet();
			Map<Long, String> started;
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
			}
			String prefix = "uform-" + executor.name() + "-";
			assertThat(sessionThreads).as("threads that called a session").isNotEmpty()
				.allSatisfy(name -> assertThat(name).startsWith(prefix));
			assertThat(sessionThreads).as("both of the executor's threads took part").hasSizeGreaterThan(1);
			started.keySet().removeAll(before.keySet());
			// The JVM's compiler and GC threads and uform's completion threads grow on demand, and this
			// test starts one caller; any other new native thread is a pool someone started (a native
			// thread takes the name of the thread that started it, so names alone would not tell).
			started.values().removeIf(SharedExecutorTest::jvmOrTestThread);
			assertThat(started).as("native threads started while two models loaded and embedded").isEmpty();
		}
	}

	private static boolean jvmOrTestThread(String name) {
		return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre") || name.startsWith("GC Thread")
				|| name.startsWith("G1 ") || name.equals("second-caller")
				// uform's own completion pool grows while completions overlap (DeferredCompletions).
				|| name.startsWith("uform-completio");
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
