package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Uform#preinitialize()} loads the classes of an executor's host side, so that a first
 * executor costs the thread that makes it much less (the Spring Boot starter preinitializes on Boot's
 * background thread, and the main thread makes the executor bean). Its list of classes is by name:
 * this checks, in a fresh JVM's class-loading log, that an executor made, used and freed after it
 * loads none of uform's classes that the list left out, so that the list cannot fall behind the code.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreinitializeLoadsExecutorClassesTest {

	private static final String AFTER = "--- preinitialized";

	private static final String DONE = "--- executor freed";

	@Test
	void aFirstExecutorAfterPreinitializationLoadsNoClassOfUformsOwn() throws Exception {
		ChildJvm.Result result = ChildJvm.run(UsesAnExecutor.class, List.of("-Xlog:class+load"), 40);
		assertThat(result.exitCode()).as("child output:%n%s", result.output()).isZero();
		assertThat(result.output()).contains(AFTER).contains(DONE);
		assertThat(loadedBetweenMarkers(result.output())).as("uform classes loaded by the first executor")
			.isEmpty();
	}

	@Test
	void withoutPreinitializationTheSameExecutorLoadsThem() throws Exception {
		// The check above can fail: the same child, minus the preinitialization, loads the executor's
		// classes between the markers (the pool, its deferred calls, the executor itself).
		ChildJvm.Result result = ChildJvm.start(UsesAnExecutor.class, List.of("-Xlog:class+load"),
				List.of("skip-preinitialize")).await(40);
		assertThat(result.exitCode()).as("child output:%n%s", result.output()).isZero();
		assertThat(loadedBetweenMarkers(result.output())).contains("io.uform.Executor",
				"io.uform.host.HostPool", "io.uform.host.DeferredCalls");
	}

	/**
	 * Names of uform's classes that the log shows between the two markers; left out are lambdas' hidden
	 * classes (spun where they are first used, whatever was loaded before) and this test's own.
	 */
	private static List<String> loadedBetweenMarkers(String output) {
		List<String> loaded = new ArrayList<>();
		boolean between = false;
		for (String line : output.lines().toList()) {
			if (line.equals(AFTER)) {
				between = true;
			}
			else if (line.equals(DONE)) {
				between = false;
			}
			else if (between && line.contains("[class,load] io.uform.")) {
				String name = line.substring(line.indexOf("io.uform.")).split(" ")[0];
				if (!name.contains("$$Lambda") && !name.startsWith(PreinitializeLoadsExecutorClassesTest.class.getName())) {
					loaded.add(name);
				}
			}
		}
		return loaded;
	}

	/**
	 * Preinitializes (unless told {@code skip-preinitialize}), then makes a RAM executor of two
	 * threads, forks on it, defers a call and frees it, printing a marker before and after.
	 */
	public static final class UsesAnExecutor {

		public static void main(String[] args) throws Exception {
			if (args.length == 0) {
				Uform.preinitialize();
			}
			// Discovery is not part of preinitialization (it depends on uform.devices.simulated).
			Uform.gpuDevices();
			System.out.println(AFTER);
			Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(2));
			executor.forThreads((thread, colocation) -> {
			});
			executor.defer(() -> 42).get(10, TimeUnit.SECONDS);
			executor.statistics();
			executor.free(Duration.ofSeconds(10));
			System.out.println(DONE);
		}
	}
}
