package io.uform;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * {@link Uform#preinitialize()} loads the classes of an executor's host side, so that a first
 * executor costs the thread that makes it much less (the Spring Boot starter preinitializes on Boot's
 * background thread, and the main thread makes the executor bean). Its list of classes is by name:
 * this checks, in a fresh JVM's class log, that an executor made, used and freed after it loads,
 * verifies or initialises none of uform's classes (a class can be loaded early, while the verifier
 * checks another, and verified and initialised only where it is first used), and that every name on
 * the list names a class, so that the list cannot fall behind the code.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreinitializeLoadsExecutorClassesTest {

	private static final String AFTER = "--- preinitialized";

	private static final String DONE = "--- executor freed";

	/** Left to the first executor on purpose: initialising it starts the cleaner's thread. */
	private static final String MADE_WITH_THE_FIRST_EXECUTOR = "io.uform.Executor$Cleaning";

	/** Which classes load, which the verifier checks, and which are initialised. */
	private static final String CLASS_LOG = "-Xlog:class+load=info,class+init=info";

	@Test
	void aFirstExecutorAfterPreinitializationLoadsNoClassOfUformsOwn() throws Exception {
		ChildJvm.Result result = ChildJvm.run(UsesAnExecutor.class, List.of(CLASS_LOG), 40);
		assertThat(result.exitCode()).as("child output:%n%s", result.output()).isZero();
		assertThat(result.output()).contains(AFTER).contains(DONE);
		assertThat(loadedBetweenMarkers(result.output()))
			.as("uform classes loaded, verified or initialised by the first executor").isEmpty();
	}

	@Test
	void everyNameOnTheListNamesAClass() {
		// A name left behind when its class is deleted would be skipped without a word.
		for (String name : Uform.EXECUTOR_CLASSES) {
			assertThatCode(() -> Class.forName(name, false, Uform.class.getClassLoader())).as(name)
				.doesNotThrowAnyException();
		}
	}

	@Test
	void withoutPreinitializationTheSameExecutorLoadsThem() throws Exception {
		// The check above can fail: the same child, minus the preinitialization, loads the executor's
		// classes between the markers (the pool, its deferred calls, the executor itself).
		ChildJvm.Result result = ChildJvm.start(UsesAnExecutor.class, List.of(CLASS_LOG),
				List.of("skip-preinitialize")).await(40);
		assertThat(result.exitCode()).as("child output:%n%s", result.output()).isZero();
		assertThat(loadedBetweenMarkers(result.output())).anyMatch((line) -> line.endsWith(" io.uform.Executor"))
			.anyMatch((line) -> line.contains("Initializing 'io/uform/host/HostPool'"))
			.anyMatch((line) -> line.contains("Start class verification for: io.uform.host.DeferredCalls"));
	}

	/**
	 * Names of uform's classes that the log shows loaded, verified or initialised between the two
	 * markers; left out are lambdas' hidden classes (spun where they are first used, whatever was
	 * loaded before), the executor's cleaner and this test's own.
	 */
	private static List<String> loadedBetweenMarkers(String output) {
		List<String> seen = new ArrayList<>();
		boolean between = false;
		for (String line : output.lines().toList()) {
			if (line.equals(AFTER)) {
				between = true;
			}
			else if (line.equals(DONE)) {
				between = false;
			}
			else if (between) {
				String name = uformClass(line);
				if (name != null && !name.contains("$$Lambda") && !name.equals(MADE_WITH_THE_FIRST_EXECUTOR)
						&& !name.startsWith(PreinitializeLoadsExecutorClassesTest.class.getName())) {
					seen.add(line.substring(line.indexOf("[class,")));
				}
			}
		}
		return seen;
	}

	/** The uform class a class-load, verification or initialisation line names, else null. */
	private static String uformClass(String line) {
		int at;
		if (line.contains("[class,load] io.uform.")) {
			at = line.indexOf("io.uform.");
		}
		else if (line.contains("Start class verification for: io.uform.")) {
			at = line.indexOf("io.uform.");
		}
		else if (line.contains("Initializing 'io/uform/")) {
			at = line.indexOf("io/uform/");
		}
		else {
			return null;
		}
		return line.substring(at).split("[ ']")[0].replace('/', '.');
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
