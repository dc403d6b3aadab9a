package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.MeshOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ConfigFieldBlame} names whatever set a field uform refused: for a field the properties set,
 * the property. Every field of the three config records is one it can name, read from the record's
 * components: a {@code uform.*} property of that name in the generated metadata, or one of the fields
 * only code sets (whose failure then names the customizer or config bean). A field added to a record
 * without either fails here.
 */
class ConfigFieldBlameTest {

	/** Fields no property sets, by config type: only a customizer or the user's config bean sets them. */
	private static final Map<Class<?>, Set<String>> SET_ONLY_IN_CODE = Map.of(ExecutorForRamConfig.class, Set.of(),
			ExecutorForVramConfig.class, Set.of("streams"), MeshOptions.class, Set.of());

	private static final Map<Class<? extends Record>, String> PREFIXES = Map.of(ExecutorForRamConfig.class,
			"uform.ram", ExecutorForVramConfig.class, "uform.vram", MeshOptions.class, "uform.mesh");

	@Test
	void everyFieldOfTheConfigRecordsIsOneTheBlameCanName() throws IOException {
		Set<String> properties = new HashSet<>();
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			for (JsonNode property : JsonMapper.builder().build().readTree(in).get("properties")) {
				properties.add(property.get("name").asString());
			}
		}
		PREFIXES.forEach((config, prefix) -> {
			assertThat(config.getRecordComponents()).as("%s's fields", config.getSimpleName()).isNotEmpty();
			for (RecordComponent field : config.getRecordComponents()) {
				assertThat(ConfigFieldBlame.component(config, field.getName())).extracting(RecordComponent::getName)
					.isEqualTo(field.getName());
				String property = prefix + "." + DataObjectPropertyName.toDashedForm(field.getName());
				assertThat(properties.contains(property) || SET_ONLY_IN_CODE.get(config).contains(field.getName()))
					.as("%s.%s is set by %s or only in code", config.getSimpleName(), field.getName(), property)
					.isTrue();
			}
		});
		assertThat(ConfigFieldBlame.component(MeshOptions.class, "noSuchField")).isNull();
	}
}
