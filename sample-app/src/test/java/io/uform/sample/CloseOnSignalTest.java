package io.uform.sample;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The sample closes its context on a signal before it exits, so that nothing it runs outlives the
 * native libraries whose own shutdown hooks free them.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CloseOnSignalTest {

	@Test
	void aSignalClosesTheContextBeforeItExitsWith128PlusItsNumber() {
		List<String> steps = new CopyOnWriteArrayList<>();
		CloseOnSignal onSignal = new CloseOnSignal((status) -> steps.add("exit " + status));
		onSignal.closing(contextWhoseCloseIsRecordedIn(steps));

		onSignal.closeThenExit(15);

		assertThat(steps).containsExactly("bean destroyed", "exit 143");
	}

	@Test
	void aSignalBeforeTheContextExistsStillExits() {
		List<String> steps = new CopyOnWriteArrayList<>();
		new CloseOnSignal((status) -> steps.add("exit " + status)).closeThenExit(2);

		assertThat(steps).containsExactly("exit 130");
	}

	@Test
	void aCloseThatThrowsStillExits() {
		List<String> steps = new CopyOnWriteArrayList<>();
		CloseOnSignal onSignal = new CloseOnSignal((status) -> steps.add("exit " + status));
		onSignal.closing(new GenericApplicationContext() {

			@Override
			public void close() {
				throw new IllegalStateException("close failed");
			}
		});

		assertThatIllegalStateException().isThrownBy(() -> onSignal.closeThenExit(15));
		assertThat(steps).containsExactly("exit 143");
	}

	@Test
	void aRealSigtermIsHandledByClosingFirst() throws Exception {
		Signal term = new Signal("TERM");
		Signal interrupt = new Signal("INT");
		// Read the handlers to restore by setting one that does nothing (the JVM will not replace SIG_IGN).
		SignalHandler termBefore = Signal.handle(term, (signal) -> {
		});
		SignalHandler interruptBefore = Signal.handle(interrupt, (signal) -> {
		});
		List<String> steps = new CopyOnWriteArrayList<>();
		CountDownLatch exited = new CountDownLatch(1);
		try {
			CloseOnSignal onSignal = new CloseOnSignal((status) -> {
				steps.add("exit " + status);
				exited.countDown();
			}).install();
			onSignal.closing(contextWhoseCloseIsRecordedIn(steps));

			Signal.raise(term);

			assertThat(exited.await(10, TimeUnit.SECONDS)).as("the handler ran").isTrue();
			assertThat(steps).containsExactly("bean destroyed", "exit 143");
		}
		finally {
			// This JVM is the test runner's: give SIGTERM and SIGINT back their handlers.
			Signal.handle(term, termBefore);
			Signal.handle(interrupt, interruptBefore);
		}
	}

	private static GenericApplicationContext contextWhoseCloseIsRecordedIn(List<String> steps) {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean("recording", DisposableBean.class, () -> () -> steps.add("bean destroyed"));
		context.refresh();
		return context;
	}
}
