package io.uform.spring.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

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
	ExecutorBeansMetrics uformExecutorMetrics(ListableBeanFactory beans) {
		return new ExecutorBeansMetrics(beans);
	}

	@Bean(name = GPU_METRICS_BEAN_NAME)
	@ConditionalOnMissingBean(name = GPU_METRICS_BEAN_NAME)
	UformGpuMetrics uformGpuMetrics() {
		return new UformGpuMetrics();
	}

	@Bean(name = MESH_METRICS_BEAN_NAME)
	@ConditionalOnMissingBean(name = MESH_METRICS_BEAN_NAME)
	MeshBeansMetrics uformMeshMetrics(ListableBeanFactory beans) {
		return new MeshBeansMetrics(beans);
	}

	/**
	 * Binds every {@link Executor} singleton bean under its bean name. Looked up when bound, not when
	 * made: by then every singleton exists. {@code getBeansOfType} also finds beans declared with
	 * {@code defaultCandidate = false}, which injection by type would skip.
	 */
	static final class ExecutorBeansMetrics implements MeterBinder {

		private final ListableBeanFactory beans;

		ExecutorBeansMetrics(ListableBeanFactory beans) {
			this.beans = beans;
		}

		@Override
		public void bindTo(MeterRegistry registry) {
			this.beans.getBeansOfType(Executor.class, false, true)
				.forEach((name, executor) -> new UformExecutorMetrics(executor, name).bindTo(registry));
		}
	}

	/** Binds every {@link Mesh} singleton bean under its bean name, looked up when bound. */
	static final class MeshBeansMetrics implements MeterBinder {

		private final ListableBeanFactory beans;

		MeshBeansMetrics(ListableBeanFactory beans) {
			this.beans = beans;
		}

		@Override
		public void bindTo(MeterRegistry registry) {
			this.beans.getBeansOfType(Mesh.class, false, true)
				.forEach((name, mesh) -> new UformMeshMetrics(mesh, name).bindTo(registry));
		}
	}
}
