package io.uform.spring.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.uform.Mesh;
import io.uform.MeshOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code uform.mesh.*} from environment variables, as {@code docs/mesh/kubernetes-indexed-job-spring.yaml}
 * sets them: the variables sit in a property source of the system environment's kind, the only kind
 * Boot's relaxed binding maps {@code UFORM_MESH_HOST_DOMAIN_COUNT} onto {@code uform.mesh.host-domain-count}
 * for. A run of one process, so that the mesh joins without peers and the directory need not exist.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformMeshEnvironmentVariablesTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	private ApplicationContextRunner withVariables(Map<String, Object> variables) {
		return this.contextRunner.withInitializer((context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new SystemEnvironmentPropertySource(
					"pod-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables)));
	}

	@Test
	void theSpringManifestsVariablesMakeAndJoinTheMesh() {
		withVariables(Map.of("UFORM_MESH_HOST_DOMAIN_INDEX", "0", "UFORM_MESH_HOST_DOMAIN_COUNT", "1",
				"UFORM_MESH_DIRECTORY", "/shared/uform", "UFORM_MESH_JOB", "uform-train-spring", "UFORM_MESH_TIMEOUT",
				"300s", "UFORM_MESH_GPUS_PER_MULTIMEM_DOMAIN", "2"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(MeshOptions.class)).isEqualTo(new MeshOptions(0, 1, 2,
						Path.of("/shared/uform"), "uform-train-spring", Duration.ofSeconds(300)));
				assertThat(context.getBean(UformAutoConfiguration.MESH_BEAN_NAME, Mesh.class).describe().job())
					.isEqualTo("uform-train-spring");
			});
	}

	@Test
	void theCanonicalNamesWithoutInnerUnderscoresBindToo() {
		withVariables(Map.of("UFORM_MESH_HOSTDOMAININDEX", "0", "UFORM_MESH_HOSTDOMAINCOUNT", "1", "UFORM_MESH_JOB",
				"run-7", "UFORM_MESH_TIMEOUT", "45s"))
			.run((context) -> assertThat(context.getBean(MeshOptions.class))
				.isEqualTo(new MeshOptions(0, 1, null, null, "run-7", Duration.ofSeconds(45))));
	}

	@Test
	void withoutTheCountVariableThereIsNoMesh() {
		withVariables(Map.of("UFORM_MESH_HOST_DOMAIN_INDEX", "0", "UFORM_MESH_DIRECTORY", "/shared/uform",
				"UFORM_MESH_JOB", "uform-train-spring"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MeshOptions.class)
				.doesNotHaveBean(UformAutoConfiguration.MESH_BEAN_NAME));
	}
}
