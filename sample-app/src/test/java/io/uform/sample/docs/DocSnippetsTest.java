package io.uform.sample.docs;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.uform.sample.SampleApplication;
import io.uform.spring.autoconfigure.UformProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every command and snippet of {@code README.md} and {@code docs/getting-started.md} works against this build, so that
 * the two pages a newcomer reads first cannot drift from the code. Every fenced block of the two pages is checked;
 * a block in a language this test has no rule for fails it, as does a command it has no rule for.
 * <ul>
 * <li><b>Java</b> blocks are compiled, all of a page's together, with the JDK's compiler against this module's test
 * class path: the jars of uform and of the Spring Boot application the page builds.</li>
 * <li><b>YAML</b> blocks that configure an application are read by Boot's YAML loader. Their {@code uform.*} keys
 * are bound by Boot's {@link Binder} into the starter's {@link UformProperties}, where an unknown key or a value
 * of the wrong type fails. Every other key, {@code uform.devices.*} included (read by the starter outside the
 * binder), must be a property of the configuration metadata on the class path. A block with
 * {@code scrape_configs} is a Prometheus configuration, checked by {@code promtool check config}.</li>
 * <li><b>XML</b> blocks are parsed. A whole {@code pom.xml} must have Spring Boot's parent at this build's Boot
 * version and only dependencies and plugins the sample app's {@code pom.xml} (the page as a working project) has,
 * uform's at this build's version. In a fragment, each element with text must appear, with that text, in the
 * sample app's {@code pom.xml}, except a {@code version}, which must be this build's.</li>
 * <li><b>Shell</b> commands. Executed: every {@code curl}, against the sample app started in this JVM with the
 * arguments of the page's {@code java -jar} command (on a free port; the model is not loaded and the synthetic
 * corpus is small, since no executed command needs more). Each must exit 0, print something, and its URL must
 * answer 200. Checked, not executed, because they build the whole project or start a long-lived process:
 * {@code ./mvnw} (its modules, profiles, phases and goals exist; the README's test command is the one
 * {@code .ci/run} runs), {@code java -jar} (the jar is the name the module's build gives it), {@code prometheus}
 * (its configuration file is a block of the page that {@code promtool} accepts) and scripts (they exist and are
 * executable).</li>
 * </ul>
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DocSnippetsTest {

	/** Surefire runs in the module's directory; the repository is its parent. */
	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final List<String> PAGES = List.of("README.md", "docs/getting-started.md");

	private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");

	private static final Set<String> PHASES = Set.of("clean", "validate", "compile", "test", "package", "verify",
			"install", "spring-boot:run");

	private static final Set<String> APPLICATION_ROOTS = Set.of("spring", "management", "uform", "server", "logging");

	private static ConfigurableApplicationContext sample;

	private static int port;

	@BeforeAll
	static void startTheSampleAsThePagesRunIt() throws IOException {
		List<String> args = new ArrayList<>();
		for (String page : PAGES) {
			for (String line : commands(page)) {
				for (String command : line.split("\\s*&&\\s*")) {
					if (command.startsWith("java -jar ")) {
						List<String> words = List.of(command.split("\\s+"));
						args.addAll(words.subList(3, words.size()));
					}
				}
			}
		}
		// On a free port; without the model (no executed command needs it, and it takes a minute to load)
		// and with a small synthetic corpus.
		args.addAll(List.of("--server.port=0", "--sample.embedding.enabled=false", "--sample.vectors.rows=2000"));
		sample = new SpringApplicationBuilder(SampleApplication.class).run(args.toArray(String[]::new));
		port = Integer.parseInt(sample.getEnvironment().getProperty("local.server.port"));
	}

	@AfterAll
	static void stopTheSample() {
		if (sample != null) {
			sample.close();
		}
	}

	@Test
	void everyBlockIsInALanguageThatIsChecked() throws IOException {
		for (String page : PAGES) {
			List<Block> blocks = blocks(page);
			assertThat(blocks).as("code blocks of %s", page).isNotEmpty();
			for (Block block : blocks) {
				assertThat(block.language()).as("%s: the language of the block at line %d", page, block.line())
					.isIn("bash", "java", "yaml", "xml");
			}
		}
	}

	@Test
	void theJavaCompilesAgainstTheBuiltJars() throws IOException {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		assertThat(compiler).as("the JDK's compiler").isNotNull();
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		int compiled = 0;
		for (String page : PAGES) {
			List<JavaFileObject> units = new ArrayList<>();
			for (Block block : blocks(page)) {
				if (block.language().equals("java")) {
					units.add(new Snippet(page, block));
				}
			}
			if (units.isEmpty()) {
				continue;
			}
			Path out = Files.createTempDirectory("doc-snippets");
			DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
			try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
					StandardCharsets.UTF_8)) {
				List<String> options = List.of("-classpath", classPath, "-d", out.toString(), "-proc:none",
						"--release", "17");
				boolean ok = compiler.getTask(new StringWriter(), files, diagnostics, options, null, units).call();
				String report = diagnostics.getDiagnostics()
					.stream()
					.map((diagnostic) -> diagnostic.getSource().getName() + ":" + diagnostic.getLineNumber() + ": "
							+ diagnostic.getMessage(Locale.ROOT))
					.collect(Collectors.joining("\n"));
				assertThat(ok).as("the Java of %s compiles:\n%s", page, report).isTrue();
			}
			compiled += units.size();
		}
		assertThat(compiled).as("Java blocks compiled").isGreaterThanOrEqualTo(2);
	}

	@Test
	void theApplicationYamlBindsToPropertiesThatExist() throws IOException {
		Metadata metadata = Metadata.onClassPath();
		assertThat(metadata.names()).contains("uform.ram.threads", "spring.application.name",
				"management.endpoints.web.exposure.include");
		int bound = 0;
		for (String page : PAGES) {
			for (Block block : blocks(page)) {
				if (!block.language().equals("yaml") || block.text().contains("scrape_configs")) {
					continue;
				}
				Map<String, Object> properties = flatten(page, block);
				String where = page + ", block at line " + block.line();
				Set<String> roots = properties.keySet()
					.stream()
					.map((name) -> name.split("[.\\[]")[0])
					.collect(Collectors.toCollection(TreeSet::new));
				assertThat(APPLICATION_ROOTS).as("%s: an application's YAML (or a Prometheus one)", where)
					.containsAll(roots);
				Map<String, Object> uform = new LinkedHashMap<>();
				properties.forEach((name, value) -> {
					if (name.startsWith("uform.") && !name.startsWith("uform.devices.")) {
						uform.put(name, value);
					}
					else {
						String property = name.replaceAll("\\[\\d+\\]$", "");
						assertThat(metadata.has(property))
							.as("%s: %s is a property of the configuration metadata", where, name)
							.isTrue();
					}
				});
				if (!uform.isEmpty()) {
					BindHandler strict = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
					new Binder(new MapConfigurationPropertySource(uform)).bind("uform",
							Bindable.of(UformProperties.class), strict);
				}
				bound++;
			}
		}
		assertThat(bound).as("application YAML blocks bound").isGreaterThanOrEqualTo(3);
	}

	@Test
	void thePrometheusConfigurationIsOnePrometheusAccepts() throws Exception {
		Assumptions.assumeTrue(onPath("promtool"), "promtool (Debian's prometheus package) is not on the PATH");
		int checked = 0;
		for (String page : PAGES) {
			Path config = null;
			for (Block block : blocks(page)) {
				if (block.language().equals("yaml") && block.text().contains("scrape_configs")) {
					config = Files.createTempDirectory("doc-prometheus").resolve("prometheus.yml");
					Files.writeString(config, block.text());
					Process promtool = new ProcessBuilder("promtool", "check", "config", config.toString())
						.redirectErrorStream(true)
						.start();
					String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
					assertThat(promtool.waitFor()).as("%s, block at line %d: promtool check config\n%s", page,
							block.line(), output).isZero();
					checked++;
				}
			}
			for (String command : commands(page)) {
				if (command.startsWith("prometheus ")) {
					assertThat(config).as("%s: the configuration `%s` names is a block of the page", page, command)
						.isNotNull();
					Matcher file = Pattern.compile("--config\\.file=(\\S+)").matcher(command);
					assertThat(file.find()).as(command).isTrue();
					assertThat(file.group(1)).as(command).isEqualTo("prometheus.yml");
				}
			}
		}
		assertThat(checked).as("Prometheus configurations checked").isPositive();
	}

	@Test
	void theXmlIsWhatTheSamplesPomHas() throws Exception {
		Document pom = xml(Files.readString(ROOT.resolve("sample-app/pom.xml")));
		Set<String> pomLeaves = leaves(pom.getDocumentElement(), new TreeSet<>());
		String version = projectVersion();
		int checked = 0;
		for (String page : PAGES) {
			for (Block block : blocks(page)) {
				if (!block.language().equals("xml")) {
					continue;
				}
				Document snippet = xml(block.text());
				if (snippet.getDocumentElement().getTagName().equals("project")) {
					checkWholePom(page + ", block at line " + block.line(), snippet.getDocumentElement(), pom, version);
					checked++;
					continue;
				}
				for (String leaf : leaves(snippet.getDocumentElement(), new TreeSet<>())) {
					if (leaf.startsWith("version=")) {
						assertThat(leaf).as("%s, block at line %d", page, block.line()).isEqualTo("version=" + version);
					}
					else {
						assertThat(pomLeaves).as("%s, block at line %d: in sample-app/pom.xml", page, block.line())
							.contains(leaf);
					}
				}
				checked++;
			}
		}
		assertThat(checked).as("XML blocks checked").isGreaterThanOrEqualTo(1);
	}

	/**
	 * A whole {@code pom.xml} from zero: Spring Boot's parent at this build's Boot version, only dependencies and
	 * plugins the sample app uses too, uform's at this build's version and the rest versioned by Boot, and the
	 * native-access manifest entry the sample's jar has.
	 */
	private static void checkWholePom(String where, Element project, Document sample, String version) throws Exception {
		Element parent = element(project, "parent");
		assertThat(child(parent, "groupId")).as(where).isEqualTo("org.springframework.boot");
		assertThat(child(parent, "artifactId")).as(where).isEqualTo("spring-boot-starter-parent");
		String boot = child(element(xml(Files.readString(ROOT.resolve("pom.xml"))).getDocumentElement(), "properties"),
				"spring-boot.version");
		assertThat(child(parent, "version")).as("%s: Boot's version", where).isEqualTo(boot);
		Set<String> sampleDependencies = coordinates(sample.getDocumentElement(), "dependency");
		NodeList dependencies = project.getElementsByTagName("dependency");
		assertThat(dependencies.getLength()).as(where).isPositive();
		for (int i = 0; i < dependencies.getLength(); i++) {
			Element dependency = (Element) dependencies.item(i);
			String coordinate = child(dependency, "groupId") + ":" + child(dependency, "artifactId");
			assertThat(sampleDependencies).as("%s: a dependency of sample-app/pom.xml", where).contains(coordinate);
			boolean uform = coordinate.startsWith("io.uform:");
			assertThat(dependency.getElementsByTagName("version").getLength()).as("%s: %s has a version", where, coordinate)
				.isEqualTo(uform ? 1 : 0);
			if (uform) {
				assertThat(child(dependency, "version")).as(where).isEqualTo(version);
			}
		}
		assertThat(coordinates(sample.getDocumentElement(), "plugin")).as("%s: plugins of sample-app/pom.xml", where)
			.containsAll(coordinates(project, "plugin"));
		assertThat(leaves(project, new TreeSet<>())).as(where)
			.contains("Enable-Native-Access=ALL-UNNAMED", "modelVersion=4.0.0");
	}

	/** The {@code groupId:artifactId} of each element of that name (a plugin's group defaults to Maven's). */
	private static Set<String> coordinates(Element root, String tag) {
		Set<String> found = new TreeSet<>();
		NodeList elements = root.getElementsByTagName(tag);
		for (int i = 0; i < elements.getLength(); i++) {
			Element element = (Element) elements.item(i);
			String group = (element.getElementsByTagName("groupId").getLength() > 0) ? child(element, "groupId")
					: "org.apache.maven.plugins";
			found.add(group + ":" + child(element, "artifactId"));
		}
		return found;
	}

	private static Element element(Element parent, String name) {
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				return element;
			}
		}
		throw new AssertionError("no <" + name + "> in <" + parent.getTagName() + ">");
	}

	@Test
	void everyCommandRunsOrNamesWhatExists() throws Exception {
		HttpClient http = HttpClient.newHttpClient();
		List<String> failures = new ArrayList<>();
		int executed = 0;
		for (String page : PAGES) {
			for (String line : commands(page)) {
				for (String command : line.split("\\s*&&\\s*")) {
					try {
						executed += check(http, page + ": " + command, command) ? 1 : 0;
					}
					catch (AssertionError failure) {
						// Every broken command is reported, not only the first.
						failures.add(failure.getMessage().strip());
					}
				}
			}
		}
		assertThat(failures).as("commands that do not run or name what does not exist").isEmpty();
		assertThat(executed).as("commands executed").isGreaterThanOrEqualTo(4);
		assertThat(commands("README.md")).as("the README's test command is the one .ci/run runs")
			.contains(ciTestCommand());
	}

	/**
	 * Runs or checks one command.
	 * @return whether it was executed
	 */
	private static boolean check(HttpClient http, String where, String command) throws Exception {
		String first = command.split("\\s+")[0];
		switch (first) {
			case "curl" -> {
				run(where, command);
				checkUrl(http, where, command);
				return true;
			}
			case "./mvnw" -> checkMaven(where, command);
			case "java" -> checkJavaJar(where, command);
			case "prometheus" -> {
				// thePrometheusConfigurationIsOnePrometheusAccepts checks its configuration.
			}
			default -> {
				Path script = ROOT.resolve(first);
				assertThat(Files.isRegularFile(script) && Files.isExecutable(script))
					.as("%s: no rule for this command, and %s is not an executable script here", where, first)
					.isTrue();
			}
		}
		return false;
	}

	private static void run(String where, String command) throws Exception {
		String local = command.replace("localhost:8080", "localhost:" + port);
		Process process = new ProcessBuilder("bash", "-c", "set -o pipefail; " + local).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(where).isTrue();
		assertThat(process.exitValue()).as("%s exits 0:\n%s", where, output).isZero();
		assertThat(output).as("%s prints something", where).isNotBlank();
	}

	private static void checkUrl(HttpClient http, String where, String command) throws Exception {
		Matcher url = Pattern.compile("'?(localhost:8080[^\\s']*)'?").matcher(command);
		assertThat(url.find()).as("%s: a URL on localhost:8080", where).isTrue();
		URI uri = URI.create("http://" + url.group(1).replace("localhost:8080", "localhost:" + port));
		HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s answers 200: %s", where, response.body()).isEqualTo(200);
	}

	private static void checkMaven(String where, String command) throws Exception {
		List<String> words = List.of(command.split("\\s+"));
		for (int i = 1; i < words.size(); i++) {
			String word = words.get(i);
			if (word.equals("-pl")) {
				for (String module : words.get(++i).split(",")) {
					assertThat(ROOT.resolve(module).resolve("pom.xml")).as("%s: module %s", where, module).isRegularFile();
				}
			}
			else if (word.startsWith("-P")) {
				String profile = word.substring(2);
				assertThat(profiles()).as("%s: profile %s", where, profile).contains(profile);
			}
			else if (word.startsWith("-D")) {
				assertThat(word).as(where).matches("-D[a-zA-Z.]+(=\\S+)?");
			}
			else if (word.startsWith("-")) {
				assertThat(word).as("%s: a Maven option this test knows", where).isIn("-q", "-B", "-ntp", "-am", "-o");
			}
			else {
				assertThat(word).as("%s: a lifecycle phase or goal", where).isIn(PHASES);
			}
		}
	}

	private static void checkJavaJar(String where, String command) throws Exception {
		List<String> words = List.of(command.split("\\s+"));
		assertThat(words.get(1)).as(where).isEqualTo("-jar");
		Path jar = Path.of(words.get(2));
		Path module = jar.getParent().getParent();
		Document pom = xml(Files.readString(ROOT.resolve(module).resolve("pom.xml")));
		String artifactId = child(pom.getDocumentElement(), "artifactId");
		assertThat(jar.getParent().getFileName().toString()).as(where).isEqualTo("target");
		assertThat(jar.getFileName().toString()).as("%s: the jar %s's build makes", where, module)
			.isEqualTo(artifactId + "-" + projectVersion() + ".jar");
		for (String argument : words.subList(3, words.size())) {
			assertThat(argument).as("%s: a --property=value argument", where).matches("--[a-z][a-z.\\-]*=\\S+");
		}
	}

	/** The command {@code .ci/run} runs under its comment "The README's test command". */
	private static String ciTestCommand() throws IOException {
		List<String> lines = Files.readAllLines(ROOT.resolve(".ci/run"));
		for (int i = 0; i < lines.size() - 1; i++) {
			if (lines.get(i).strip().equals("# The README's test command.")) {
				return lines.get(i + 1).strip();
			}
		}
		throw new AssertionError(".ci/run has no line '# The README's test command.' above the command it runs");
	}

	private static Set<String> profiles() throws Exception {
		Set<String> ids = new TreeSet<>();
		try (var poms = Files.walk(ROOT, 3)) {
			for (Path pom : poms.filter((path) -> path.getFileName().toString().equals("pom.xml"))
				.filter((path) -> !path.toString().contains("/target/"))
				.toList()) {
				NodeList profiles = xml(Files.readString(pom)).getElementsByTagName("profile");
				for (int i = 0; i < profiles.getLength(); i++) {
					ids.add(child((Element) profiles.item(i), "id"));
				}
			}
		}
		return ids;
	}

	private static String projectVersion() throws Exception {
		return child(xml(Files.readString(ROOT.resolve("pom.xml"))).getDocumentElement(), "version");
	}

	/**
	 * The property names of every configuration metadata file on the class path, and which of them are maps (whose
	 * entries, {@code management.metrics.tags.application} say, are properties too).
	 */
	record Metadata(Set<String> names, Set<String> maps) {

		static Metadata onClassPath() throws IOException {
			Set<String> names = new TreeSet<>();
			Set<String> maps = new TreeSet<>();
			JsonMapper json = JsonMapper.builder().build();
			ClassLoader loader = DocSnippetsTest.class.getClassLoader();
			for (String file : List.of("META-INF/spring-configuration-metadata.json",
					"META-INF/additional-spring-configuration-metadata.json")) {
				for (Enumeration<URL> urls = loader.getResources(file); urls.hasMoreElements();) {
					try (InputStream in = urls.nextElement().openStream()) {
						for (JsonNode property : json.readTree(in).path("properties")) {
							String name = property.path("name").asString();
							names.add(name);
							if (property.path("type").asString("").startsWith("java.util.Map")) {
								maps.add(name);
							}
						}
					}
				}
			}
			return new Metadata(names, maps);
		}

		boolean has(String property) {
			return this.names.contains(property)
					|| this.maps.stream().anyMatch((map) -> property.startsWith(map + "."));
		}
	}

	private static Map<String, Object> flatten(String page, Block block) throws IOException {
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load(page + ":" + block.line(),
				new ByteArrayResource(block.text().getBytes(StandardCharsets.UTF_8)));
		Map<String, Object> properties = new LinkedHashMap<>();
		for (PropertySource<?> source : sources) {
			EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
			for (String name : enumerable.getPropertyNames()) {
				properties.put(name, enumerable.getProperty(name));
			}
		}
		assertThat(properties).as("%s, block at line %d: properties", page, block.line()).isNotEmpty();
		return properties;
	}

	private static boolean onPath(String program) {
		for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
			if (Files.isExecutable(Path.of(dir, program))) {
				return true;
			}
		}
		return false;
	}

	private static Document xml(String text) throws Exception {
		return DocumentBuilderFactory.newInstance()
			.newDocumentBuilder()
			.parse(new org.xml.sax.InputSource(new java.io.StringReader(text)));
	}

	/** {@code name=text} of every element whose content is text alone. */
	private static Set<String> leaves(Element element, Set<String> leaves) {
		NodeList children = element.getChildNodes();
		boolean hasElements = false;
		for (int i = 0; i < children.getLength(); i++) {
			if (children.item(i) instanceof Element child) {
				hasElements = true;
				leaves(child, leaves);
			}
		}
		if (!hasElements) {
			leaves.add(element.getTagName() + "=" + element.getTextContent().strip());
		}
		return leaves;
	}

	private static String child(Element parent, String name) {
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				return element.getTextContent().strip();
			}
		}
		throw new AssertionError("no <" + name + "> in <" + parent.getTagName() + ">");
	}

	/** The shell commands of a page's bash blocks: continuations joined, comments and blank lines left out. */
	static List<String> commands(String page) throws IOException {
		List<String> commands = new ArrayList<>();
		for (Block block : blocks(page)) {
			if (block.language().equals("bash")) {
				String joined = block.text().replaceAll("\\\\\\n\\s*", " ");
				for (String line : joined.split("\n")) {
					if (!line.isBlank() && !line.strip().startsWith("#")) {
						commands.add(line.strip());
					}
				}
			}
		}
		return commands;
	}

	static List<Block> blocks(String page) throws IOException {
		List<String> lines = Files.readAllLines(ROOT.resolve(page));
		List<Block> blocks = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			Matcher open = FENCE.matcher(lines.get(i));
			if (open.matches()) {
				int start = i;
				StringBuilder text = new StringBuilder();
				while (++i < lines.size() && !lines.get(i).strip().equals("```")) {
					text.append(lines.get(i)).append('\n');
				}
				if (i == lines.size()) {
					fail("%s: the block at line %d is never closed", page, start + 1);
				}
				blocks.add(new Block(open.group(1), start + 1, text.toString()));
			}
		}
		return blocks;
	}

	record Block(String language, int line, String text) {
	}

	/** A Java block as a source file, named after its page and line so that a diagnostic says where. */
	private static final class Snippet extends SimpleJavaFileObject {

		private final String text;

		Snippet(String page, Block block) {
			super(URI.create("string:///" + page.replace('/', '_').replace('.', '_') + "_line" + block.line()
					+ "/" + className(block.text()) + ".java"), Kind.SOURCE);
			this.text = block.text();
		}

		private static String className(String text) {
			Matcher type = Pattern.compile("(?m)^(?:public\\s+|final\\s+)*(?:class|record|interface|enum)\\s+(\\w+)")
				.matcher(text);
			return type.find() ? type.group(1) : "Snippet";
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.text;
		}
	}
}
