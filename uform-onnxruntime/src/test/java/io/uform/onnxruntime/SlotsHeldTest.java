package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.UformException;

/**
 * The deferred-call slots a model holds are its real work: a request served by another call's batch
 * leaves no slot behind for its client's next request, so the executor's saturation error comes only
 * when {@code deferred-limit} requests are really outstanding; and whatever races (refusals,
 * interrupts, a free), every request is answered or refused, none strands.
 */
@Timeout(120)
class SlotsHeldTest {

	private static final int LIMIT = 8;

	/** More than half the limit: their leftover calls and the next requests together overflow it. */
	private static final int SERVED = 5;

	@Test
	void requestsServedByARunningBatchLeaveNoSlotsSoFewerThanTheLimitOutstandingAreNeverRefused() throws Exception {
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, LIMIT));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withSlotWait(Duration.ZERO))) {
			List<String> texts = new ArrayList<>();
			for (int i = 0; i < SERVED + LIMIT; i++) {
				texts.add(MiniLm.TEXTS.get(i % MiniLm.TEXTS.size()) + " (request " + i + ")");
			}
			// One request, one call: a text's vector does not depend on its batch.
			List<float[]> alone = List.of(model.embed(texts));
			ConcurrentCallersTest.settle(executor);
			// The holding request's two texts: one session call waits for the end of the test (the batch
			// keeps running), the other until the next requests are queued, then its thread serves them.
			CountDownLatch inSession = new CountDownLatch(2);
			CountDownLatch queued = new CountDownLatch(1);
			CountDownLatch end = new CountDownLatch(1);
			AtomicInteger calls = new AtomicInteger();
			model.sessions().get(0).probe = (thread) -> {
				int call = calls.incrementAndGet();
				if (call <= 2) {
					inSession.countDown();
					await((call == 1) ? end : queued);
				}
			};
			try {
				Caller holding = Caller.start(model, List.of("hold the batch", "and serve the next ones"));
				inSession.await();
				List<Caller> served = new ArrayList<>();
				for (int i = 0; i < SERVED; i++) {
					served.add(Caller.start(model, List.of(texts.get(i))));
				}
				while (executor.statistics().deferredInFlight() < 1 + SERVED) {
					Thread.sleep(1);
				}
				queued.countDown();
				for (int i = 0; i < SERVED; i++) {
					assertThat(served.get(i).vectors()[0]).as("request %d", i).containsExactly(alone.get(i));
				}
				// Their batch still runs. Outstanding now: the holding request, then it and LIMIT - 2 more.
				List<Caller> next = new ArrayList<>();
				for (int i = SERVED; i < SERVED + LIMIT - 2; i++) {
					next.add(Caller.start(model, List.of(texts.get(i))));
				}
				for (Caller caller : next) {
					caller.awaitWaitingOrDone();
				}
				assertThat(next).as("%d requests outstanding against deferred-limit %d: none refused", LIMIT - 1, LIMIT)
					.allSatisfy((caller) -> assertThat(caller.failure).isNull());
				assertThat(executor.statistics().deferredInFlight()).isLessThanOrEqualTo(LIMIT);
				end.countDown();
				assertThat(holding.vectors().length).isEqualTo(2);
				for (int i = 0; i < next.size(); i++) {
					assertThat(next.get(i).vectors()[0]).as("request %d", SERVED + i).containsExactly(alone.get(SERVED + i));
				}
			}
			finally {
				// A failed assertion must not leave the batch held: the model's close would wait for it.
				queued.countDown();
				end.countDown();
			}
			ConcurrentCallersTest.settle(executor);
			assertThat(executor.statistics().deferredRejected()).isZero();
		}
	}

	@Test
	void aClientThatComesBackAtOnceTakesItsOldSlotAgainNotASecondOne() {
		// deferred-limit 2: the call serving the client, and one queued behind it.
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 2));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withSlotWait(Duration.ZERO))) {
			for (int i = 0; i < 300; i++) {
				// Each request may join the batch that served the one before it, while that batch runs.
				assertThat(model.embed(MiniLm.TEXTS.get(i % MiniLm.TEXTS.size()))).as("request %d", i)
					.hasSize(MiniLm.DIMENSIONS);
			}
			assertThat(executor.statistics().deferredRejected()).isZero();
		}
	}

	@Test
	void theSaturationErrorStillComesWhenTheLimitIsReallyReached() throws Exception {
		try (Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 3));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS.withSlotWait(Duration.ZERO))) {
			// Another user of the executor holds its runner and one slot; two requests take the two left.
			CountDownLatch release = new CountDownLatch(1);
			var blocker = executor.defer(() -> {
				release.await();
				return null;
			});
			Caller first = Caller.start(model, List.of("GPU"));
			Caller second = Caller.start(model, List.of("uform"));
			first.awaitWaitingOrDone();
			second.awaitWaitingOrDone();
			Caller third = Caller.start(model, List.of("executor"));
			third.join();
			assertThat(third.failure).isInstanceOfSatisfying(UformException.class,
					(ex) -> assertThat(ex.status()).isEqualTo(UformException.Status.TIMEOUT));
			release.countDown();
			blocker.get();
			assertThat(first.vectors()[0]).hasSize(MiniLm.DIMENSIONS);
			assertThat(second.vectors()[0]).hasSize(MiniLm.DIMENSIONS);
		}
	}

	@Test
	void refusalsInterruptsAndAFreeRacingNeverStrandARequest() throws Exception {
		for (int round = 0; round < 4; round++) {
			Executor executor = Executor.forRam(new ExecutorForRamConfig(null, null, 2, 4));
			TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
					// A small token budget, so batches leave requests behind for the calls that back them.
					MiniLm.OPTIONS.withSlotWait(Duration.ofMillis(2)).withMaxBatchTokens(48));
			AtomicBoolean stop = new AtomicBoolean();
			AtomicInteger answered = new AtomicInteger();
			Map<String, Integer> outcomes = new ConcurrentHashMap<>();
			List<Thread> callers = new CopyOnWriteArrayList<>();
			for (int c = 0; c < 12; c++) {
				List<String> texts = (c % 3 == 0) ? MiniLm.TEXTS : List.of(MiniLm.TEXTS.get(c % MiniLm.TEXTS.size()));
				Thread caller = new Thread(() -> {
					while (!stop.get()) {
						Thread.interrupted();
						try {
							float[][] vectors = model.embed(texts);
							assertThat(vectors.length).isEqualTo(texts.size());
							assertThat(vectors[vectors.length - 1]).hasSize(MiniLm.DIMENSIONS);
							answered.incrementAndGet();
						}
						catch (UformException ex) {
							outcomes.merge(ex.status().name(), 1, Integer::sum);
							if (ex.status() == UformException.Status.FREED) {
								return;
							}
						}
						catch (IllegalStateException ex) {
							outcomes.merge("closed", 1, Integer::sum);
						}
						catch (RuntimeException | Error ex) {
							outcomes.merge("unexpected: " + ex, 1, Integer::sum);
						}
					}
				}, "caller-" + c);
				caller.start();
				callers.add(caller);
			}
			long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
			while (System.nanoTime() < until) {
				callers.get(ThreadLocalRandom.current().nextInt(callers.size())).interrupt();
				Thread.sleep(ThreadLocalRandom.current().nextInt(3));
			}
			if (round % 2 == 0) {
				// Free under load (the misuse a model must survive with the executor's own error).
				executor.free();
				stop.set(true);
				joinAll(callers);
				model.close();
			}
			else {
				stop.set(true);
				joinAll(callers);
				// Nothing is stranded: the spares run out, and the model still serves.
				ConcurrentCallersTest.settle(executor);
				assertThat(model.embed("GPU")).hasSize(MiniLm.DIMENSIONS);
				model.close();
				executor.free();
			}
			assertThat(answered.get()).as("round %d", round).isPositive();
			assertThat(outcomes.keySet()).as("round %d: %s", round, outcomes)
				.isSubsetOf("TIMEOUT", "INTERRUPTED", "FREED");
		}
	}

	private static void joinAll(List<Thread> threads) throws InterruptedException {
		for (Thread thread : threads) {
			thread.join(Duration.ofSeconds(30).toMillis());
			assertThat(thread.isAlive()).as("%s hangs: a request was stranded", thread.getName()).isFalse();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** One request on its own thread, and how it ended. */
	private static final class Caller {

		final Thread thread;

		volatile float[][] answer;

		volatile Throwable failure;

		private Caller(TextEmbeddingModel model, List<String> texts) {
			this.thread = new Thread(() -> {
				try {
					this.answer = model.embed(texts);
				}
				catch (RuntimeException ex) {
					this.failure = ex;
				}
			}, "caller");
		}

		static Caller start(TextEmbeddingModel model, List<String> texts) {
			Caller caller = new Caller(model, texts);
			caller.thread.start();
			return caller;
		}

		void join() throws InterruptedException {
			this.thread.join();
		}

		float[][] vectors() throws InterruptedException {
			join();
			assertThat(this.failure).isNull();
			return this.answer;
		}

		/** Until the request waits for its answer (parked in it), or ended. */
		void awaitWaitingOrDone() throws InterruptedException {
			while (this.thread.getState() != Thread.State.WAITING && this.thread.getState() != Thread.State.TERMINATED) {
				Thread.sleep(1);
			}
		}
	}
}
