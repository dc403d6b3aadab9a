package io.uform.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Kubernetes manifests under {@code docs/mesh/} say what {@code docs/mesh.md} says they say:
 * an Indexed Job whose pods all run at once, the process count equal to the Job's completions,
 * the index from Kubernetes, the job name from the Job's own label, and the mesh directory a
 * ReadWriteMany claim of the same file mounted where {@code UFORM_MESH_DIRECTORY} points.
 *
 * <p>It reads the files as Kubernetes would (every {@code ---} document), not the Markdown.
 */
class KubernetesManifestTest {

	private static final String PLAIN = "kubernetes-indexed-job.yaml";

	private static final String SPRING = "kubernetes-indexed-job-spring.yaml";

	/** Set by Kubernetes in every container of an Indexed Job's pods; never by the manifest. */
	private static final String COMPLETION_INDEX = "JOB_COMPLETION_INDEX";

	/** The annotation Kubernetes sets on an Indexed Job's pods, and reads JOB_COMPLETION_INDEX from. */
	private static final String COMPLETION_INDEX_ANNOTATION =
			"metadata.annotations['batch.kubernetes.io/job-completion-index']";

	/** The Job's name as a pod label: the prefixed one (Kubernetes 1.27+) or the legacy one. */
	private static final List<String> JOB_NAME_FIELDS =
			List.of("metadata.labels['batch.kubernetes.io/job-name']", "metadata.labels['job-name']");

	private static final String COUNT = "UFORM_MESH_HOST_DOMAIN_COUNT";

	private static final String DIRECTORY = "UFORM_MESH_DIRECTORY";

	private static final String JOB = "UFORM_MESH_JOB";

	/** An index variable the manifests no longer define: the launcher reads the index itself. */
	private static final String INDEX = "UFORM_MESH_HOST_DOMAIN_INDEX";

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void isABatchV1IndexedJobWhosePodsAllRunAtOnce(String file) throws IOException {
		Map<String, Object> job = job(file);

		assertThat(job.get("apiVersion")).isEqualTo("batch/v1");
		assertThat(job.get("kind")).isEqualTo("Job");
		Map<String, Object> spec = map(job, "spec");
		assertThat(spec.get("completionMode")).isEqualTo("Indexed");
		assertThat(spec.get("completions")).isInstanceOf(Integer.class);
		assertThat((Integer) spec.get("completions")).isGreaterThanOrEqualTo(1);
		// The mesh waits for every process: fewer pods at a time than completions would wait forever.
		assertThat(spec.get("parallelism")).isEqualTo(spec.get("completions"));
	}

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void aFailedPodFailsTheRunInsteadOfRestarting(String file) throws IOException {
		Map<String, Object> job = job(file);

		assertThat(map(job, "spec").get("backoffLimit")).isEqualTo(0);
		assertThat(map(job, "spec", "template", "spec").get("restartPolicy")).isEqualTo("Never");
	}

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void theProcessCountIsTheJobsCompletions(String file) throws IOException {
		Map<String, Object> job = job(file);
		Object completions = map(job, "spec").get("completions");

		for (Map<String, Object> container : containers(job)) {
			assertThat(env(container).get(COUNT)).as("%s of container %s", COUNT, container.get("name"))
				.isNotNull()
				.extracting(variable -> variable.get("value"))
				.isEqualTo(String.valueOf(completions));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void theJobNameIsTheJobsOwnNameFromTheDownwardApi(String file) throws IOException {
		Map<String, Object> job = job(file);

		for (Map<String, Object> container : containers(job)) {
			Map<String, Object> variable = env(container).get(JOB);
			assertThat(variable).as("%s of container %s", JOB, container.get("name")).isNotNull();
			assertThat(variable).doesNotContainKey("value");
			assertThat(map(variable, "valueFrom", "fieldRef").get("fieldPath")).isIn(JOB_NAME_FIELDS);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void onePodPerHostSelectsThisJobsPods(String file) throws IOException {
		Map<String, Object> job = job(file);
		String name = (String) map(job, "metadata").get("name");
		List<Map<String, Object>> terms = list(map(job, "spec", "template", "spec", "affinity", "podAntiAffinity"),
				"requiredDuringSchedulingIgnoredDuringExecution");

		assertThat(terms).anySatisfy(term -> {
			assertThat(term.get("topologyKey")).isEqualTo("kubernetes.io/hostname");
			assertThat(map(term, "labelSelector", "matchLabels")).containsEntry("batch.kubernetes.io/job-name", name);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void noContainerReplacesTheIndexKubernetesSets(String file) throws IOException {
		// Kubernetes adds JOB_COMPLETION_INDEX only to containers that do not define it themselves.
		for (Map<String, Object> container : containers(job(file))) {
			assertThat(env(container)).doesNotContainKey(COMPLETION_INDEX);
		}
	}

	@Test
	void thePlainJavaMainReadsTheIndexKubernetesSetsAndEveryVariable() throws IOException {
		String doc = Files.readString(docs().resolve("mesh.md"), StandardCharsets.UTF_8);

		// fromLauncher() reads JOB_COMPLETION_INDEX, and the count and job the manifest sets for it
		// (io.uform.MeshLauncherTest); the main reads the others itself.
		assertThat(doc).contains("MeshOptions options = MeshOptions.fromLauncher()");
		for (Map<String, Object> container : containers(job(PLAIN))) {
			for (String name : env(container).keySet()) {
				if (!name.equals(COUNT) && !name.equals(JOB)) {
					assertThat(doc).as("docs/mesh.md's main reads %s", name).contains("System.getenv(\"" + name + "\")");
				}
			}
		}
	}

	@Test
	void theManifestsLeaveTheIndexToTheLauncher() throws IOException {
		// The kubernetes launcher reads JOB_COMPLETION_INDEX; an index variable of the manifest's own
		// would be a second source to keep right (and $(JOB_COMPLETION_INDEX) would not expand in it:
		// Kubernetes appends that variable after the manifest's own).
		for (String file : List.of(PLAIN, SPRING)) {
			for (Map<String, Object> container : containers(job(file))) {
				assertThat(env(container)).as("variables of %s", file).doesNotContainKey(INDEX);
				assertThat(env(container).values()).as("variables of %s", file)
					.noneSatisfy((variable) -> assertThat(String.valueOf(variable.get("valueFrom")))
						.contains(COMPLETION_INDEX_ANNOTATION));
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void theDirectoryIsAReadWriteManyClaimOfTheSameFileMountedWhereTheVariableSays(String file) throws IOException {
		List<Map<String, Object>> documents = documents(file);
		Map<String, Object> job = only(documents, "Job");
		Map<String, Object> podSpec = map(job, "spec", "template", "spec");
		Map<String, Map<String, Object>> volumes = byName(list(podSpec, "volumes"));

		for (Map<String, Object> container : containers(job)) {
			Object directory = env(container).get(DIRECTORY).get("value");
			assertThat(directory).as("%s of container %s", DIRECTORY, container.get("name")).isInstanceOf(String.class);
			List<Map<String, Object>> mounts = list(container, "volumeMounts").stream()
				.filter(mount -> directory.equals(mount.get("mountPath")))
				.collect(Collectors.toList());
			assertThat(mounts).as("a volume mounted at %s", directory).hasSize(1);
			Map<String, Object> volume = volumes.get((String) mounts.get(0).get("name"));
			assertThat(volume).as("volume %s", mounts.get(0).get("name")).isNotNull();
			String claimName = (String) map(volume, "persistentVolumeClaim").get("claimName");

			Map<String, Object> claim = documents.stream()
				.filter(document -> "PersistentVolumeClaim".equals(document.get("kind")))
				.filter(document -> claimName.equals(map(document, "metadata").get("name")))
				.findFirst()
				.orElseThrow(() -> new AssertionError(file + " holds no PersistentVolumeClaim " + claimName));
			assertThat(claim.get("apiVersion")).isEqualTo("v1");
			assertThat(map(claim, "spec").get("accessModes")).isEqualTo(List.of("ReadWriteMany"));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { PLAIN, SPRING })
	void everyVariableIsAStringOrComesFromTheDownwardApi(String file) throws IOException {
		// Kubernetes refuses `value: 4` (a number): the count must be quoted.
		for (Map<String, Object> container : containers(job(file))) {
			for (Map<String, Object> variable : env(container).values()) {
				if (variable.containsKey("value")) {
					assertThat(variable.get("value")).as("%s", variable.get("name")).isInstanceOf(String.class);
				}
				else {
					assertThat(map(variable, "valueFrom", "fieldRef").get("fieldPath")).as("%s", variable.get("name"))
						.isInstanceOf(String.class);
				}
			}
		}
	}

	@Test
	void docsMeshMdQuotesThePlainManifestAsItIs() throws IOException {
		String doc = Files.readString(docs().resolve("mesh.md"), StandardCharsets.UTF_8);
		String manifest = Files.readString(docs().resolve("mesh").resolve(PLAIN), StandardCharsets.UTF_8);
		String job = manifest.substring(manifest.indexOf("apiVersion: batch/v1")).strip();

		assertThat(doc).contains(job);
	}

	// ---- reading the files

	/** The repository's docs directory, found by walking up from the working directory. */
	private static Path docs() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("docs").resolve("mesh").resolve(PLAIN))) {
				return dir.resolve("docs");
			}
		}
		throw new AssertionError("no docs/mesh/" + PLAIN + " above " + Path.of("").toAbsolutePath());
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> documents(String file) throws IOException {
		String text = Files.readString(docs().resolve("mesh").resolve(file), StandardCharsets.UTF_8);
		List<Map<String, Object>> documents = new ArrayList<>();
		for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text)) {
			if (document != null) {
				assertThat(document).as("a document of %s", file).isInstanceOf(Map.class);
				documents.add((Map<String, Object>) document);
			}
		}
		return documents;
	}

	private static Map<String, Object> job(String file) throws IOException {
		return only(documents(file), "Job");
	}

	private static Map<String, Object> only(List<Map<String, Object>> documents, String kind) {
		List<Map<String, Object>> found = documents.stream()
			.filter(document -> kind.equals(document.get("kind")))
			.collect(Collectors.toList());
		assertThat(found).as("documents of kind %s", kind).hasSize(1);
		return found.get(0);
	}

	private static List<Map<String, Object>> containers(Map<String, Object> job) {
		List<Map<String, Object>> containers = list(map(job, "spec", "template", "spec"), "containers");
		assertThat(containers).isNotEmpty();
		return containers;
	}

	/** A container's variables by name, each at most once. */
	private static Map<String, Map<String, Object>> env(Map<String, Object> container) {
		return byName(list(container, "env"));
	}

	private static Map<String, Map<String, Object>> byName(List<Map<String, Object>> items) {
		Map<String, Map<String, Object>> named = new LinkedHashMap<>();
		for (Map<String, Object> item : items) {
			String name = (String) item.get("name");
			assertThat(named.put(Objects.requireNonNull(name, "an item without a name"), item))
				.as("%s defined twice", name).isNull();
		}
		return named;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Map<String, Object> from, String... path) {
		Map<String, Object> at = from;
		for (String key : path) {
			Object next = at.get(key);
			assertThat(next).as("%s is a mapping", key).isInstanceOf(Map.class);
			at = (Map<String, Object>) next;
		}
		return at;
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Map<String, Object> from, String key) {
		Object value = from.get(key);
		assertThat(value).as("%s is a list", key).isInstanceOf(List.class);
		return (List<Map<String, Object>>) value;
	}
}
