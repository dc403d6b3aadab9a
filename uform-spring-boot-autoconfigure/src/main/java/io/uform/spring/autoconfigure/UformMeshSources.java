package io.uform.spring.autoconfigure;

import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.StringUtils;

import io.uform.MeshLaunch;
import io.uform.MeshLauncher;
import io.uform.MeshOptions;
import io.uform.UformException;

/**
 * The mesh's options as {@code uform.mesh.*} and the launcher's environment variables make them
 * (before any {@link MeshOptionsCustomizer}), and where each value came from: a property and where it
 * was set, a launcher's variable, or nothing (uform's default). The startup log and the mesh part of
 * {@code /actuator/uform} say it, so that a value a launcher gave is never a mystery.
 */
public final class UformMeshSources {

	/** The property choosing the launcher. */
	static final String LAUNCHER_PROPERTY = "uform.mesh.launcher";

	private final MeshOptions options;

	private final MeshLaunch launch;

	private final Map<String, String> origins;

	private UformMeshSources(MeshOptions options, MeshLaunch launch, Map<String, String> origins) {
		this.options = options;
		this.launch = launch;
		this.origins = origins;
	}

	/**
	 * Reads the properties, and the launcher's variables for what they leave unset.
	 * @throws InvalidConfigurationPropertyValueException on {@value #LAUNCHER_PROPERTY} where the
	 *         launcher's variables are half set, disagree, or are missing for a chosen launcher
	 */
	static UformMeshSources of(UformProperties properties, Environment environment) {
		MeshOptions explicit = fromProperties(properties.getMesh());
		MeshLauncher launcher = properties.getMesh().getLauncher();
		MeshLaunch launch = MeshLaunch.none();
		MeshOptions options = explicit;
		boolean launcherNeeded = explicit.hostDomainIndex() == null || explicit.hostDomainCount() == null
				|| explicit.job() == null;
		if (launcherNeeded && launcher != MeshLauncher.NONE) {
			try {
				launch = launcher.read(variables(environment));
				options = launch.fill(explicit);
			}
			catch (UformException ex) {
				throw new InvalidConfigurationPropertyValueException(LAUNCHER_PROPERTY, launcher.label(), ex.getMessage());
			}
		}
		Map<String, String> origins = new LinkedHashMap<>();
		origins.put("launcher", launch.launcher().label() + ((launcher == MeshLauncher.AUTO) ? " (auto)" : ""));
		origins.put("hostDomainIndex", origin(environment, "uform.mesh.host-domain-index", explicit.hostDomainIndex(),
				options.hostDomainIndex(), launch.indexVariable(), launch, "unset: 0"));
		origins.put("hostDomainCount", origin(environment, "uform.mesh.host-domain-count", explicit.hostDomainCount(),
				options.hostDomainCount(), launch.countVariable(), launch, "unset: 1, no peers"));
		origins.put("job", origin(environment, "uform.mesh.job", explicit.job(), options.job(), launch.jobVariable(),
				launch, "unset"));
		origins.put("directory", origin(environment, "uform.mesh.directory", explicit.directory(), options.directory(),
				null, launch, "unset"));
		origins.put("gpusPerMultimemDomain", origin(environment, "uform.mesh.gpus-per-multimem-domain",
				explicit.gpusPerMultimemDomain(), options.gpusPerMultimemDomain(), null, launch, "unset: this host's GPUs"));
		origins.put("timeout", origin(environment, "uform.mesh.timeout", explicit.timeout(), options.timeout(), null,
				launch, "unset: " + MeshOptions.DEFAULT_TIMEOUT.toSeconds() + "s"));
		origins.put("livenessTimeout", origin(environment, "uform.mesh.liveness-timeout", explicit.livenessTimeout(),
				options.livenessTimeout(), null, launch, "unset: " + MeshOptions.DEFAULT_LIVENESS_TIMEOUT.toSeconds() + "s"));
		return new UformMeshSources(options, launch, origins);
	}

	/** The options as {@code uform.mesh.*} alone makes them, before the launcher's variables fill in the rest. */
	private static MeshOptions fromProperties(UformProperties.Mesh mesh) {
		// A blank directory (UFORM_MESH_DIRECTORY= in a manifest whose value did not arrive) is unset, not
		// Path.of(""), the working directory, where each host would wait alone for the whole timeout.
		String directory = mesh.getDirectory();
		return new MeshOptions(mesh.getHostDomainIndex(), mesh.getHostDomainCount(), mesh.getGpusPerMultimemDomain(),
				StringUtils.hasText(directory) ? Path.of(directory) : null, mesh.getJob(), mesh.getTimeout())
			.withLivenessTimeout(mesh.getLivenessTimeout());
	}

	/**
	 * Whether a launcher's variables place this process in a run, so that with {@code uform.mesh.directory}
	 * set the mesh is made without {@code uform.mesh.host-domain-count}. Variables that are half set
	 * count too: the mesh bean then fails, naming them.
	 */
	static boolean launcherPlacesThisProcess(MeshLauncher launcher, Environment environment) {
		if (launcher == MeshLauncher.NONE) {
			return false;
		}
		try {
			MeshLaunch launch = launcher.read(variables(environment));
			return launch.hostDomainIndex() != null || launch.hostDomainCount() != null;
		}
		catch (UformException ex) {
			return true;
		}
	}

	/**
	 * The process's environment variables as the context sees them: its system environment property
	 * source (which a test may replace), not the properties, since launchers set variables.
	 */
	static Map<String, String> variables(Environment environment) {
		if (environment instanceof ConfigurableEnvironment configurable) {
			PropertySource<?> source = configurable.getPropertySources()
				.get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
			if (source != null && source.getSource() instanceof Map<?, ?> map) {
				Map<String, String> variables = new HashMap<>();
				map.forEach((name, value) -> {
					if (name != null && value != null) {
						variables.put(name.toString(), value.toString());
					}
				});
				return variables;
			}
		}
		return System.getenv();
	}

	/**
	 * The options from the properties and the launcher, before customizers.
	 * @return the options
	 */
	public MeshOptions options() {
		return this.options;
	}

	/**
	 * What the launcher's variables said; {@link MeshLaunch#none()} where none was read.
	 * @return the launch
	 */
	public MeshLaunch launch() {
		return this.launch;
	}

	/**
	 * Where each value of the options the mesh was made from came from, by {@link MeshOptions} field
	 * name, after {@code launcher} (the launcher whose variables were read). A value that differs from
	 * what the properties and the launcher gave was set in code.
	 * @param effective the options the mesh was made from (the {@link MeshOptions} bean)
	 * @return field name to origin, in a fixed order
	 */
	public Map<String, String> origins(MeshOptions effective) {
		Map<String, String> origins = new LinkedHashMap<>(this.origins);
		// Every origin but the launcher's is named after the MeshOptions component it is of.
		for (RecordComponent option : MeshOptions.class.getRecordComponents()) {
			if (!Objects.equals(ConfigFieldBlame.read(option, this.options), ConfigFieldBlame.read(option, effective))) {
				origins.put(option.getName(), "set in code (a MeshOptionsCustomizer or MeshOptions bean)");
			}
		}
		return origins;
	}

	private static String origin(Environment environment, String property, @Nullable Object explicit,
			@Nullable Object value, @Nullable String variable, MeshLaunch launch, String unset) {
		if (explicit != null) {
			ConfigurationProperty configured = ConfiguredProperties.find(environment, property);
			return property + ConfiguredProperties.setIn(configured);
		}
		if (value != null && variable != null) {
			return variable + " (" + launch.launcher().label() + " launcher)";
		}
		return unset;
	}

	/**
	 * Whether {@code uform.mesh.directory} is set; blank counts as unset, as
	 * {@link #of} reads it.
	 */
	static boolean hasDirectory(Environment environment) {
		return StringUtils.hasText(Binder.get(environment).bind("uform.mesh.directory", String.class).orElse(null));
	}
}
