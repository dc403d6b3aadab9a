package io.uform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dependencies between uform-java's packages run one way: {@code io.uform} (the API) uses the runtime
 * packages, which name no API type, so that no package pair imports each other in a cycle. Read from
 * the main sources, where an import or a qualified name in code makes a dependency (comments and
 * string literals do not); the sources rather than the class files, since javac inlines another
 * package's constants into the class that reads them.
 */
class PackageCyclesTest {

	private static final Path MAIN_SOURCES = Path.of("src/main/java");

	@Test
	void noPackageOfTheMainSourcesDependsOnItselfThroughAnother() throws IOException {
		Map<String, String> sources = new TreeMap<>();
		try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
			for (Path file : (Iterable<Path>) files.filter((path) -> path.toString().endsWith(".java"))::iterator) {
				sources.put(MAIN_SOURCES.relativize(file).toString(), Files.readString(file));
			}
		}
		PackageGraph graph = PackageGraph.of(sources);
		assertThat(graph.packages()).as("the packages read").contains("io.uform", "io.uform.gpu", "io.uform.mesh",
				"io.uform.host", "io.uform.failure", "io.uform.cli");
		assertThat(graph.edges()).as("a dependency the graph must see").containsKey("io.uform -> io.uform.gpu");
		assertThat(graph.cycles()).as("packages that depend on each other, with where").isEmpty();
	}

	@Test
	void aPairThatImportsEachOtherIsACycleAndSoIsAQualifiedNameInCode() {
		PackageGraph graph = PackageGraph.of(Map.of("io/uform/A.java", """
				package io.uform;
				import io.uform.gpu.B;
				class A {
				}
				""", "io/uform/gpu/B.java", """
				package io.uform.gpu;
				class B {
					Object a = io.uform.UformException.class;
				}
				"""));
		assertThat(graph.cycles()).singleElement()
			.satisfies((cycle) -> assertThat(cycle).contains("io.uform -> io.uform.gpu", "io/uform/A.java:2",
					"io.uform.gpu -> io.uform", "io/uform/gpu/B.java:3"));
	}

	@Test
	void commentsAndStringsNameNoDependencyAndOneWayIsNoCycle() {
		PackageGraph graph = PackageGraph.of(Map.of("io/uform/A.java", """
				package io.uform;
				import io.uform.gpu.B;
				class A {
				}
				""", "io/uform/gpu/B.java", """
				package io.uform.gpu;
				/** Used by {@link io.uform.A}. */
				class B {
					// io.uform.A
					String name = "io.uform.A";
					char c = '"';
					String block = \"""
							io.uform.A \\" still in the block
							\""";
				}
				"""));
		assertThat(graph.edges()).containsOnlyKeys("io.uform -> io.uform.gpu");
		assertThat(graph.cycles()).isEmpty();
	}

	@Test
	void theModuleExportsNoPackageToOneModuleAlone() throws IOException {
		String descriptor = Files.readString(MAIN_SOURCES.resolve("module-info.java"));
		assertThat(qualifiedExports(descriptor)).as("qualified exports in module-info.java").isEmpty();
		assertThat(qualifiedExports("module m { exports a.b; exports /* runtime */ a.c\n to x.y, z; }"))
			.as("a qualified export, which the check must see").containsExactly("a.c to x.y, z");
	}

	/** Each {@code exports p to m} of a module descriptor, comments set aside. */
	private static List<String> qualifiedExports(String descriptor) {
		String code = PackageGraph.code(descriptor).replaceAll("\\s+", " ");
		List<String> qualified = new ArrayList<>();
		Matcher exports = Pattern.compile("\\bexports ([\\w.]+ to [^;]+);").matcher(code);
		while (exports.find()) {
			qualified.add(exports.group(1).strip());
		}
		return qualified;
	}

	/** Packages and the dependencies between them, each edge with where it is made. */
	record PackageGraph(Set<String> packages, Map<String, List<String>> edges) {

		private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

		private static final Pattern REFERENCE = Pattern.compile("\\bio\\.uform(?:\\s*\\.\\s*[A-Za-z_$][\\w$]*)*");

		/**
		 * Reads sources.
		 * @param sources each file's text by its path under the source root
		 */
		static PackageGraph of(Map<String, String> sources) {
			Map<String, String> code = new TreeMap<>();
			Map<String, String> packageOf = new HashMap<>();
			Set<String> packages = new TreeSet<>();
			for (Map.Entry<String, String> source : sources.entrySet()) {
				String stripped = code(source.getValue());
				Matcher declared = PACKAGE.matcher(stripped);
				if (!declared.find()) {
					continue; // module-info.java
				}
				code.put(source.getKey(), stripped);
				packageOf.put(source.getKey(), declared.group(1));
				packages.add(declared.group(1));
			}
			Map<String, List<String>> edges = new TreeMap<>();
			for (Map.Entry<String, String> file : code.entrySet()) {
				String from = packageOf.get(file.getKey());
				String text = file.getValue();
				Matcher reference = REFERENCE.matcher(text);
				while (reference.find()) {
					String name = reference.group().replaceAll("\\s", "");
					String to = owner(name, packages);
					if (to != null && !to.equals(from)) {
						int line = 1 + (int) text.substring(0, reference.start()).chars().filter((c) -> c == '\n').count();
						edges.computeIfAbsent(from + " -> " + to, (key) -> new ArrayList<>())
							.add(file.getKey() + ":" + line + " " + name);
					}
				}
			}
			return new PackageGraph(packages, edges);
		}

		/** The package a qualified name lies in: the longest package it starts with. */
		private static String owner(String name, Set<String> packages) {
			String owner = null;
			for (String candidate : packages) {
				if ((name.equals(candidate) || name.startsWith(candidate + "."))
						&& (owner == null || candidate.length() > owner.length())) {
					owner = candidate;
				}
			}
			return owner;
		}

		/**
		 * Each group of packages that reach each other (Tarjan's strongly connected components), as
		 * text naming the group and each edge inside it with where it is made.
		 */
		List<String> cycles() {
			Map<String, Set<String>> next = new LinkedHashMap<>();
			for (String edge : this.edges.keySet()) {
				String[] ends = edge.split(" -> ");
				next.computeIfAbsent(ends[0], (key) -> new TreeSet<>()).add(ends[1]);
			}
			Tarjan tarjan = new Tarjan(next);
			for (String node : this.packages) {
				if (!tarjan.index.containsKey(node)) {
					tarjan.visit(node);
				}
			}
			List<String> cycles = new ArrayList<>();
			for (Set<String> group : tarjan.groups) {
				if (group.size() < 2) {
					continue;
				}
				StringBuilder text = new StringBuilder("packages " + group + " depend on each other:");
				for (Map.Entry<String, List<String>> edge : this.edges.entrySet()) {
					String[] ends = edge.getKey().split(" -> ");
					if (group.contains(ends[0]) && group.contains(ends[1])) {
						text.append("\n  ").append(edge.getKey()).append(": ").append(edge.getValue());
					}
				}
				cycles.add(text.toString());
			}
			return cycles;
		}

		/** Java source with its comments, string, text-block and char literals blanked, lines kept. */
		static String code(String source) {
			StringBuilder code = new StringBuilder(source.length());
			int i = 0;
			while (i < source.length()) {
				char c = source.charAt(i);
				if (source.startsWith("//", i)) {
					int end = source.indexOf('\n', i);
					i = (end < 0) ? source.length() : end;
				}
				else if (source.startsWith("/*", i)) {
					int end = source.indexOf("*/", i + 2);
					end = (end < 0) ? source.length() : end + 2;
					blank(source, i, end, code);
					i = end;
				}
				else if (source.startsWith("\"\"\"", i)) {
					int end = closing(source, i + 3, "\"\"\"");
					blank(source, i, end, code);
					i = end;
				}
				else if (c == '"' || c == '\'') {
					int end = closing(source, i + 1, String.valueOf(c));
					blank(source, i, end, code);
					i = end;
				}
				else {
					code.append(c);
					i++;
				}
			}
			return code.toString();
		}

		/** Just past the closing delimiter, skipping escaped characters. */
		private static int closing(String source, int from, String delimiter) {
			int i = from;
			while (i < source.length()) {
				if (source.charAt(i) == '\\') {
					i += 2;
				}
				else if (source.startsWith(delimiter, i)) {
					return i + delimiter.length();
				}
				else {
					i++;
				}
			}
			return source.length();
		}

		private static void blank(String source, int from, int to, StringBuilder code) {
			for (int i = from; i < to; i++) {
				code.append((source.charAt(i) == '\n') ? '\n' : ' ');
			}
		}
	}

	/** Tarjan's strongly connected components; recursive, as the packages are few. */
	private static final class Tarjan {

		final Map<String, Set<String>> next;

		final Map<String, Integer> index = new HashMap<>();

		final Map<String, Integer> low = new HashMap<>();

		final Deque<String> stack = new ArrayDeque<>();

		final List<Set<String>> groups = new ArrayList<>();

		Tarjan(Map<String, Set<String>> next) {
			this.next = next;
		}

		void visit(String node) {
			this.index.put(node, this.index.size());
			this.low.put(node, this.index.get(node));
			this.stack.push(node);
			for (String to : this.next.getOrDefault(node, Set.of())) {
				if (!this.index.containsKey(to)) {
					visit(to);
					this.low.put(node, Math.min(this.low.get(node), this.low.get(to)));
				}
				else if (this.stack.contains(to)) {
					this.low.put(node, Math.min(this.low.get(node), this.index.get(to)));
				}
			}
			if (this.low.get(node).equals(this.index.get(node))) {
				Set<String> group = new TreeSet<>();
				String member;
				do {
					member = this.stack.pop();
					group.add(member);
				}
				while (!member.equals(node));
				this.groups.add(group);
			}
		}
	}
}
