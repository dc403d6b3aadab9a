package io.uform.sample.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.PatternSyntaxException;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import io.uform.onnxruntime.TextEmbeddingModel;
import io.uform.sample.SampleApplication;
import io.uform.sample.search.PassageIndex;
import io.uform.sample.e2e.GrafanaDashboard.Panel;
import io.uform.sample.e2e.GrafanaDashboard.Target;
import io.uform.sample.e2e.GrafanaDashboard.Variable;
import io.uform.sample.e2e.TemplateVariables.LabelValuesQuery;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboards in {@code docs/grafana} work against a real Prometheus scraping the sample:
 * the application runs here with both executors (on the two simulated devices the build gives every
 * test JVM) and a mesh of one, a Prometheus child process scrapes its {@code /actuator/prometheus}
 * every second while the sample's load script searches on every engine, and then every variable query of every
 * dashboard must list values and every panel query must parse and return a number. A misspelt metric,
 * a label the meters do not carry, or a selector that matches nothing fails here, not on a user's
 * Grafana. Panels that only real GPUs (or NVIDIA's DCGM exporter) can fill are checked to parse only,
 * as are the PromQL examples of {@code docs/actuator.md}.
 *
 * <p>Needs the {@code prometheus} executable ({@code apt-get install prometheus}; CI installs it);
 * without it the Prometheus check is skipped, with that reason.
 */
@SpringBootTest(classes = SampleApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.vectors.enabled=true", "sample.vectors.rows=20000", "uform.mesh.host-domain-count=1", "uform.vram.scratch-limit=256MB",
				"management.endpoints.web.exposure.include=health,info,uform,prometheus", "uform.ram.threads=2" })
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DashboardsAgainstPrometheusTest {

	/** Relative to the module, where Maven runs its tests. */
	private static final Path DASHBOARDS = Path.of("..", "docs", "grafana");

	/** The Actuator and metrics page, whose PromQL examples must parse too. */
	private static final Path METRICS_DOC = Path.of("..", "docs", "actuator.md");

	/** The dashboards the docs ship: the check must not pass on an empty directory. */
	private static final Set<String> SHIPPED = Set.of("uform-executors.json", "uform-devices.json",
			"uform-models.json");

	/** Every dashboard filters by these; the devices dashboard by {@code device} too. */
	private static final List<String> VARIABLES = List.of("datasource", "application", "instance", "executor");

	/** Prometheus' output, kept after the test for a failure's full story. */
	private static final Path PROMETHEUS_LOG = Path.of("target", "e2e-prometheus", "prometheus.log");

	/**
	 * Every engine the sample serves with a VRAM executor: the RAM executor, the VRAM one, the JDK's common
	 * pool, on the synthetic vectors; and text, questions embedded by the model and scanned over the passages.
	 */
	private static final List<String> ENGINES = List.of("ram", "vram", "parallel-stream", "text");

	/**
	 * Rounds of the load script: one second per engine and round after a second's warm-up each, so 12 s
	 * of 1 s scrapes under load; a {@code rate()} over 10 s needs two.
	 */
	private static final int LOAD_ROUNDS = 3;

	/** The load script's output, kept after the test. */
	private static final Path LOAD_OUTPUT = Path.of("target", "e2e-prometheus", "load.txt");

	/** Marks a panel that only a real GPU fills: a simulated device reports memory and nothing else. */
	private static final String REAL_GPUS_ONLY = "Real GPUs only:";

	@Value("${local.server.port}")
	int port;

	@Autowired
	PassageIndex index;

	/**
	 * The sample's second model (the searches embed with the first): the models dashboard reads the
	 * meters of both.
	 */
	@Autowired
	@Qualifier("all-minilm-l6-v2EmbeddingModel")
	TextEmbeddingModel model;

	@Test
	void everyDashboardHasPanelsAndTheVariablesItFiltersBy() throws IOException {
		List<GrafanaDashboard> dashboards = GrafanaDashboard.readAll(DASHBOARDS);
		assertThat(dashboards).extracting(GrafanaDashboard::file)
			.as("dashboards in %s", DASHBOARDS)
			.containsAll(SHIPPED);
		for (GrafanaDashboard dashboard : dashboards) {
			List<String> required = new ArrayList<>(VARIABLES);
			if (dashboard.file().equals("uform-devices.json")) {
				required.add("device");
			}
			assertThat(dashboard.variables()).extracting(Variable::name)
				.as("variables of %s", dashboard.file())
				.containsAll(required);
			assertThat(dashboard.panels()).as("panels of %s", dashboard.file()).isNotEmpty();
		}
		assertThat(dashboards.stream().flatMap((dashboard) -> dashboard.panels().stream()))
			.flatExtracting(Panel::targets)
			.as("PromQL targets in all dashboards")
			.isNotEmpty();
	}

	@Test
	void everyVariableAndPanelQueryAnswersFromAPrometheusScrapingTheApplication() throws Exception {
		Optional<Path> binary = PrometheusServer.locate();
		if (binary.isEmpty()) {
			// Surefire's console shows an aborted test as skipped without its reason: say it here too.
			String reason = "Prometheus not installed: apt-get install prometheus; .ci/run installs it";
			System.out.println("[dashboards] skipped: " + reason);
			Assumptions.abort(reason);
		}
		List<GrafanaDashboard> dashboards = GrafanaDashboard.readAll(DASHBOARDS);
		assertThat(dashboards).as("dashboards in %s", DASHBOARDS).isNotEmpty();
		try (PrometheusServer prometheus = PrometheusServer.start(binary.get(), this.port, PROMETHEUS_LOG)) {
			try {
				checkUnderLoad(dashboards, prometheus);
			}
			catch (Throwable ex) {
				// Whatever failed, Prometheus' own account of its start and scrapes may say why.
				System.out.println("[dashboards] failed with " + prometheus + prometheus.logTail());
				throw ex;
			}
		}
	}

	/** Scrapes the application under load, then evaluates every dashboard at one instant. */
	private void checkUnderLoad(List<GrafanaDashboard> dashboards, PrometheusServer prometheus)
			throws IOException, InterruptedException {
		prometheus.awaitReady(Duration.ofSeconds(30));
		prometheus.awaitTargetUp(Duration.ofSeconds(30));
		// The text engine's searches are refused (503) until the passages are indexed.
		long indexDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!this.index.ready() && System.nanoTime() < indexDeadline) {
			Thread.sleep(20);
		}
		assertThat(this.index.ready()).as("passage index built within 30 s").isTrue();
		Instant loadStart = Instant.now();
		String load = whileTheModelEmbeds(() -> LoadScript.run(this.port, ENGINES, LOAD_ROUNDS, LOAD_OUTPUT));
		System.out.println("[dashboards] the load script printed:\n" + load);
		assertThat(load).as("the load script's table").contains("ram vs vram: throughput x")
			.contains("ram vs parallel-stream: throughput x")
			.contains("ram vs text: throughput x");
		// Scrapes that saw the load, and one after it ended, so that the last 10 s are all load.
		prometheus.awaitScrapes(loadStart, 3, Duration.ofSeconds(15));
		prometheus.awaitScrapes(Instant.now(), 1, Duration.ofSeconds(15));
		// Every query at the same instant, so a slow check cannot slide the windows past the load.
		Instant at = Instant.now();
		List<String> failures = new ArrayList<>();
		for (GrafanaDashboard dashboard : dashboards) {
			check(dashboard, prometheus, at, failures);
		}
		checkDocumented(prometheus, at, failures);
		assertThat(failures).withFailMessage(() -> failures.size() + " dashboard queries fail against " + prometheus
				+ " scraping the application under load:\n" + String.join("\n", failures))
			.isEmpty();
	}

	/** Runs the load with the second model embedding beside it, so that its meters move too. */
	private String whileTheModelEmbeds(Callable<String> load) throws IOException, InterruptedException {
		AtomicBoolean loading = new AtomicBoolean(true);
		Thread embedding = new Thread(() -> {
			while (loading.get()) {
				this.model.embed(List.of("How many threads does an executor own?", "A model owns its weights."));
				LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
			}
		}, "dashboards-model-load");
		embedding.start();
		try {
			return load.call();
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			loading.set(false);
			embedding.join(Duration.ofSeconds(10).toMillis());
		}
	}

	/** Resolves the dashboard's variables in order, then evaluates every target with them. */
	private static void check(GrafanaDashboard dashboard, PrometheusServer prometheus, Instant at,
			List<String> failures) {
		TemplateVariables variables = new TemplateVariables();
		for (Variable variable : dashboard.variables()) {
			String failure = define(dashboard.file(), variable, variables, prometheus);
			if (failure != null) {
				failures.add(dashboard.file() + ", variable $" + variable.name() + ": " + failure);
			}
		}
		int checked = 0;
		int emptyOptional = 0;
		for (Panel panel : dashboard.panels()) {
			for (Target target : panel.targets()) {
				checked++;
				String where = dashboard.file() + ", panel \"" + panel.title() + "\", refId " + target.refId();
				String expression = variables.substitute(target.expr());
				// On one line in the messages; Prometheus gets the expression as the dashboard wrote it.
				String shown = expression.strip().replaceAll("\\s+", " ");
				List<String> unresolved = variables.unresolved(expression);
				if (!unresolved.isEmpty()) {
					failures.add(where + ": " + shown + "\n    -> " + unresolved
							+ " not defined, or defined with no value (see the variable's own failure)");
					continue;
				}
				QueryResult result = prometheus.query(expression, at);
				String optional = optionalReason(panel, expression);
				if (!result.success()) {
					failures.add(where + ": " + shown + "\n    -> " + result.describe());
				}
				else if (!result.hasNumber()) {
					if (optional != null) {
						emptyOptional++;
						System.out.println(
								"[dashboards] optional, no data: " + where + " (" + optional + "): " + shown);
					}
					else {
						failures.add(where + ": " + shown + "\n    -> " + result.describe());
					}
				}
			}
		}
		System.out.println("[dashboards] " + dashboard.file() + ": " + dashboard.variables().size() + " variables, "
				+ dashboard.panels().size() + " panels, " + checked + " targets evaluated, " + emptyOptional
				+ " of them optional and empty here");
	}

	/**
	 * The PromQL that docs/actuator.md shows must parse: a reader copies it into Prometheus or Grafana.
	 * Parse only: some of it joins DCGM's series or needs a scratch limit, which are not here.
	 */
	private static void checkDocumented(PrometheusServer prometheus, Instant at, List<String> failures)
			throws IOException {
		List<String> documented = DocumentedQueries.read(METRICS_DOC);
		assertThat(documented).as("PromQL expressions in %s", METRICS_DOC).hasSizeGreaterThanOrEqualTo(8);
		for (String expression : documented) {
			QueryResult result = prometheus.query(expression, at);
			if (!result.success()) {
				failures.add(METRICS_DOC + ": " + expression.replaceAll("\\s+", " ") + "\n    -> " + result.describe());
			}
		}
		System.out.println("[dashboards] " + METRICS_DOC + ": " + documented.size() + " PromQL expressions parsed");
	}

	/**
	 * Why a target may come back empty here, or {@code null} when it must not: there is no DCGM exporter
	 * on a build machine, and a simulated device reports memory only.
	 */
	private static String optionalReason(Panel panel, String expression) {
		if (expression.contains("DCGM_FI_")) {
			return "no DCGM exporter here";
		}
		if (panel.description().startsWith(REAL_GPUS_ONLY)) {
			return "simulated devices report no utilisation/power/temperature";
		}
		return null;
	}

	/**
	 * Gives one variable its values, as Grafana would list them.
	 * @return why it cannot have any, or {@code null}
	 */
	private static String define(String file, Variable variable, TemplateVariables variables,
			PrometheusServer prometheus) {
		switch (variable.type()) {
			case "datasource":
				// Only ever in a panel's data source, which is this one Prometheus here.
				return null;
			case "query": {
				Optional<LabelValuesQuery> query = TemplateVariables.labelValues(variable.query());
				if (query.isEmpty()) {
					return "query " + variable.query()
							+ " is not label_values(selector, label), the one kind this test evaluates";
				}
				String selector = variables.substitute(query.get().selector());
				List<String> unresolved = variables.unresolved(selector);
				if (!unresolved.isEmpty()) {
					return "selector " + selector + " uses undefined or later variables " + unresolved;
				}
				SortedSet<String> found;
				try {
					found = prometheus.labelValues(selector, query.get().label());
				}
				catch (IllegalArgumentException ex) {
					return "label_values(" + selector + ", " + query.get().label() + ") -> error " + ex.getMessage();
				}
				List<String> values;
				try {
					values = TemplateVariables.filter(List.copyOf(found), variable.regex());
				}
				catch (PatternSyntaxException ex) {
					return "regex " + variable.regex() + " does not compile: " + ex.getDescription();
				}
				if (values.isEmpty()) {
					return "label_values(" + selector + ", " + query.get().label() + ") -> no values"
							+ (found.isEmpty() ? "" : " after regex " + variable.regex() + " (before: " + found + ")");
				}
				System.out.println("[dashboards] " + file + ": $" + variable.name() + " = " + values);
				variables.define(variable, values);
				return null;
			}
			case "custom":
			case "interval": {
				// "a,b" or "text : value,..."; Grafana shows the first by default.
				List<String> options = Arrays.stream(variable.query().split(","))
					.map((option) -> option.contains(" : ") ? option.substring(option.indexOf(" : ") + 3) : option)
					.map(String::trim)
					.filter((option) -> !option.isEmpty())
					.toList();
				if (options.isEmpty()) {
					return "no options in " + variable.query();
				}
				variables.define(variable, options);
				return null;
			}
			case "constant":
			case "textbox":
				variables.define(variable, List.of(variable.query()));
				return null;
			default:
				return "type " + variable.type() + " is not one this test evaluates";
		}
	}
}
