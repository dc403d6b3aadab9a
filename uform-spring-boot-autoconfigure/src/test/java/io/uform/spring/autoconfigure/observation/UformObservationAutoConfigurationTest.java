package io.uform.spring.autoconfigure.observation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.Executor;
import io.uform.ExecutorHooks;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.UformExecutorHooks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hooks this module gives executor beans, with a real {@link ObservationRegistry} whose handler
 * records what it is told: each deferred call is an observation {@code uform.deferred}, a child of the
 * submitting thread's current one, started at submission and stopped when its future completes, with
 * the executor's bean name and the outcome; the submitting thread's observation is current inside the
 * call (through context-propagation) and, where the property asks, inside every part of a fork; and
 * without a registry or the library nothing is made.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformObservationAutoConfigurationTest {

	private static final String RAM = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformObservationAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=3", "uform.ram.deferred-limit=4", "uform.vram.enabled=false");

	/** Records the contexts it is told about, in order. */
	static final class Recording implements ObservationHandler<Observation.Context> {

		final List<Observation.Context> started = new CopyOnWriteArrayList<>();

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		final List<String> scopesOpenedOn = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(Observation.Context context) {
			this.started.add(context);
		}

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		@Override
		public void onScopeOpened(Observation.Context context) {
			if (context instanceof DeferredCallObservationContext) {
				this.scopesOpenedOn.add(Thread.currentThread().getName());
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

		List<DeferredCallObservationContext> stoppedCalls(int expected) throws InterruptedException {
			// The observation stops as the future completes, on uform's completion thread: right after
			// whoever waited on the future saw it done.
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (calls(this.stopped).size() < expected && System.nanoTime() < deadline) {
				Thread.sleep(5);
			}
			return calls(this.stopped);
		}

		static List<DeferredCallObservationContext> calls(List<Observation.Context> contexts) {
			return contexts.stream()
				.filter(DeferredCallObservationContext.class::isInstance)
				.map(DeferredCallObservationContext.class::cast)
				.toList();
		}
	}

	private static ObservationRegistry registry(Recording recording) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(recording);
		return registry;
	}

	@Test
	void eachDeferredCallIsAChildObservationOfTheSubmittersNamedAfterTheExecutorBean() throws Exception {
		Recording recording = new Recording();
		ObservationRegistry registry = registry(recording);
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry).run((context) -> {
			Executor executor = context.getBean(RAM, Executor.class);
			Observation request = Observation.start("http.server.requests", registry);
			Observation[] insideCall = new Observation[1];
			try (Observation.Scope scope = request.openScope()) {
				executor.defer(() -> {
					insideCall[0] = registry.getCurrentObservation();
					return "embedded";
				}).get(10, TimeUnit.SECONDS);
			}
			request.stop();
			List<DeferredCallObservationContext> calls = recording.stoppedCalls(1);
			assertThat(calls).hasSize(1);
			DeferredCallObservationContext call = calls.get(0);
			assertThat(call.getName()).isEqualTo("uform.deferred");
			assertThat(call.getContextualName()).isEqualTo("deferred " + RAM);
			assertThat(call.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("name", RAM),
					KeyValue.of("outcome", "SUCCESS"), KeyValue.of("exception", "none"));
			assertThat(call.getParentObservation()).isSameAs(request);
			// Inside the call its own observation is current, in the request's: spans it makes are its children.
			assertThat(insideCall[0]).isNotNull();
			assertThat(insideCall[0].getContext()).isSameAs(call);
			assertThat(recording.scopesOpenedOn).singleElement().asString().startsWith("uform-");
		});
	}

	@Test
	void aCallThatThrowsAnErrorStopsItsObservationWithTheError() throws Exception {
		Recording recording = new Recording();
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry(recording)).run((context) -> {
			Executor executor = context.getBean(RAM, Executor.class);
			OutOfMemoryError error = new OutOfMemoryError("activations");
			CompletableFuture<Object> future = executor.defer(() -> {
				throw error;
			});
			assertThat(future).failsWithin(java.time.Duration.ofSeconds(10));
			DeferredCallObservationContext call = recording.stoppedCalls(1).get(0);
			assertThat(call.getError()).isSameAs(error);
			assertThat(call.getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "ERROR"),
					KeyValue.of("exception", "OutOfMemoryError"));
		});
	}

	@Test
	void aCallCancelledBeforeItStartsStopsAsCancelledWithoutEverOpeningAScope() throws Exception {
		Recording recording = new Recording();
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry(recording)).run((context) -> {
			Executor executor = context.getBean(RAM, Executor.class);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Boolean> blocker = executor.defer(() -> release.await(10, TimeUnit.SECONDS));
			CompletableFuture<String> queued = executor.defer(() -> "never");
			assertThat(queued.cancel(false)).isTrue();
			release.countDown();
			blocker.get(10, TimeUnit.SECONDS);
			List<DeferredCallObservationContext> calls = recording.stoppedCalls(2);
			assertThat(calls).hasSize(2);
			assertThat(calls).filteredOn(DeferredCallObservationContext::isCancelled).singleElement()
				.satisfies((call) -> assertThat(call.getLowCardinalityKeyValues())
					.contains(KeyValue.of("outcome", "CANCELLED")));
			assertThat(recording.scopesOpenedOn).hasSize(1);
		});
	}

	@Test
	void aConventionBeanReplacesTheDefault() throws Exception {
		Recording recording = new Recording();
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry(recording))
			.withBean(DeferredCallObservationConvention.class, () -> new DefaultDeferredCallObservationConvention() {

				@Override
				public String getName() {
					return "model.generate";
				}

				@Override
				public KeyValues getLowCardinalityKeyValues(DeferredCallObservationContext context) {
					return super.getLowCardinalityKeyValues(context).and("model", "minilm");
				}
			})
			.run((context) -> {
				context.getBean(RAM, Executor.class).defer(() -> 1).get(10, TimeUnit.SECONDS);
				DeferredCallObservationContext call = recording.stoppedCalls(1).get(0);
				assertThat(call.getName()).isEqualTo("model.generate");
				assertThat(call.getLowCardinalityKeyValues()).contains(KeyValue.of("model", "minilm"),
						KeyValue.of("name", RAM));
			});
	}

	@Test
	void forkBodiesSeeTheForkingThreadsObservationOnlyWhenThePropertyAsksAndKeepNothingAfter() {
		Recording recording = new Recording();
		ObservationRegistry registry = registry(recording);
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("uform.ram.fork-context-propagation=true")
			.run((context) -> {
				Executor executor = context.getBean(RAM, Executor.class);
				int n = 300;
				AtomicReferenceArray<Observation> seen = new AtomicReferenceArray<>(n);
				Observation request = Observation.start("http.server.requests", registry);
				try (Observation.Scope scope = request.openScope()) {
					executor.forN(n, (index, thread, colocation) -> seen.set(index, registry.getCurrentObservation()));
					AtomicReferenceArray<Observation> perThread = new AtomicReferenceArray<>(executor.threads());
					executor.forThreads((thread, colocation) -> perThread.set(thread, registry.getCurrentObservation()));
					for (int i = 0; i < n; i++) {
						assertThat(seen.get(i)).as("index %d", i).isSameAs(request);
					}
					for (int t = 0; t < perThread.length(); t++) {
						assertThat(perThread.get(t)).as("thread %d", t).isSameAs(request);
					}
				}
				request.stop();
				// A fork with no observation on the forking thread: the workers hold none from before.
				AtomicReferenceArray<String> after = new AtomicReferenceArray<>(executor.threads());
				executor.forThreads((thread, colocation) -> after.set(thread, String.valueOf(registry.getCurrentObservation())));
				for (int t = 0; t < after.length(); t++) {
					assertThat(after.get(t)).as("thread %d", t).isEqualTo("null");
				}
			});
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry).run((context) -> {
			Executor executor = context.getBean(RAM, Executor.class);
			Observation request = Observation.start("http.server.requests", registry);
			AtomicReferenceArray<Observation> perThread = new AtomicReferenceArray<>(executor.threads());
			try (Observation.Scope scope = request.openScope()) {
				executor.forThreads((thread, colocation) -> perThread.set(thread, registry.getCurrentObservation()));
			}
			request.stop();
			assertThat(perThread.get(0)).as("the forking thread").isSameAs(request);
			assertThat(perThread.get(1)).as("a worker, off by default").isNull();
		});
	}

	@Test
	void theVramExecutorsDeviceTasksSeeTheForkingThreadsObservationWithItsOwnProperty() {
		ObservationRegistry registry = registry(new Recording());
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("uform.vram.enabled=true", "uform.vram.devices=0,1", "uform.vram.fork-context-propagation=true")
			.run((context) -> {
				Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
				AtomicReferenceArray<Observation> seen = new AtomicReferenceArray<>(vram.lanes().size());
				Observation request = Observation.start("http.server.requests", registry);
				try (Observation.Scope scope = request.openScope()) {
					vram.forDevices((lane) -> seen.set(lane.index(), registry.getCurrentObservation()));
				}
				request.stop();
				assertThat(seen.length()).isEqualTo(2);
				assertThat(seen.get(1)).as("device 1, on the executor's own thread").isSameAs(request);
			});
	}

	@Test
	void withoutARegistryDeferredCallsStillRunInTheSubmittersContext() {
		ObservationRegistry unmanaged = registry(new Recording());
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(UformExecutorHooks.class).doesNotHaveBean(ObservationRegistry.class);
			Observation request = Observation.start("http.server.requests", unmanaged);
			Observation[] inside = new Observation[1];
			try (Observation.Scope scope = request.openScope()) {
				context.getBean(RAM, Executor.class)
					.defer(() -> inside[0] = unmanaged.getCurrentObservation())
					.get(10, TimeUnit.SECONDS);
			}
			request.stop();
			assertThat(inside[0]).isSameAs(request);
		});
	}

	@Test
	void aRegistryWithoutAHandlerAndNoContextToCarryLeavesEachCallUndecorated() {
		try (Executor executor = Executor.forRam(io.uform.ExecutorForRamConfig.defaults().withThreads(1))) {
			ObservationRegistry noHandler = ObservationRegistry.create();
			assertThat(new ObservationExecutorHooks(noHandler, null, false).hooksFor(RAM, false)
				.deferredCalls()
				.decorate(executor)).as("no handler, no context propagation").isNull();
			io.uform.DeferredCallDecorator.Decoration observed = new ObservationExecutorHooks(registry(new Recording()), null,
					false)
				.hooksFor(RAM, false)
				.deferredCalls()
				.decorate(executor);
			assertThat(observed).as("a handler").isNotNull();
			observed.completed(null);
			assertThat(new ObservationExecutorHooks(noHandler, null, false).hooksFor(RAM, false).forks())
				.as("forks without the property").isNull();
		}
	}

	@Test
	void withoutARegistryOrTheLibraryNoHooksAreMade() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(ContextSnapshotFactory.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(UformExecutorHooks.class);
			assertThat(context.getBean(RAM, Executor.class).defer(() -> 7).get(10, TimeUnit.SECONDS)).isEqualTo(7);
		});
	}

	@Test
	void forkContextPropagationWithoutTheLibraryFailsStartupNamingTheProperty() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(ContextSnapshotFactory.class))
			.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withPropertyValues("uform.ram.fork-context-propagation=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("uform.ram.fork-context-propagation")
				.hasMessageContaining("io.micrometer:context-propagation"));
	}

	@Test
	void aUserHooksBeanWins() {
		this.contextRunner.withBean(UformExecutorHooks.class, () -> (name, forks) -> ExecutorHooks.NONE).run((context) -> {
			assertThat(context).hasSingleBean(UformExecutorHooks.class);
			assertThat(context.getBean(UformExecutorHooks.class)).isNotInstanceOf(ObservationExecutorHooks.class);
		});
	}
}
