package io.uform.sample.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Grafana does with the dashboard and provisioning files beyond their queries (which
 * {@link DashboardsAgainstPrometheusTest} runs), for the choices that Grafana makes silently and a
 * real Grafana is not at hand to show: which datasource a dashboard opens on, how GPU ordinals sort,
 * and which existing datasource the provisioning file would overwrite.
 */
class GrafanaFilesTest {

	private static final Path GRAFANA = Path.of("..", "docs", "grafana");

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Test
	void theDatasourceVariableOpensOnTheDefaultDatasourceAndGpusSortAsNumbers() throws IOException {
		for (String file : List.of("uform-executors.json", "uform-devices.json")) {
			JsonNode variables = JSON.readTree(GRAFANA.resolve(file).toFile()).path("templating").path("list");
			for (JsonNode variable : variables) {
				String name = variable.path("name").asString("");
				if (name.equals("datasource")) {
					// An empty current value opens on the first datasource by name (grafana/grafana#20998),
					// whatever the default is; only "default" follows Grafana's default datasource.
					assertThat(variable.path("current").path("value").asString("")).as(file + " datasource")
						.isEqualTo("default");
					assertThat(variable.path("current").path("text").asString("")).isEqualTo("default");
				}
				if (name.equals("device")) {
					// 1 sorts 0, 1, 10, 11, 2, ...; 3 is numerical ascending.
					assertThat(variable.path("sort").asInt()).as(file + " device sort").isEqualTo(3);
				}
			}
		}
	}

	@Test
	void theProvisionedDatasourceHasANameAndUidOfItsOwn() throws IOException {
		Path file = GRAFANA.resolve("provisioning/datasources/uform-prometheus.yaml");
		Map<String, Object> yaml = new Yaml().load(Files.readString(file));
		@SuppressWarnings("unchecked")
		List<Map<String, Object>> datasources = (List<Map<String, Object>>) yaml.get("datasources");
		assertThat(datasources).hasSize(1);
		// Grafana updates an existing datasource of the same name: "Prometheus" is what the UI calls one.
		assertThat(datasources.get(0).get("name")).isEqualTo("uform Prometheus");
		assertThat(datasources.get(0).get("uid")).isEqualTo("uform-prometheus");
		assertThat(datasources.get(0).get("isDefault")).isEqualTo(false);
	}
}
