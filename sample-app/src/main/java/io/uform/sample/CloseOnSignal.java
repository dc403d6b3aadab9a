package io.uform.sample;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

import org.springframework.context.ConfigurableApplicationContext;

import sun.misc.Signal;

/**
 * Closes the application context on SIGTERM and SIGINT before the JVM runs its shutdown hooks, then
 * exits with the status a signal's death would give (128 + its number).
 *
 * <p>Why not Spring Boot's own shutdown hook alone: ONNX Runtime registers a JVM shutdown hook of
 * its own that frees its native environment, and the JVM runs all hooks at once, in no order. A
 * deferred call still embedding when SIGTERM came then ran on a freed environment and crashed the JVM
 * (a SIGSEGV in {@code OrtSession.run}, caught by {@code scripts/slurm/check.sh}). Closing the context
 * first drains the executors and closes the model while the environment still lives; Boot's hook then
 * finds the context closed, and ONNX Runtime's frees an environment nothing uses.
 */
final class CloseOnSignal {

	private final AtomicReference<ConfigurableApplicationContext> context = new AtomicReference<>();

	private final IntConsumer exit;

	/**
	 * @param exit ends the process with a status ({@link System#exit} outside tests)
	 */
	CloseOnSignal(IntConsumer exit) {
		this.exit = exit;
	}

	/**
	 * Handles SIGTERM and SIGINT from now on.
	 * @return this, to be given the context as soon as it exists
	 */
	CloseOnSignal install() {
		for (String name : new String[] { "TERM", "INT" }) {
			Signal.handle(new Signal(name), (signal) -> closeThenExit(signal.getNumber()));
		}
		return this;
	}

	/**
	 * The context to close; given as soon as it is made, so a signal during startup closes it too.
	 * @param made the application's context
	 */
	void closing(ConfigurableApplicationContext made) {
		this.context.set(made);
	}

	/**
	 * Closes the context, if one was made, then exits with {@code 128 + signal}; on the signal's own
	 * thread, so a close that waits for work in flight delays the exit, not the signal.
	 * @param signal the signal's number
	 */
	void closeThenExit(int signal) {
		try {
			ConfigurableApplicationContext made = this.context.get();
			if (made != null) {
				made.close();
			}
		}
		finally {
			this.exit.accept(128 + signal);
		}
	}
}
