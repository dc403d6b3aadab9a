package io.uform.sample.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Grafana does with the dashboard and provisioning files beyond their queries (which
 * {@link DashboardsAgainstPrometheusTest} runs), for the choices that Grafana makes silently and a
 * real Grafana is not at hand to show: which datasource a dashboard opens on and every panel queries,
 * how GPU ordinals sort, the schema version, the rate windows, a layout without overlaps, that every
 * metric a panel reads is one uform documents (so a misspelt name on a panel only a real GPU fills
 * fails here), and which existing datasource the provisioning file would overwrite.
 */
class GrafanaFilesTest {

	private static final Path GRAFANA = Path.of("..", "docs", "grafana");

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Test
	void theDatasourceVariableOpensOnTheDefaultDatasourceAndGpusSortAsNumbers() throws IOException {
		for (String file : DASHBOARDS) {
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

	private static final List<String> DASHBOARDS = List.of("uform-executors.json", "uform-devices.json",
			"uform-models.json");

	/**
	 * Schema version 42 is the last of Grafana's v1 dashboard model (Grafana 12.2 and newer); its one
	 * migration sets tooltip hiding beside {@code custom.hideFrom} overrides, which these files do not
	 * use, so a Grafana that knows only 41 loses nothing.
	 */
	@Test
	void theSchemaVersionIsTheLastOfGrafanasDashboardModel() throws IOException {
		for (String file : DASHBOARDS) {
			String text = Files.readString(GRAFANA.resolve(file));
			assertThat(JSON.readTree(text).path("schemaVersion").asInt()).as(file).isEqualTo(42);
			assertThat(text).as(file).doesNotContain("custom.hideFrom");
		}
	}

	@Test
	void everyPanelAndQueryReadsThroughTheDatasourceVariable() throws IOException {
		for (String file : DASHBOARDS) {
			for (JsonNode panel : panels(file)) {
				if (panel.path("type").asString("").equals("row")) {
					continue;
				}
				String title = file + " panel '" + panel.path("title").asString("") + "'";
				assertThat(panel.path("datasource").path("uid").asString("")).as(title).isEqualTo("${datasource}");
				for (JsonNode target : panel.path("targets")) {
					assertThat(target.path("datasource").path("uid").asString("")).as(title + " target")
						.isEqualTo("${datasource}");
				}
			}
		}
	}

	@Test
	void everyRangeOfARateIsTheRateInterval() throws IOException {
		Pattern range = Pattern.compile("\\b(rate|irate|increase)\\((?:[^()\\[]|\\([^()]*\\))*\\[([^\\]]*)\\]");
		int rates = 0;
		for (String file : DASHBOARDS) {
			for (String expression : expressions(file)) {
				for (Matcher found = range.matcher(expression); found.find(); rates++) {
					assertThat(found.group(2)).as("%s: %s", file, expression).isEqualTo("$__rate_interval");
				}
			}
		}
		assertThat(rates).as("rate() calls in the dashboards").isPositive();
	}

	@Test
	void panelsFitTheGridWithoutOverlapping() throws IOException {
		for (String file : DASHBOARDS) {
			List<int[]> boxes = new ArrayList<>();
			for (JsonNode panel : panels(file)) {
				JsonNode grid = panel.path("gridPos");
				int[] box = { grid.path("x").asInt(), grid.path("y").asInt(), grid.path("w").asInt(), grid.path("h").asInt() };
				String title = file + " panel '" + panel.path("title").asString("") + "'";
				assertThat(box[2]).as(title + " width").isPositive();
				assertThat(box[3]).as(title + " height").isPositive();
				assertThat(box[0] + box[2]).as(title + " right edge").isLessThanOrEqualTo(24);
				for (int[] other : boxes) {
					boolean apart = box[0] + box[2] <= other[0] || other[0] + other[2] <= box[0] || box[1] + box[3] <= other[1]
							|| other[1] + other[3] <= box[1];
					assertThat(apart).as(title + " overlaps the panel at x=%d y=%d", other[0], other[1]).isTrue();
				}
				boxes.add(box);
			}
		}
	}

	@Test
	void everyUformMetricAPanelReadsIsDocumented() throws IOException {
		Set<String> documented = documentedPrometheusNames();
		Pattern metric = Pattern.compile("\\b((?:uform|executor)_[a-z_]+)");
		Set<String> used = new TreeSet<>();
		for (String file : DASHBOARDS) {
			for (String expression : expressions(file)) {
				for (Matcher found = metric.matcher(expression); found.find();) {
					used.add(found.group(1));
				}
			}
		}
		assertThat(used).as("uform metrics the dashboards read").contains("uform_gpu_power_watts")
			.allSatisfy((name) -> assertThat(documented).as("docs/actuator.md's Prometheus names").contains(name));
	}

	/**
	 * The Prometheus names of the meter tables of docs/actuator.md (its "## Metrics" section, whose only tables they
	 * are), with "`x_count`, `_sum`" expanded.
	 */
	private static Set<String> documentedPrometheusNames() throws IOException {
		String page = Files.readString(GRAFANA.resolve("../actuator.md"));
		assertThat(page).as("docs/actuator.md has a metrics section").contains("\n## Metrics\n");
		String docs = page.substring(page.indexOf("\n## Metrics\n"));
		Set<String> names = new TreeSet<>();
		Matcher row = Pattern.compile("(?m)^\\| `[a-z.]+`(?:, `[a-z.]+`)? \\| ([^|]+) \\|").matcher(docs);
		while (row.find()) {
			String previous = null;
			for (Matcher name = Pattern.compile("`([a-z_]+)`").matcher(row.group(1)); name.find();) {
				String found = name.group(1);
				if (found.startsWith("_") && previous != null) {
					found = previous.substring(0, previous.lastIndexOf('_')) + found;
				}
				names.add(found);
				previous = found;
			}
		}
		return names;
	}

	/** Every panel of a dashboard, those inside collapsed rows too. */
	private static List<JsonNode> panels(String file) throws IOException {
		List<JsonNode> panels = new ArrayList<>();
		for (JsonNode panel : JSON.readTree(GRAFANA.resolve(file).toFile()).path("panels")) {
			panels.add(panel);
			panel.path("panels").forEach(panels::add);
		}
		return panels;
	}

	/** Every PromQL expression of a dashboard: its panels' and its query variables'. */
	private static List<String> expressions(String file) throws IOException {
		List<String> expressions = new ArrayList<>();
		for (JsonNode panel : panels(file)) {
			for (JsonNode target : panel.path("targets")) {
				expressions.add(target.path("expr").asString(""));
			}
		}
		for (JsonNode variable : JSON.readTree(GRAFANA.resolve(file).toFile()).path("templating").path("list")) {
			JsonNode query = variable.path("query");
			expressions.add(query.isObject() ? query.path("query").asString("") : query.asString(""));
		}
		return expressions;
	}

	@Test
	void theProvisionedDatasourceHasANameAndUidOfItsOwn() throws IOException {
		List<Map<String, Object>> datasources = provisionedDatasources();
		assertThat(datasources).hasSize(1);
		// Grafana updates an existing datasource of the same name: "Prometheus" is what the UI calls one.
		assertThat(datasources.get(0).get("name")).isEqualTo("uform Prometheus");
		assertThat(datasources.get(0).get("uid")).isEqualTo("uform-prometheus");
		assertThat(datasources.get(0).get("isDefault")).isEqualTo(false);
	}

	@Test
	void theProvisionedDatasourceTakesItsUrlFromTheEnvironmentSoTheFileIsUsedAsItIs() throws IOException {
		List<Map<String, Object>> datasources = provisionedDatasources();
		// Grafana expands ${VAR} in provisioning files; docs/dashboards.md tells the reader to set it.
		assertThat(datasources.get(0).get("url")).isEqualTo("${UFORM_PROMETHEUS_URL}");
		assertThat(Files.readString(GRAFANA.resolve("../dashboards.md"))).contains("UFORM_PROMETHEUS_URL=");
	}

	/** The datasources of the provisioning file, as Grafana reads them. */
	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> provisionedDatasources() throws IOException {
		Path file = GRAFANA.resolve("provisioning/datasources/uform-prometheus.yaml");
		Map<String, Object> yaml = new Yaml().load(Files.readString(file));
		return (List<Map<String, Object>>) yaml.get("datasources");
	}
}
