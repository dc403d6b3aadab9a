package io.uform.spring.autoconfigure;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.ExecutorHooks;
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
 * its executor or mesh is made. An executor bean is made with the hooks of the {@link UformExecutorHooks}
 * bean where there is one (observation and context propagation around its deferred calls and forks,
 * from {@code UformObservationAutoConfiguration}).
 *
 * <h2>Lifecycle</h2>
 * Each executor bean has an {@link UformExecutorLifecycle}, which shuts it down with the context; the mesh
 * joins when its bean is made and an {@link UformMeshLifecycle} leaves it first. The phases are in
 * {@code docs/configuration.md}.
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
		return customize(ramConfig(properties), ExecutorForRamConfigCustomizer.class, customizers, beans,
				ExecutorForRamConfigCustomizer::customize).result();
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

	// No destroy method: its lifecycle, which it depends on, frees it within the shutdown period.
	@Bean(name = RAM_EXECUTOR_BEAN_NAME, destroyMethod = "")
	@Conditional(OnNoUserRamExecutorCondition.class)
	@ConditionalOnBooleanProperty(name = "uform.ram.enabled", matchIfMissing = true)
	Executor uformRamExecutor(ExecutorForRamConfig config,
			@Qualifier("uformRamExecutorLifecycle") UformExecutorLifecycle lifecycle,
			ObjectProvider<UformProperties> properties, ObjectProvider<ExecutorForRamConfigCustomizer> customizers,
			ObjectProvider<UformExecutorHooks> hooks, ListableBeanFactory beans, Environment environment) {
		ExecutorHooks made = hooks(hooks, RAM_EXECUTOR_BEAN_NAME, "uform.ram", environment);
		try {
			return lifecycle.manage(UformStartupLog.made(RAM_EXECUTOR_BEAN_NAME, Executor.forRam(config, made)));
		}
		catch (UformException ex) {
			throw ConfigFieldBlame.RAM.blame(RAM_EXECUTOR_BEAN_NAME, ex, config,
					customize(ramConfig(properties.getObject()), ExecutorForRamConfigCustomizer.class, customizers, beans,
							ExecutorForRamConfigCustomizer::customize),
					environment, beans);
		}
	}

	@Bean
	@ConditionalOnBean(name = RAM_EXECUTOR_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformRamExecutorLifecycle")
	UformExecutorLifecycle uformRamExecutorLifecycle() {
		return new UformExecutorLifecycle(RAM_EXECUTOR_BEAN_NAME);
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnVramEnabledCondition.class)
	ExecutorForVramConfig uformVramExecutorConfig(UformProperties properties,
			ObjectProvider<ExecutorForVramConfigCustomizer> customizers, ListableBeanFactory beans) {
		return customize(vramConfig(properties), ExecutorForVramConfigCustomizer.class, customizers, beans,
				ExecutorForVramConfigCustomizer::customize).result();
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
	@Bean(name = VRAM_EXECUTOR_BEAN_NAME, destroyMethod = "", defaultCandidate = false)
	@ConditionalOnMissingBean(name = VRAM_EXECUTOR_BEAN_NAME)
	@Conditional(OnVramEnabledCondition.class)
	Executor uformVramExecutor(ExecutorForVramConfig config,
			@Qualifier("uformVramExecutorLifecycle") UformExecutorLifecycle lifecycle,
			ObjectProvider<UformProperties> properties, ObjectProvider<ExecutorForVramConfigCustomizer> customizers,
			ObjectProvider<UformExecutorHooks> hooks, ListableBeanFactory beans, Environment environment) {
		ExecutorHooks made = hooks(hooks, VRAM_EXECUTOR_BEAN_NAME, "uform.vram", environment);
		try {
			return lifecycle.manage(UformStartupLog.made(VRAM_EXECUTOR_BEAN_NAME, Executor.forVram(config, made)));
		}
		catch (UformException ex) {
			throw ConfigFieldBlame.VRAM.blame(VRAM_EXECUTOR_BEAN_NAME, ex, config,
					customize(vramConfig(properties.getObject()), ExecutorForVramConfigCustomizer.class, customizers, beans,
							ExecutorForVramConfigCustomizer::customize),
					environment, beans);
		}
	}

	@Bean
	@ConditionalOnBean(name = VRAM_EXECUTOR_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformVramExecutorLifecycle")
	UformExecutorLifecycle uformVramExecutorLifecycle() {
		return new UformExecutorLifecycle(VRAM_EXECUTOR_BEAN_NAME);
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
		return customize(sources.options(), MeshOptionsCustomizer.class, customizers, beans,
				MeshOptionsCustomizer::customize).result();
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
				StringUtils.hasText(directory) ? Path.of(directory) : null, mesh.getJob(), mesh.getTimeout())
			.withLivenessTimeout(mesh.getLivenessTimeout());
	}

	// Joins when the bean is made, so before the web server starts (it starts once every singleton is
	// made) and before any bean that takes the mesh; a refused uform.mesh.* value is reported naming
	// the property, before the application takes traffic. Why not in SmartLifecycle.start: see
	// UformMeshLifecycle.
	@Bean(name = MESH_BEAN_NAME, destroyMethod = "free")
	@ConditionalOnMissingBean(name = MESH_BEAN_NAME)
	@ConditionalOnBean(MeshOptions.class)
	Mesh uformMesh(MeshOptions options, @Qualifier(VRAM_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> vramExecutor,
			ObjectProvider<UformMeshSources> sources, Environment environment, ObjectProvider<UformProperties> properties,
			ObjectProvider<MeshOptionsCustomizer> customizers, ListableBeanFactory beans) {
		Executor executor = vramExecutor.getIfAvailable();
		if (executor == null) {
			throw new UformException(UformException.Status.NO_DEVICE, "A mesh joins the GPUs of the VRAM executor bean '"
					+ VRAM_EXECUTOR_BEAN_NAME + "', and none was made: " + whyNoVramExecutor(environment));
		}
		long start = System.nanoTime();
		UformMeshSources madeFrom = sources.getIfAvailable();
		try {
			Mesh mesh = Mesh.bootstrap(executor, options);
			UformStartupLog.made(MESH_BEAN_NAME, mesh, (System.nanoTime() - start) / 1_000_000,
					(madeFrom != null) ? madeFrom.origins(options) : null);
			return mesh;
		}
		catch (UformException ex) {
			MeshOptions fromProperties = (madeFrom != null) ? madeFrom.options() : meshOptions(properties.getObject());
			throw ConfigFieldBlame.MESH.blame(MESH_BEAN_NAME, ex, options,
					customize(fromProperties, MeshOptionsCustomizer.class, customizers, beans,
							MeshOptionsCustomizer::customize),
					environment, beans);
		}
	}

	@Bean
	@ConditionalOnBean(name = MESH_BEAN_NAME)
	@ConditionalOnMissingBean(name = "uformMeshLifecycle")
	UformMeshLifecycle uformMeshLifecycle(@Qualifier(MESH_BEAN_NAME) Mesh mesh, UformProperties properties,
			ConfigurableApplicationContext context) {
		return new UformMeshLifecycle(MESH_BEAN_NAME, mesh, context, properties.getMesh().isCloseContextWhenBroken());
	}

	/**
	 * The hooks an executor bean is made with, from the {@link UformExecutorHooks} bean (the starter's
	 * observes deferred calls and carries context); none without one. A fork-context-propagation
	 * property set to {@code true} that no fork decorator honours fails startup naming it. That one
	 * property is bound alone, not through {@link UformProperties}: an executor made from a user's
	 * config bean does not depend on the rest of {@code uform.*} binding.
	 */
	private static ExecutorHooks hooks(ObjectProvider<UformExecutorHooks> provider, String beanName, String prefix,
			Environment environment) {
		boolean forkContext = Binder.get(environment).bind(prefix + ".fork-context-propagation", Boolean.class)
			.orElse(false);
		UformExecutorHooks factory = provider.getIfAvailable();
		ExecutorHooks hooks = (factory != null) ? factory.hooksFor(beanName, forkContext) : ExecutorHooks.NONE;
		if (hooks == null) {
			throw new IllegalStateException("UformExecutorHooks bean (" + factory.getClass().getName() + ") returned "
					+ "null for executor bean '" + beanName + "'; return ExecutorHooks.NONE for no hooks");
		}
		if (forkContext && hooks.forks() == null) {
			throw new InvalidConfigurationPropertyValueException(prefix + ".fork-context-propagation", true,
					"Forks carry the forking thread's context with Micrometer's context-propagation library, and executor "
							+ "bean '" + beanName + "' got no fork decorator (UformExecutorHooks bean: "
							+ ((factory != null) ? factory.getClass().getName() : "none") + "). Add "
							+ "io.micrometer:context-propagation to the class path (Micrometer Tracing brings it), or "
							+ "remove the property");
		}
		return hooks;
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

	@Bean
	static UformVramExecutorReplacement uformVramExecutorReplacement() {
		return new UformVramExecutorReplacement();
	}

	/**
	 * Applies the customizer beans to a config in {@code @Order} order, each to the previous one's
	 * result. A customizer that returns {@code null} fails startup naming its bean, rather than an
	 * executor being made from nothing. Customizers only change the config they are given, so an
	 * executor's bean applies them again to tell which one set a field uform refused.
	 */
	private static <C, K> ConfigFieldBlame.Customized<C> customize(C config, Class<K> type,
			ObjectProvider<K> customizers, ListableBeanFactory beans, BiFunction<K, C, C> apply) {
		C customized = config;
		List<ConfigFieldBlame.Step<C>> steps = new ArrayList<>();
		for (K customizer : customizers.orderedStream().toList()) {
			C next = apply.apply(customizer, customized);
			if (next == null) {
				throw new IllegalStateException(type.getSimpleName() + " bean '" + beanName(beans, type, customizer)
						+ "' (" + customizer.getClass().getName() + ") returned null; a customizer returns the "
						+ config.getClass().getSimpleName() + " it is given, or a changed copy made with its with* "
						+ "methods");
			}
			steps.add(new ConfigFieldBlame.Step<>(beanName(beans, type, customizer), next));
			customized = next;
		}
		if (customized != config) {
			logger.debug(config.getClass().getSimpleName() + " after customizers: " + customized);
		}
		return new ConfigFieldBlame.Customized<>(config, steps);
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
