package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the Lifecycle table of {@code docs/configuration.md} honest: in a real application (embedded
 * Tomcat on a free port, both uform executors on this module's simulated devices, a mesh of one, and an
 * executor bean of the application's own, {@code reranker}) every bean a row with a phase names is a
 * {@link SmartLifecycle} whose {@link SmartLifecycle#getPhase() phase} is the documented one, the rows
 * come in the order Spring stops them (highest phase first), and every uform lifecycle bean has a row.
 * {@code <name>Lifecycle} in the table stands for the application's executor, here
 * {@code rerankerLifecycle}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformLifecycleDocumentationTest {

	/** Surefire runs in the module's directory; the docs sit beside it. */
	private static final Path DOC = Path.of("..", "docs", "configuration.md");

	private static final Pattern PHASE = Pattern.compile("`Integer\\.MAX_VALUE(?:\\s*-\\s*(\\d+))?`");

	private static final Pattern BEAN = Pattern.compile("`([A-Za-z<>]+)`");

	private static List<Row> rows;

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void startTheApplication() {
		context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.SERVLET)
			.registerShutdownHook(false)
			.properties("server.port=0", "server.address=127.0.0.1", "uform.ram.threads=1",
					"uform.mesh.host-domain-count=1", "spring.main.banner-mode=off")
			.run();
	}

	@AfterAll
	static void closeTheApplication() {
		if (context != null) {
			context.close();
		}
	}

	@BeforeAll
	static void readTheTable() throws IOException {
		String doc = Files.readString(DOC);
		int section = doc.indexOf("\n## Lifecycle\n");
		assertThat(section).as("a Lifecycle section in %s", DOC).isNotNegative();
		rows = new ArrayList<>();
		boolean header = true;
		for (String line : doc.substring(section + 1).lines().skip(1).toList()) {
			if (line.startsWith("## ")) {
				break;
			}
			if (!line.startsWith("|")) {
				continue;
			}
			if (header) {
				assertThat(line).as("the Lifecycle table's header").startsWith("| when | phase | bean |");
				header = false;
				continue;
			}
			String[] cells = line.split("\\|");
			if (cells.length < 5 || cells[2].isBlank() || cells[2].contains("---")) {
				continue;
			}
			Matcher phase = PHASE.matcher(cells[2]);
			assertThat(phase.find()).as("a phase like `Integer.MAX_VALUE - 1024` in: %s", line).isTrue();
			int phaseValue = Integer.MAX_VALUE - ((phase.group(1) != null) ? Integer.parseInt(phase.group(1)) : 0);
			List<String> beans = new ArrayList<>();
			Matcher bean = BEAN.matcher(cells[3]);
			while (bean.find()) {
				beans.add(bean.group(1).replace("<name>", "reranker"));
			}
			beans.removeIf((name) -> !name.endsWith("Lifecycle") && !name.startsWith("webServer"));
			assertThat(beans).as("the beans of: %s", line).isNotEmpty();
			rows.add(new Row(cells[1].strip(), phaseValue, beans));
		}
	}

	@Test
	void everyRowWithAPhaseNamesBeansOfThatPhaseInTheOrderSpringStopsThem() {
		assertThat(rows).extracting(Row::phase).as("phases down the table").isSortedAccordingTo(Comparator.reverseOrder());
		Map<String, Integer> phases = new TreeMap<>();
		context.getBeansOfType(SmartLifecycle.class, false, false)
			.forEach((name, lifecycle) -> phases.put(name, lifecycle.getPhase()));
		for (Row row : rows) {
			for (String bean : row.beans()) {
				assertThat(phases).as("the lifecycle beans of the application, for the row '%s'", row.when())
					.containsEntry(bean, row.phase());
			}
		}
	}

	@Test
	void everyUformLifecycleBeanHasARow() {
		List<String> documented = rows.stream().flatMap((row) -> row.beans().stream()).toList();
		List<String> uform = context.getBeansOfType(SmartLifecycle.class, false, false)
			.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().getClass().getName().startsWith("io.uform."))
			.map(Map.Entry::getKey)
			.toList();
		assertThat(uform).as("uform's lifecycle beans").contains("uformMeshLifecycle", "rerankerLifecycle");
		assertThat(documented).as("beans in the Lifecycle table of %s", DOC).containsAll(uform);
	}

	/**
	 * A row of the table that has a phase.
	 * @param when its first cell
	 * @param phase its phase
	 * @param beans the lifecycle beans it names
	 */
	private record Row(String when, int phase, List<String> beans) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean(defaultCandidate = false)
		Executor reranker() {
			return Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		}
	}
}
