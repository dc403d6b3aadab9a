package io.uform.spring.autoconfigure.observation;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;

import io.uform.ExecutorHooks;
import io.uform.ForkDecorator;

/**
 * Captures every thread-local value registered with Micrometer's {@link ContextRegistry} (the current
 * observation, and through it the trace and the MDC entries the tracer keeps; Spring Security's
 * context; any accessor an application registers) and restores them on another thread, as Spring's
 * {@code ContextPropagatingTaskDecorator} does for task executors. A restore clears what the
 * snapshot lacks, so the work sees the capturing thread's context and nothing the executor's thread
 * kept. Used for forks as it is, and by {@link ObservedDeferredCalls} for deferred calls; only loaded
 * where {@code io.micrometer:context-propagation} is on the class path.
 */
final class ContextPropagation implements ForkDecorator {

	private final ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder()
		.contextRegistry(ContextRegistry.getInstance())
		.clearMissing(true)
		.build();

	@Override
	public Context capture() {
		ContextSnapshot snapshot = this.snapshots.captureAll();
		return () -> {
			ContextSnapshot.Scope scope = snapshot.setThreadLocals();
			return (ExecutorHooks.Scope) scope::close;
		};
	}
}
