package io.uform.spring.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.MeshOptions;

/**
 * Auto-configuration for uform executors and the mesh.
 *
 * <ul>
 * <li>{@code uform.ram.*} becomes an {@link ExecutorForRamConfig} bean, and that config the
 * {@code uformRamExecutor} bean, the default candidate for injecting an {@link Executor}.</li>
 * <li>{@code uform.vram.*} becomes an {@link ExecutorForVramConfig} and the {@code uformVramExecutor}
 * bean, made where {@code uform.vram.enabled} says ({@code auto}: only where this process sees a GPU).
 * It is not a default candidate: ask for it with {@code @Qualifier("uformVramExecutor")}.</li>
 * <li>{@code uform.mesh.*} becomes a {@link MeshOptions} bean when {@code uform.mesh.host-domain-count}
 * is set, or {@code uform.mesh.directory} is set and the launcher ({@code uform.mesh.launcher}: Slurm,
 * a Kubernetes Indexed Job, {@code RANK}/{@code WORLD_SIZE}) gives the count; what the properties leave
 * unset comes from the launcher's variables ({@link UformMeshSources}). The {@code uformMesh} bean
 * borrows the VRAM executor.</li>
 * </ul>
 * The config beans and the beans made from them are separate so that a user can replace either; each
 * backs off when the user defines their own. Customizer beans adjust a config, in {@code @Order}, before
 * its executor or mesh is made. An executor bean is made with the hooks of the {@link UformExecutorHooks}
 * bean where there is one (observation and context propagation around its deferred calls and forks,
 * from {@code UformObservationAutoConfiguration}). The beans are declared in
 * {@link UformExecutorConfigurations} and {@link UformMeshConfiguration}, as Boot's task execution
 * declares its executor in {@code TaskExecutorConfigurations}.
 *
 * <h2>Lifecycle</h2>
 * Each executor bean has an {@link UformExecutorLifecycle}, which shuts it down with the context; the mesh
 * joins when its bean is made and an {@link UformMeshLifecycle} leaves it first. The phases are in
 * {@code docs/configuration.md}.
 */
@AutoConfiguration
@ConditionalOnClass(Executor.class)
@EnableConfigurationProperties(UformProperties.class)
@Import({ UformExecutorConfigurations.RamExecutorConfiguration.class,
		UformExecutorConfigurations.VramExecutorConfiguration.class,
		UformExecutorConfigurations.ExecutorLifecycleConfiguration.class, UformMeshConfiguration.class })
public final class UformAutoConfiguration {

	/** Name of the RAM executor bean. */
	public static final String RAM_EXECUTOR_BEAN_NAME = "uformRamExecutor";

	/** Name of the VRAM executor bean. */
	public static final String VRAM_EXECUTOR_BEAN_NAME = "uformVramExecutor";

	/** Name of the mesh bean. */
	public static final String MESH_BEAN_NAME = "uformMesh";

	/** The log the beans declared here write to: what was made, and configs after their customizers. */
	static final Log logger = LogFactory.getLog(UformAutoConfiguration.class);

	@Bean
	static UformVramExecutorReplacement uformVramExecutorReplacement() {
		return new UformVramExecutorReplacement();
	}
}
