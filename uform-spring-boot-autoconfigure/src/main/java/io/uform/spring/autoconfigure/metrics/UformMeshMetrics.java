package io.uform.spring.autoconfigure.metrics;

import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshLiveness;
import io.uform.UformException;

/**
 * Binds a {@link Mesh} to a registry, tagged {@code name} (the mesh's bean name): its processes, this
 * process's index, how long {@link Mesh#bootstrap} took (mostly the wait for the last process) and
 * the deaths of the run's processes this process learned of (0, then 1: the mesh breaks at the first,
 * so a sum over the run's processes says how many saw it). The table of {@code docs/actuator.md}
 * (Metrics, Mesh) names each meter.
 *
 * <p>The gauges hold the mesh weakly and capture nothing else of it. After {@link Mesh#free()} the
 * mesh no longer describes itself, so {@code hosts} and {@code index} read {@code NaN}; the bootstrap
 * time stays, a fact about the join.
 */
public final class UformMeshMetrics implements MeterBinder {

	private final Mesh mesh;

	private final String name;

	/**
	 * Binds a mesh under a name.
	 * @param mesh the mesh
	 * @param name the {@code name} tag, the mesh's bean name in Spring
	 */
	public UformMeshMetrics(Mesh mesh, String name) {
		this.mesh = mesh;
		this.name = name;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Tags tags = Tags.of("name", this.name);
		Gauge.builder("uform.mesh.hosts", this.mesh, (mesh) -> described(mesh, MeshDescription::hostDomainCount))
			.tags(tags)
			.description("Processes in the mesh's run, one per host")
			.register(registry);
		Gauge.builder("uform.mesh.index", this.mesh, (mesh) -> described(mesh, MeshDescription::hostDomainIndex))
			.tags(tags)
			.description("This process's index in the run, from 0")
			.register(registry);
		TimeGauge
			.builder("uform.mesh.bootstrap", this.mesh, TimeUnit.NANOSECONDS,
					(mesh) -> mesh.bootstrapDuration().toNanos())
			.tags(tags)
			.description("Time this process spent joining the mesh, the wait for the other processes included")
			.register(registry);
		FunctionCounter.builder("uform.mesh.deaths", this.mesh, UformMeshMetrics::deaths)
			.tags(tags)
			.description("Deaths of the run's processes this process learned of (the mesh breaks at the first)")
			.register(registry);
	}

	private static double deaths(Mesh mesh) {
		MeshLiveness liveness = mesh.liveness();
		return (liveness.deadIndex() != null) ? 1 : 0;
	}

	private static double described(Mesh mesh, ToIntFunction<MeshDescription> field) {
		try {
			return field.applyAsInt(mesh.describe());
		}
		catch (UformException ex) {
			// Freed: it no longer has a place in a run.
			return Double.NaN;
		}
	}
}
