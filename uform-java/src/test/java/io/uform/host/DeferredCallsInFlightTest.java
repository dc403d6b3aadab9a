package io.uform.host;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code inFlight()} read while the calls shut down: shutdown floods the slots' permits to wake waiting
 * submitters, and a read of the permits after the flood with the flag read before it gave about
 * -2^31 (statistics and the executor meters showed it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeferredCallsInFlightTest {

	@Test
	void inFlightStaysWithinZeroAndTheLimitWhileTheCallsShutDown() throws Exception {
		AtomicInteger outside = new AtomicInteger();
		AtomicInteger example = new AtomicInteger();
		// Before the fix the first hit came within a few hundred rounds.
		for (int round = 0; round < 1000 && outside.get() == 0; round++) {
			DeferredCalls calls = new DeferredCalls("race-" + round, 4, () -> false, () -> {
			}, Fixtures.ERRORS);
			AtomicBoolean stop = new AtomicBoolean();
			AtomicBoolean started = new AtomicBoolean();
			Thread reader = new Thread(() -> {
				started.set(true);
				while (!stop.get()) {
					int inFlight = calls.inFlight();
					if (inFlight < 0 || inFlight > 4) {
						outside.incrementAndGet();
						example.set(inFlight);
					}
				}
			});
			reader.start();
			while (!started.get()) {
				Thread.onSpinWait();
			}
			calls.shutdown();
			stop.set(true);
			reader.join();
			calls.awaitTermination(Long.MAX_VALUE);
		}
		assertThat(outside.get()).as("inFlight() outside [0, 4], e.g. %d", example.get()).isZero();
	}
}
