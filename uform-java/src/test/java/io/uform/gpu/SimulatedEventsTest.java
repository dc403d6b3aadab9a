package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException;
import io.uform.UformException.Status;

/**
 * How busy simulated streams ({@link BusyStreams}, which the executors' timed-drain tests rely on)
 * order completion, as a GPU's do: a stream query sees all work, also work queued a moment ago; an
 * event sees only the work queued before it was recorded; a synchronise waits for the work queued
 * before the call. Events stay the simulated runtime's: shared by a device's contexts and freed with
 * the context that made them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimulatedEventsTest {

	private final BusyStreams runtime = new BusyStreams(new SimulatedRuntime(2, 1 << 20));

	@Test
	void anEventIsDoneOnceTheWorkQueuedBeforeItsRecordIsWhateverIsQueuedAfter() {
		try (DeviceContext context = this.runtime.open(0)) {
			long stream = context.createStream();
			BusyStreams.RunningWork before = this.runtime.start(0, stream);
			long event = context.createEvent();
			context.recordEvent(event, stream);
			BusyStreams.RunningWork after = this.runtime.start(0, stream);

			assertThat(context.eventDone(event)).as("the work before it runs").isFalse();
			before.finish();
			assertThat(context.eventDone(event)).as("only later work runs").isTrue();
			assertThat(context.idle(stream)).as("a stream query sees the later work").isFalse();
			after.finish();
			assertThat(context.idle(stream)).isTrue();
			context.destroyEvent(event);
			assertThat(this.runtime.liveEvents(0)).isZero();
		}
	}

	@Test
	void completionIsInQueueOrderAndAnEventNeverRecordedIsDone() {
		try (DeviceContext context = this.runtime.open(0)) {
			long stream = context.createStream();
			long unrecorded = context.createEvent();
			assertThat(context.eventDone(unrecorded)).isTrue();
			BusyStreams.RunningWork first = this.runtime.start(0, stream);
			BusyStreams.RunningWork second = this.runtime.start(0, stream);
			long event = context.createEvent();
			context.recordEvent(event, stream);

			second.finish();
			assertThat(context.eventDone(event)).as("the first work, queued before the second, still runs").isFalse();
			first.finish();
			assertThat(context.eventDone(event)).isTrue();
		}
	}

	@Test
	void aSynchroniseWaitsForTheWorkQueuedBeforeIt() throws Exception {
		try (DeviceContext context = this.runtime.open(0)) {
			long stream = context.createStream();
			BusyStreams.RunningWork work = this.runtime.start(0, stream);
			CompletableFuture<Void> synchronised = CompletableFuture.runAsync(() -> context.synchronize(stream),
					(task) -> new Thread(task, "synchronising").start());

			Thread.sleep(20);
			assertThat(synchronised).as("the work still runs").isNotDone();
			work.finish();
			synchronised.get(20, TimeUnit.SECONDS);
		}
	}

	@Test
	void eventsAreSharedByTheDevicesContextsAndFreedWithTheContextThatMadeThem() {
		DeviceContext maker = this.runtime.open(0);
		try (DeviceContext other = this.runtime.open(0); DeviceContext elsewhere = this.runtime.open(1)) {
			long event = maker.createEvent();
			other.recordEvent(event, 0);
			assertThat(other.eventDone(event)).isTrue();
			assertThat(this.runtime.liveEvents(0)).isEqualTo(1);
			assertThatThrownBy(() -> elsewhere.eventDone(event)).isInstanceOfSatisfying(UformException.class, (ex) -> {
				assertThat(ex.status()).isEqualTo(Status.DEVICE_ERROR);
				assertThat(ex.getMessage()).contains("cuEventQuery failed on Simulated GPU 1 (host memory)",
						"is not an event created on this device");
			});

			maker.close();

			assertThat(this.runtime.liveEvents(0)).isZero();
			assertThatThrownBy(() -> other.destroyEvent(event)).isInstanceOf(UformException.class)
				.hasMessageContaining("cuEventDestroy_v2 failed").hasMessageContaining("destroyed already");
			assertThatThrownBy(() -> other.recordEvent(other.createEvent(), 0x51a0L)).isInstanceOf(UformException.class)
				.hasMessageContaining("cuEventRecord failed").hasMessageContaining("is not a stream created on this device");
		}
	}
}
