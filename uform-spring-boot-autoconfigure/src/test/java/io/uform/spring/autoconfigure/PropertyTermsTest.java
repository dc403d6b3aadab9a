package io.uform.spring.autoconfigure;

import org.junit.jupiter.api.Test;

import io.uform.ExecutorForVramConfig;
import io.uform.MeshOptions;

import static org.assertj.core.api.Assertions.assertThat;

/** uform's Java-API advice rewritten in the properties' terms, as the failure analysis prints it. */
class PropertyTermsTest {

	@Test
	void fieldsOfTwoWordsOrMoreBecomeTheirProperties() {
		assertThat(PropertyTerms.of("must be 0 or absent when hostDomainCount is absent (a run with no peers); set "
				+ "hostDomainCount to the number of processes", "uform.mesh", MeshOptions.class))
			.isEqualTo("must be 0 or unset when uform.mesh.host-domain-count is unset (a run with no peers); set "
					+ "uform.mesh.host-domain-count to the number of processes");
	}

	@Test
	void oneWordFieldsStayPlainEnglish() {
		assertThat(PropertyTerms.of("a run with peers (hostDomainCount = 2) meets in a directory every host sees; set "
				+ "it, e.g. /shared/uform", "uform.mesh", MeshOptions.class))
			.isEqualTo("a run with peers (uform.mesh.host-domain-count = 2) meets in a directory every host sees; set "
					+ "it, e.g. /shared/uform");
	}

	@Test
	void durationsAndDefaultConstantsBecomeWhatAPropertyTakes() {
		assertThat(PropertyTerms.of("must be positive, e.g. Duration.ofSeconds(120), or absent for "
				+ "MeshOptions.DEFAULT_TIMEOUT (120 s)", "uform.mesh", MeshOptions.class))
			.isEqualTo("must be positive, e.g. 120s, or unset for the default (120 s)");
		assertThat(PropertyTerms.of("e.g. Duration.ofMillis(500) or Duration.ofMinutes(2)", "uform.mesh",
				MeshOptions.class)).isEqualTo("e.g. 500ms or 2m");
	}

	@Test
	void onlyWholeNamesOfTheConfigsOwnFieldsChange() {
		// gpuClass is a field of the VRAM config; gpuClasses is not, and MeshOptions has no gpuClass.
		assertThat(PropertyTerms.of("leave gpuClass absent to use each device's own class; see gpuClasses",
				"uform.vram", ExecutorForVramConfig.class))
			.isEqualTo("leave uform.vram.gpu-class unset to use each device's own class; see gpuClasses");
		assertThat(PropertyTerms.of("use it, or leave gpuClass absent", "uform.mesh", MeshOptions.class))
			.isEqualTo("use it, or leave gpuClass unset");
	}

	/** A job or directory the user named like a field, quoted or in a path, stays as the user wrote it. */
	@Test
	void theUsersQuotedValuesAndPathsAreLeftAlone() {
		assertThat(PropertyTerms.of("mesh job 'hostDomainIndex' cannot use /shared/hostDomainIndex "
				+ "(java.nio.file.AccessDeniedException: /shared/hostDomainIndex); make /shared writable, or absent "
				+ "hostDomainCount", "uform.mesh", MeshOptions.class))
			.isEqualTo("mesh job 'hostDomainIndex' cannot use /shared/hostDomainIndex (java.nio.file.AccessDeniedException: "
					+ "/shared/hostDomainIndex); make /shared writable, or unset uform.mesh.host-domain-count");
		assertThat(PropertyTerms.of(null, "uform.mesh", MeshOptions.class)).isEmpty();
	}
}
