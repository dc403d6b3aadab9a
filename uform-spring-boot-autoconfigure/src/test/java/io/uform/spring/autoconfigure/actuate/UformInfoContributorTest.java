package io.uform.spring.autoconfigure.actuate;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.Uform;
import io.uform.host.CpuClasses;
import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code uform} entry of the info endpoint: the version, the best CPU class this CPU offers and
 * the capability tokens, compiled and available.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformInfoContributorTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(UformAutoConfiguration.class, UformInfoContributorAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	@Test
	void contributesTheVersionTheBestCpuClassAndTheCapabilities() {
		this.contextRunner.run((context) -> {
			Info.Builder builder = new Info.Builder();
			context.getBean(UformInfoContributor.class).contribute(builder);
			Info info = builder.build();
			assertThat(info.getDetails()).containsOnlyKeys(UformInfoContributor.KEY);
			@SuppressWarnings("unchecked")
			Map<String, Object> uform = (Map<String, Object>) info.get(UformInfoContributor.KEY);
			assertThat(uform).containsOnlyKeys("version", "bestCpuClass", "capabilities");
			assertThat(uform.get("version")).isEqualTo(UformFacts.version());
			assertThat(uform.get("bestCpuClass")).isEqualTo(CpuClasses.system().best());
			assertThat(CpuClasses.system().available()).contains((String) uform.get("bestCpuClass"));
			assertThat(uform.get("capabilities")).isEqualTo(Map.of("compiled",
					UformFacts.compiled(), "available", UformFacts.available()));
			assertThat(String.join(",", UformFacts.compiled())).isEqualTo(Uform.capabilitiesCompiled());
			assertThat(String.join(",", UformFacts.available())).isEqualTo(Uform.capabilitiesAvailable());
		});
	}

	@Test
	void theCpuClassIsTheBestOneThisCpuOffers() {
		Info.Builder builder = new Info.Builder();
		new UformInfoContributor(() -> "intel-icelake", java.util.List::of).contribute(builder);
		@SuppressWarnings("unchecked")
		Map<String, Object> uform = (Map<String, Object>) builder.build().get(UformInfoContributor.KEY);
		assertThat(uform.get("bestCpuClass")).isEqualTo("intel-icelake");
	}

	@Test
	void theVersionComesFromTheUformJarOrIsUnknown() {
		String version = UformFacts.version();
		assertThat(version).isNotBlank();
		String manifest = Uform.class.getPackage().getImplementationVersion();
		if (manifest != null) {
			assertThat(version).isEqualTo(manifest);
		}
		else if (Uform.class.getResource(UformFacts.POM_PROPERTIES) != null) {
			assertThat(version).isNotEqualTo(UformFacts.UNKNOWN_VERSION).matches("\\d+\\.\\d+\\.\\d+.*");
		}
		else {
			assertThat(version).isEqualTo(UformFacts.UNKNOWN_VERSION);
		}
	}
}
