package io.uform.spring.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.Mesh;
import io.uform.MeshOptions;
import io.uform.UformException;

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
 * its executor or mesh is made.
 *
 * <h2>Lifecycle</h2>
 * Executors run from the moment their bean is made. After the web server's graceful shutdown an
 * {@link UformExecutorLifecycle} makes each refuse new deferred calls and waits for the submitted ones;
 * an {@link UformExecutorDestruction} frees each when the context destroys it, after the context's
 * {@code java.util.concurrent.Executor} beans (whose {@code @Async} work may still fork), within
 * {@code uform.shutdown.await-termination-period}. The mesh joins when its bean is made, which is
 * before the web server starts, and an {@link UformMeshLifecycle} leaves it first when the context
 * stops. Each bean also names {@code free} as its destroy method; a second free does nothing.
 */
@AutoConfiguration
@ConditionalOnClass(Executor.class)
@EnableConfigurationProperties(UformProperties.class)
public final class UformAutoConfiguration {

	/** Name of the RAM executor bean. */
	public static final String RAM_EXECUTOR_BEAN_NAME = "uformRamExecutor";

	/** Name of the VRAM executor bean. */
	public static final String VRAM_EXECUTOR_BEAN_NAME = "uformVramExecutor";

	/** Name of the mesh bean. */
	public static final String MESH_BEAN_NAME = "uformMesh";

	private static final Log logger = LogFactory.getLog(UformAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "uform.ram.enabled", matchIfMissing = true)
	ExecutorForRamConfig uformRamExecutorConfig(UformProperties properties,
			ObjectProvider<ExecutorForRamConfigCustomizer> customizers, ListableBeanFactory beans) {
		return customize("uformRamExecutorConfig", ramConfig(properties), ExecutorForRamConfigCustomizer.class,
				customizers, beans, ExecutorForRamConfigCustomizer::customize);
	}

	/**
	 * The RAM executor's config as {@code uform.ram.*} alone makes it, before any customizer: every
	 * field through its {@code with} method, an unset property leaving the field absent.
	 */
	static ExecutorForRamConfig ramConfig(UformProperties properties) {
		UformProperties.Ram ram = properties.getRam();
		return ExecutorForRamConfig.defaults()
			.withMemoryDomains(ram.getMemoryDomains())
			.withCpuClass(ram.getCpuClass())
			.withDeferredLimit(ram.getDeferredLimit())
			.withThreads(ram.getThreads());
	}

	// destroyMethod stays as the fallback; UformExecutorDestruction frees the executor just before it
	// within the shutdown period, and then it returns at once.
	@Bean(name = RAM_EXECUTOR_BEAN_NAME, destroyMethod = "free")
	@Conditional(OnNoUserRamExecutorCondition.class)
	@ConditionalOnBooleanProperty(name = "uform.ram.enabled", matchIfMissing = true)
	Executor uformRamExecutor(ExecutorForRamConfig config) {
		return UformStartupLog.made(RAM_EXECUTOR_BEAN_NAME, Executor.forRam(config));
	}

	@Bean
	@ConditionalOnBean(name = RAM_EXECUTOR_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformRamExecutorLifecycle")
	UformExecutorLifecycle uformRamExecutorLifecycle(@Qualifier(RAM_EXECUTOR_BEAN_NAME) Executor executor,
			UformProperties properties, Environment environment,
			ObjectProvider<UformExecutorDestruction> destruction) {
		return new UformExecutorLifecycle(RAM_EXECUTOR_BEAN_NAME, executor, properties.getShutdown(),
				shutdownPhaseTimeout(environment), freedWhenDestroyed(destruction, RAM_EXECUTOR_BEAN_NAME));
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnVramEnabledCondition.class)
	ExecutorForVramConfig uformVramExecutorConfig(UformProperties properties,
			ObjectProvider<ExecutorForVramConfigCustomizer> customizers, ListableBeanFactory beans) {
		return customize("uformVramExecutorConfig", vramConfig(properties), ExecutorForVramConfigCustomizer.class,
				customizers, beans, ExecutorForVramConfigCustomizer::customize);
	}

	/** The VRAM executor's config as {@code uform.vram.*} alone makes it, built as {@link #ramConfig} is. */
	static ExecutorForVramConfig vramConfig(UformProperties properties) {
		UformProperties.Vram vram = properties.getVram();
		DataSize scratchLimit = vram.getScratchLimit();
		return ExecutorForVramConfig.defaults()
			.withMemoryDomains(vram.getMemoryDomains())
			.withCpuClass(vram.getCpuClass())
			.withDeferredLimit(vram.getDeferredLimit())
			.withDevices(vram.getDevices())
			.withGpuClass(vram.getGpuClass())
			.withScratchLimit((scratchLimit != null) ? scratchLimit.toBytes() : null);
	}

	// Not a default candidate: injecting an io.uform.Executor by type keeps meaning the RAM executor;
	// ask for this one by name (@Qualifier("uformVramExecutor")).
	@Bean(name = VRAM_EXECUTOR_BEAN_NAME, destroyMethod = "free", defaultCandidate = false)
	@ConditionalOnMissingBean(name = VRAM_EXECUTOR_BEAN_NAME)
	@Conditional(OnVramEnabledCondition.class)
	Executor uformVramExecutor(ExecutorForVramConfig config) {
		return UformStartupLog.made(VRAM_EXECUTOR_BEAN_NAME, Executor.forVram(config));
	}

	@Bean
	@ConditionalOnBean(name = VRAM_EXECUTOR_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformVramExecutorLifecycle")
	UformExecutorLifecycle uformVramExecutorLifecycle(@Qualifier(VRAM_EXECUTOR_BEAN_NAME) Executor executor,
			UformProperties properties, Environment environment,
			ObjectProvider<UformExecutorDestruction> destruction) {
		return new UformExecutorLifecycle(VRAM_EXECUTOR_BEAN_NAME, executor, properties.getShutdown(),
				shutdownPhaseTimeout(environment), freedWhenDestroyed(destruction, VRAM_EXECUTOR_BEAN_NAME));
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnMeshCondition.class)
	UformMeshSources uformMeshSources(UformProperties properties, Environment environment) {
		return UformMeshSources.of(properties, environment);
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnMeshCondition.class)
	MeshOptions uformMeshOptions(UformMeshSources sources, ObjectProvider<MeshOptionsCustomizer> customizers,
			ListableBeanFactory beans) {
		return customize("uformMeshOptions", sources.options(), MeshOptionsCustomizer.class, customizers, beans,
				MeshOptionsCustomizer::customize);
	}

	/**
	 * The mesh options as {@code uform.mesh.*} alone makes them, before the launcher's variables fill
	 * in what they leave unset ({@link UformMeshSources}) and before any customizer.
	 */
	static MeshOptions meshOptions(UformProperties properties) {
		UformProperties.Mesh mesh = properties.getMesh();
		// A blank directory (UFORM_MESH_DIRECTORY= in a manifest whose value did not arrive) is unset, not
		// Path.of(""), the working directory, where each host would wait alone for the whole timeout.
		String directory = mesh.getDirectory();
		return new MeshOptions(mesh.getHostDomainIndex(), mesh.getHostDomainCount(), mesh.getGpusPerMultimemDomain(),
				StringUtils.hasText(directory) ? Path.of(directory) : null, mesh.getJob(), mesh.getTimeout());
	}

	// Joins when the bean is made, so before the web server starts (it starts once every singleton is
	// made) and before any bean that takes the mesh; a join failure is a bean creation failure that the
	// failure analyzer can attribute to uform.mesh.*. Why not in SmartLifecycle.start: see
	// UformMeshLifecycle.
	@Bean(name = MESH_BEAN_NAME, destroyMethod = "free")
	@ConditionalOnMissingBean(name = MESH_BEAN_NAME)
	@ConditionalOnBean(MeshOptions.class)
	Mesh uformMesh(MeshOptions options, @Qualifier(VRAM_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> vramExecutor,
			ObjectProvider<UformMeshSources> sources, Environment environment) {
		Executor executor = vramExecutor.getIfAvailable();
		if (executor == null) {
			throw new UformException(UformException.Status.NO_DEVICE, "A mesh joins the GPUs of the VRAM executor bean '"
					+ VRAM_EXECUTOR_BEAN_NAME + "', and none was made: " + whyNoVramExecutor(environment));
		}
		long start = System.nanoTime();
		Mesh mesh = Mesh.bootstrap(executor, options);
		UformMeshSources madeFrom = sources.getIfAvailable();
		UformStartupLog.made(MESH_BEAN_NAME, mesh, (System.nanoTime() - start) / 1_000_000,
				(madeFrom != null) ? madeFrom.origins(options) : null);
		return mesh;
	}

	@Bean
	@ConditionalOnBean(name = MESH_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformMeshLifecycle")
	UformMeshLifecycle uformMeshLifecycle(@Qualifier(MESH_BEAN_NAME) Mesh mesh) {
		return new UformMeshLifecycle(MESH_BEAN_NAME, mesh);
	}

	/** Why {@code uformVramExecutor} was not made, naming the setting and where it was set. */
	private static String whyNoVramExecutor(Environment environment) {
		ConfigurationProperty enabled = ConfiguredProperties.find(environment, "uform.vram.enabled");
		String value = (enabled != null) ? String.valueOf(enabled.getValue()).trim() : "auto";
		String origin = ConfiguredProperties.setIn(enabled);
		if (value.equalsIgnoreCase("false")) {
			return "uform.vram.enabled = false" + origin + " turns it off. Remove that setting (auto, the default, makes "
					+ "the executor where a GPU is seen) or set it to true";
		}
		return "uform.vram.enabled is " + ((enabled != null) ? value + origin : "auto (the default)") + " and this "
				+ "process sees no GPU a VRAM executor runs on (NVIDIA, or simulated devices). Run where the GPUs are visible and set uform.vram.enabled=true so that startup "
				+ "says what discovery found, or for development opt in to simulated devices with "
				+ "uform.devices.simulated=1";
	}

	/** Which executors the context frees when it destroys them; none without the post-processor. */
	private static Predicate<Executor> freedWhenDestroyed(ObjectProvider<UformExecutorDestruction> destruction,
			String beanName) {
		UformExecutorDestruction available = destruction.getIfAvailable();
		return (available != null) ? (executor) -> available.freesWhenDestroyed(beanName, executor)
				: (executor) -> false;
	}

	// Static, as a post-processor must be: it is made before this configuration's other beans.
	@Bean
	static UformExecutorDestruction uformExecutorDestruction(Environment environment) {
		return new UformExecutorDestruction(environment);
	}

	@Bean
	static UformVramExecutorReplacement uformVramExecutorReplacement() {
		return new UformVramExecutorReplacement();
	}

	/** Boot's default {@code spring.lifecycle.timeout-per-shutdown-phase}. */
	static final Duration DEFAULT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(30);

	/** Boot's {@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s unless set. */
	static Duration shutdownPhaseTimeout(Environment environment) {
		return Binder.get(environment)
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(DEFAULT_SHUTDOWN_PHASE_TIMEOUT);
	}

	/**
	 * Attribute of a config bean's definition holding what each customizer returned, in order, as
	 * {@link CustomizerStep}s: the failure analyzer reads it to blame the one customizer that set a bad
	 * value, since the customizer beans themselves are destroyed with the failed context.
	 */
	static final String CUSTOMIZER_STEPS_ATTRIBUTE = UformAutoConfiguration.class.getName() + ".customizerSteps";

	/**
	 * One customizer's turn: its bean name and the config it returned.
	 * @param bean the customizer's bean name
	 * @param result the config it returned
	 */
	record CustomizerStep(String bean, Object result) {
	}

	/**
	 * Applies the customizer beans to a config in {@code @Order} order, each to the previous one's
	 * result, and records each one's result on the config bean's definition. A customizer that returns
	 * {@code null} fails startup naming its bean, rather than an executor being made from nothing.
	 */
	private static <C, K> C customize(String configBean, C config, Class<K> type, ObjectProvider<K> customizers,
			ListableBeanFactory beans, BiFunction<K, C, C> apply) {
		C customized = config;
		List<CustomizerStep> steps = new ArrayList<>();
		for (K customizer : customizers.orderedStream().toList()) {
			C next = apply.apply(customizer, customized);
			if (next == null) {
				throw new IllegalStateException(type.getSimpleName() + " bean '" + beanName(beans, type, customizer)
						+ "' (" + customizer.getClass().getName() + ") returned null; a customizer returns the "
						+ config.getClass().getSimpleName() + " it is given, or a changed copy made with its with* "
						+ "methods");
			}
			steps.add(new CustomizerStep(beanName(beans, type, customizer), next));
			customized = next;
		}
		if (beans instanceof ConfigurableListableBeanFactory factory && factory.containsBeanDefinition(configBean)) {
			factory.getBeanDefinition(configBean).setAttribute(CUSTOMIZER_STEPS_ATTRIBUTE, List.copyOf(steps));
		}
		if (customized != config) {
			logger.debug(config.getClass().getSimpleName() + " after customizers: " + customized);
		}
		return customized;
	}

	private static <K> String beanName(ListableBeanFactory beans, Class<K> type, K customizer) {
		for (String name : beans.getBeanNamesForType(type)) {
			if (beans.getBean(name) == customizer) {
				return name;
			}
		}
		return "?";
	}
}
