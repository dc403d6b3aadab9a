package io.uform.spring.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshLauncher;
import io.uform.MeshOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code uform.mesh.launcher}: the mesh's index, count and job from a launcher's environment variables,
 * with the process's system environment replaced by the variables a launcher would set, so that the
 * tests neither depend on nor see the environment they run in.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformMeshLauncherTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	private ApplicationContextRunner launchedWith(Map<String, Object> variables) {
		return this.contextRunner.withInitializer((context) -> context.getEnvironment()
			.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables)));
	}

	private static Map<String, Object> srunTask(int index, int count) {
		return Map.of("SLURM_PROCID", String.valueOf(index), "SLURM_NTASKS", String.valueOf(count), "SLURM_JOB_ID",
				"77", "SLURM_STEP_ID", "0");
	}

	@Test
	void twoSrunTasksWithOnlyTheDirectorySetMeetAsIndicesZeroAndOneOfOneJob(@TempDir Path directory) {
		// A thread each: the two contexts wait for each other, and the common pool may have only one
		// thread (CompletableFuture's default on 2 CPUs differs between JDKs).
		ExecutorService twoTasks = Executors.newFixedThreadPool(2);
		try {
			joinTwoTasks(directory, twoTasks);
		}
		finally {
			twoTasks.shutdownNow();
		}
	}

	private void joinTwoTasks(Path directory, ExecutorService twoTasks) {
		List<CompletableFuture<MeshDescription>> tasks = List.of(0, 1).stream()
			.map((index) -> CompletableFuture.supplyAsync(() -> {
				MeshDescription[] joined = new MeshDescription[1];
				launchedWith(srunTask(index, 2)).withPropertyValues("uform.mesh.directory=" + directory,
						"uform.mesh.timeout=30s", "uform.vram.devices=" + index)
					.run((context) -> {
						assertThat(context).hasNotFailed();
						joined[0] = context.getBean(UformAutoConfiguration.MESH_BEAN_NAME, Mesh.class).describe();
					});
				return joined[0];
			}, twoTasks))
			.toList();

		for (int index = 0; index < 2; index++) {
			MeshDescription joined = tasks.get(index).join();
			assertThat(joined.hostDomainIndex()).isEqualTo(index);
			assertThat(joined.hostDomainCount()).isEqualTo(2);
			assertThat(joined.job()).isEqualTo("slurm-77.0");
		}
		assertThat(directory).isEmptyDirectory();
	}

	@Test
	void theLauncherFillsOnlyWhatThePropertiesLeaveUnsetAndTheLogAndSourcesSayWhereEachCameFrom(
			CapturedOutput output) {
		launchedWith(srunTask(0, 1)).withPropertyValues("uform.mesh.directory=/shared/uform", "uform.mesh.job=mine")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(MeshOptions.class))
					.isEqualTo(new MeshOptions(0, 1, null, Path.of("/shared/uform"), "mine", null));
				Map<String, String> origins = context.getBean(UformMeshSources.class)
					.origins(context.getBean(MeshOptions.class));
				assertThat(origins).containsEntry("launcher", "slurm (auto)")
					.containsEntry("hostDomainIndex", "SLURM_PROCID (slurm launcher)")
					.containsEntry("hostDomainCount", "SLURM_NTASKS (slurm launcher)")
					.containsEntry("gpusPerMultimemDomain", "unset: this host's GPUs");
				assertThat(origins.get("job")).startsWith("uform.mesh.job");
				assertThat(origins.get("directory")).startsWith("uform.mesh.directory");
			});
		assertThat(output).contains("Joined uform mesh bean 'uformMesh'")
			.contains("values from: launcher slurm (auto), hostDomainIndex SLURM_PROCID (slurm launcher), "
					+ "hostDomainCount SLURM_NTASKS (slurm launcher), job uform.mesh.job");
	}

	@Test
	void anOptionACustomizerChangedIsSaidToBeSetInCodeAndTheOthersKeepTheirOrigins() {
		UformProperties properties = new UformProperties();
		properties.getMesh().setHostDomainCount(1);
		properties.getMesh().setLauncher(MeshLauncher.NONE);
		UformMeshSources sources = UformMeshSources.of(properties, new StandardEnvironment());
		Map<String, String> origins = sources
			.origins(sources.options().withTimeout(Duration.ofSeconds(5)).withJob("from-code"));
		assertThat(origins.keySet()).containsExactly("launcher", "hostDomainIndex", "hostDomainCount", "job", "directory",
				"gpusPerMultimemDomain", "timeout", "livenessTimeout");
		assertThat(origins).containsEntry("timeout", "set in code (a MeshOptionsCustomizer or MeshOptions bean)")
			.containsEntry("job", "set in code (a MeshOptionsCustomizer or MeshOptions bean)")
			.containsEntry("hostDomainCount", "uform.mesh.host-domain-count")
			.containsEntry("livenessTimeout", "unset: 10s");
		assertThat(sources.origins(sources.options())).doesNotContainValue(
				"set in code (a MeshOptionsCustomizer or MeshOptions bean)");
	}

	@Test
	void aLauncherWithoutTheDirectoryMakesNoMesh() {
		launchedWith(srunTask(0, 4)).run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(MeshOptions.class)
			.doesNotHaveBean(UformAutoConfiguration.MESH_BEAN_NAME));
	}

	@Test
	void launcherNoneIgnoresTheVariables() {
		launchedWith(srunTask(2, 4)).withPropertyValues("uform.mesh.directory=/shared/uform", "uform.mesh.launcher=none")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MeshOptions.class));
		launchedWith(srunTask(2, 4))
			.withPropertyValues("uform.mesh.host-domain-count=1", "uform.mesh.launcher=none")
			.run((context) -> assertThat(context.getBean(MeshOptions.class))
				.isEqualTo(new MeshOptions(null, 1, null, null, null, null)));
	}

	@Test
	void aPodWithTheIndexAloneFailsStartupOnTheLauncherPropertyNamingTheCountVariable() {
		launchedWith(Map.of("JOB_COMPLETION_INDEX", "2")).withPropertyValues("uform.mesh.directory=/shared/uform")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining("uform.mesh.launcher")
					.hasMessageContaining("JOB_COMPLETION_INDEX = 2")
					.hasMessageContaining("UFORM_MESH_HOST_DOMAIN_COUNT");
			});
	}

	@Test
	void aPodWhoseManifestSetsCountAndJobJoinsWithTheIndexFromKubernetes() {
		// UFORM_MESH_HOST_DOMAIN_COUNT and UFORM_MESH_JOB bind as properties too; the index is Kubernetes'.
		Map<String, Object> pod = new HashMap<>(Map.of("JOB_COMPLETION_INDEX", "0", "UFORM_MESH_HOST_DOMAIN_COUNT", "1",
				"UFORM_MESH_JOB", "uform-train", "UFORM_MESH_DIRECTORY", "/shared/uform"));
		launchedWith(pod).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(MeshOptions.class))
				.isEqualTo(new MeshOptions(0, 1, null, Path.of("/shared/uform"), "uform-train", null));
			assertThat(context.getBean(UformMeshSources.class).origins(context.getBean(MeshOptions.class)))
				.containsEntry("hostDomainIndex", "JOB_COMPLETION_INDEX (kubernetes launcher)");
		});
	}

	@Test
	void aChosenLauncherWhoseVariablesAreMissingFailsStartup() {
		launchedWith(Map.of()).withPropertyValues("uform.mesh.host-domain-count=1", "uform.mesh.launcher=slurm")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("srun"));
	}

	@Test
	void aBlankDirectoryIsUnsetAndMakesNoMeshFromTheLauncher() {
		launchedWith(srunTask(0, 2)).withPropertyValues("uform.mesh.directory= ")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MeshOptions.class));
	}
}
