package io.uform.sample.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Grafana dashboard as exported JSON, read for what a check against Prometheus needs: its
 * template variables in order, and every panel's PromQL targets, those of panels inside collapsed
 * rows included (Grafana nests those under the row's own {@code panels}).
 *
 * @param file the file name, for messages
 * @param title the dashboard's title
 * @param variables {@code templating.list}, in the order Grafana resolves them
 * @param panels every panel that is not a row, in the file's order
 */
record GrafanaDashboard(String file, String title, List<Variable> variables, List<Panel> panels) {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * A template variable.
	 *
	 * @param name what {@code $name} refers to
	 * @param type {@code query}, {@code datasource}, {@code custom}, {@code constant}, ...
	 * @param query the variable's query: PromQL such as {@code label_values(up, instance)} for a
	 *        query variable, the comma-separated options of a custom one
	 * @param regex Grafana's filter on the values, {@code /pattern/}; empty for none
	 * @param multi whether several values may be selected at once
	 * @param includeAll whether it offers "All"
	 * @param allValue what "All" stands for where set (such as {@code .*}); empty for the values joined
	 */
	record Variable(String name, String type, String query, String regex, boolean multi, boolean includeAll,
			String allValue) {
	}

	/**
	 * A panel's query.
	 *
	 * @param refId its letter within the panel
	 * @param expr the PromQL, with the dashboard's variables still in it
	 */
	record Target(String refId, String expr) {
	}

	/**
	 * A panel that shows data.
	 *
	 * @param title its title
	 * @param description its description (where a panel says it shows only on real GPUs)
	 * @param targets its PromQL targets
	 */
	record Panel(String title, String description, List<Target> targets) {
	}

	/**
	 * Reads every {@code *.json} in a directory.
	 * @param directory the directory
	 * @return the dashboards, by file name
	 * @throws IOException when the directory or a file cannot be read
	 */
	static List<GrafanaDashboard> readAll(Path directory) throws IOException {
		List<GrafanaDashboard> dashboards = new ArrayList<>();
		try (Stream<Path> files = Files.list(directory)) {
			List<Path> json = files.filter((path) -> path.getFileName().toString().endsWith(".json")).sorted().toList();
			for (Path file : json) {
				dashboards.add(read(file));
			}
		}
		return dashboards;
	}

	/**
	 * Reads one dashboard.
	 * @param file its JSON
	 * @return the dashboard
	 * @throws IOException when the file cannot be read
	 */
	static GrafanaDashboard read(Path file) throws IOException {
		JsonNode root = JSON.readTree(Files.readString(file));
		// An export "for sharing externally" wraps nothing, but an API export wraps it in {"dashboard": ...}.
		JsonNode dashboard = root.has("dashboard") ? root.path("dashboard") : root;
		List<Variable> variables = new ArrayList<>();
		for (JsonNode variable : dashboard.path("templating").path("list")) {
			variables.add(new Variable(variable.path("name").asString(""), variable.path("type").asString(""),
					query(variable), variable.path("regex").asString(""), variable.path("multi").asBoolean(false),
					variable.path("includeAll").asBoolean(false), variable.path("allValue").asString("")));
		}
		List<Panel> panels = new ArrayList<>();
		collectPanels(dashboard.path("panels"), panels);
		return new GrafanaDashboard(file.getFileName().toString(), dashboard.path("title").asString(""),
				List.copyOf(variables), List.copyOf(panels));
	}

	/**
	 * A variable's query: a string in older dashboards, {@code {"query": "...", "refId": ...}} in
	 * those Grafana 9+ saves; {@code definition} repeats it as the editor shows it.
	 */
	private static String query(JsonNode variable) {
		JsonNode query = variable.path("query");
		if (query.isObject()) {
			query = query.path("query");
		}
		String text = query.asString("");
		return text.isBlank() ? variable.path("definition").asString("") : text;
	}

	/** Walks panels, and the panels a collapsed row holds; a row itself has no targets. */
	private static void collectPanels(JsonNode nodes, List<Panel> into) {
		for (JsonNode panel : nodes) {
			if (!"row".equals(panel.path("type").asString(""))) {
				List<Target> targets = new ArrayList<>();
				for (JsonNode target : panel.path("targets")) {
					String expr = target.path("expr").asString("");
					if (!expr.isBlank()) {
						targets.add(new Target(target.path("refId").asString("?"), expr));
					}
				}
				into.add(new Panel(panel.path("title").asString(""), panel.path("description").asString(""),
						List.copyOf(targets)));
			}
			collectPanels(panel.path("panels"), into);
		}
	}

	/**
	 * A variable by name.
	 * @param name its name
	 * @return {@code true} when the dashboard defines it
	 */
	boolean hasVariable(String name) {
		return this.variables.stream().anyMatch((variable) -> variable.name().equals(name));
	}
}
