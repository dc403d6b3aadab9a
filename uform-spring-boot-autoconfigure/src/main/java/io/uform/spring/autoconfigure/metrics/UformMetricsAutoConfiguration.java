package io.uform.spring.autoconfigure.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.uform.Executor;
import io.uform.Mesh;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

/**
 * Auto-configuration of Micrometer binders for uform, where Micrometer is on the class path and the
 * application has a {@link MeterRegistry} (as Boot's own JVM binders are configured):
 * <ul>
 * <li>{@code uformExecutorMetrics}: every {@link Executor} singleton bean, the
 * {@code uformVramExecutor} (not a default candidate) and your own included, through
 * {@link UformExecutorMetrics} tagged with its bean name;</li>
 * <li>{@code uformGpuMetrics}: the GPUs this process sees, through {@link UformGpuMetrics};</li>
 * <li>{@code uformMeshMetrics}: every {@link Mesh} bean, through {@link UformMeshMetrics}.</li>
 * </ul>
 * Boot's {@code MeterRegistryPostProcessor} binds these to the registry once every singleton exists,
 * so the executors and the mesh are looked up then, whatever order beans were made in. Each backs
 * off when you define a bean of the same name.
 */
@AutoConfiguration(after = UformAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass({ MeterBinder.class, Executor.class })
@ConditionalOnBean(MeterRegistry.class)
public final class UformMetricsAutoConfiguration {

	/** Name of the binder of every executor bean. */
	public static final String EXECUTOR_METRICS_BEAN_NAME = "uformExecutorMetrics";

	/** Name of the binder of the GPUs. */
	public static final String GPU_METRICS_BEAN_NAME = "uformGpuMetrics";

	/** Name of the binder of every mesh bean. */
	public static final String MESH_METRICS_BEAN_NAME = "uformMeshMetrics";

	@Bean(name = EXECUTOR_METRICS_BEAN_NAME)
	@ConditionalOnMissingBean(name = EXECUTOR_METRICS_BEAN_NAME)
	BeansMetrics<Executor> uformExecutorMetrics(ListableBeanFactory beans) {
		return new BeansMetrics<>(beans, Executor.class, UformExecutorMetrics::new);
	}

	@Bean(name = GPU_METRICS_BEAN_NAME)
	@ConditionalOnMissingBean(name = GPU_METRICS_BEAN_NAME)
	UformGpuMetrics uformGpuMetrics() {
		return new UformGpuMetrics();
	}

	@Bean(name = MESH_METRICS_BEAN_NAME)
	@ConditionalOnMissingBean(name = MESH_METRICS_BEAN_NAME)
	BeansMetrics<Mesh> uformMeshMetrics(ListableBeanFactory beans) {
		return new BeansMetrics<>(beans, Mesh.class, UformMeshMetrics::new);
	}

	/**
	 * Binds every singleton bean of a type under its bean name, and removes the meters it registered
	 * when the context closes.
	 *
	 * <p>The beans are looked up when bound, not when made: by then every singleton exists.
	 * {@code getBeansOfType} also finds beans declared with {@code defaultCandidate = false}, which
	 * injection by type would skip. A registry that outlives the context (shared by contexts made one
	 * after another, a static one in tests) would otherwise keep meters of freed beans, and a later
	 * context's binding of the same ids would get those back instead of meters of its own beans.
	 * @param <T> the type of the beans measured
	 */
	static final class BeansMetrics<T> implements MeterBinder, DisposableBean {

		private final ListableBeanFactory beans;

		private final Class<T> type;

		private final BiFunction<T, String, MeterBinder> binder;

		private final List<Registered> registered = new ArrayList<>();

		BeansMetrics(ListableBeanFactory beans, Class<T> type, BiFunction<T, String, MeterBinder> binder) {
			this.beans = beans;
			this.type = type;
			this.binder = binder;
		}

		@Override
		public void bindTo(MeterRegistry registry) {
			Set<Meter> before = Collections.newSetFromMap(new IdentityHashMap<>());
			before.addAll(registry.getMeters());
			this.beans.getBeansOfType(this.type, false, true)
				.forEach((name, bean) -> this.binder.apply(bean, name).bindTo(registry));
			List<Meter> added = new ArrayList<>();
			for (Meter meter : registry.getMeters()) {
				// Only the names these binders register: another thread may register meters meanwhile.
				String name = meter.getId().getName();
				if (!before.contains(meter) && (name.startsWith("uform.") || name.startsWith("executor"))) {
					added.add(meter);
				}
			}
			synchronized (this.registered) {
				this.registered.add(new Registered(registry, added));
			}
		}

		@Override
		public void destroy() {
			synchronized (this.registered) {
				for (Registered binding : this.registered) {
					binding.meters().forEach(binding.registry()::remove);
				}
				this.registered.clear();
			}
		}

		private record Registered(MeterRegistry registry, List<Meter> meters) {
		}
	}
}
