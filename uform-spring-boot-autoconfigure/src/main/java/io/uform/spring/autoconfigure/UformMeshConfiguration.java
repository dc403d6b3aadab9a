package io.uform.spring.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import io.uform.Executor;
import io.uform.Mesh;
import io.uform.MeshOptions;
import io.uform.UformException;

/**
 * The mesh's configuration, imported by {@link UformAutoConfiguration}: where {@link OnMeshCondition}
 * matches, its {@link UformMeshSources} and {@link MeshOptions} (then the customizer beans); with any
 * {@code MeshOptions} bean, the application's included, the {@code uformMesh} bean on the VRAM executor
 * and its {@link UformMeshLifecycle}.
 */
@Configuration(proxyBeanMethods = false)
class UformMeshConfiguration {

	private final ConfigFieldBlame<MeshOptions, MeshOptionsCustomizer> blame;

	private final Environment environment;

	UformMeshConfiguration(Environment environment, ListableBeanFactory beans) {
		this.blame = new ConfigFieldBlame<>("uform.mesh", MeshOptions.class, MeshOptionsCustomizer.class,
				MeshOptionsCustomizer::customize, environment, beans);
		this.environment = environment;
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnMeshCondition.class)
	UformMeshSources uformMeshSources(UformProperties properties) {
		return UformMeshSources.of(properties, this.environment);
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnMeshCondition.class)
	MeshOptions uformMeshOptions(UformMeshSources sources, ObjectProvider<MeshOptionsCustomizer> customizers) {
		return this.blame.customize(sources.options(), customizers);
	}

	// Joins when the bean is made, so before the web server starts (it starts once every singleton is
	// made) and before any bean that takes the mesh; a refused uform.mesh.* value is reported naming
	// the property, before the application takes traffic. Why not in SmartLifecycle.start: see
	// UformMeshLifecycle.
	@Bean(name = UformAutoConfiguration.MESH_BEAN_NAME, destroyMethod = "free")
	@ConditionalOnMissingBean(name = UformAutoConfiguration.MESH_BEAN_NAME)
	@ConditionalOnBean(MeshOptions.class)
	Mesh uformMesh(MeshOptions options,
			@Qualifier(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> vramExecutor,
			ObjectProvider<UformMeshSources> sources) {
		Executor executor = vramExecutor.getIfAvailable();
		if (executor == null) {
			throw new UformException(UformException.Status.NO_DEVICE, "A mesh joins the GPUs of the VRAM executor bean '"
					+ UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME + "', and none was made: "
					+ OnVramEnabledCondition.Setting.of(this.environment).whyNoExecutor());
		}
		long start = System.nanoTime();
		UformMeshSources madeFrom = sources.getIfAvailable();
		try {
			Mesh mesh = Mesh.bootstrap(executor, options);
			UformStartupLog.made(UformAutoConfiguration.MESH_BEAN_NAME, mesh, (System.nanoTime() - start) / 1_000_000,
					(madeFrom != null) ? madeFrom.origins(options) : null);
			return mesh;
		}
		catch (UformException ex) {
			throw this.blame.blame(UformAutoConfiguration.MESH_BEAN_NAME, ex, options);
		}
	}

	@Bean
	@ConditionalOnBean(name = UformAutoConfiguration.MESH_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformMeshLifecycle")
	UformMeshLifecycle uformMeshLifecycle(@Qualifier(UformAutoConfiguration.MESH_BEAN_NAME) Mesh mesh) {
		return new UformMeshLifecycle(UformAutoConfiguration.MESH_BEAN_NAME, mesh);
	}
}
