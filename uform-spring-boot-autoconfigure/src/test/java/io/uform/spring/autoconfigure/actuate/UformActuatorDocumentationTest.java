package io.uform.spring.autoconfigure.actuate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.uform.spring.autoconfigure.UformAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Keeps {@code docs/actuator.md} honest: every JSON example in it that is marked with the request it
 * answers ({@code <!-- response: GET /actuator/uform -->} on the line before the block) has exactly
 * the keys, at every level, that the same request gets from the endpoint in a test context configured
 * as the documented application is (both executors, no scratch limit; a run of one for the mesh).
 * Values differ from machine to machine and are not compared; the shape is.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformActuatorDocumentationTest {

	/** Surefire runs in the module's directory; the docs sit beside it. */
	private static final Path DOC = Path.of("..", "docs", "actuator.md");

	private static final Pattern EXAMPLE = Pattern
		.compile("<!--\\s*response:\\s*GET\\s+(\\S+)\\s*-->\\s*```json\\s*\\n(.*?)\\n```", Pattern.DOTALL);

	private static Map<String, JsonNode> documented;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformEndpointAutoConfiguration.class,
				UformHealthContributorAutoConfiguration.class, UformInfoContributorAutoConfiguration.class,
				JacksonEndpointAutoConfiguration.class))
		// As the sample application that the examples were captured from.
		.withPropertyValues("uform.ram.deferred-limit=64", "management.endpoints.web.exposure.include=uform");

	@BeforeAll
	static void readExamples() throws IOException {
		String doc = Files.readString(DOC);
		JsonMapper mapper = JsonMapper.builder().build();
		documented = new LinkedHashMap<>();
		Matcher example = EXAMPLE.matcher(doc);
		while (example.find()) {
			documented.put(example.group(1), mapper.readTree(example.group(2)));
		}
	}

	@Test
	void theDocumentShowsTheRootAndEverySelectorThatAnswersWithAnObject() {
		assertThat(documented).containsKeys("/actuator/uform", "/actuator/uform/executors/uformVramExecutor",
				"/actuator/uform/mesh", "/actuator/health/uform", "/actuator/info");
	}

	@Test
	void everyDocumentedResponseHasTheKeysTheEndpointAnswersWith() {
		Map<String, Function<AssertableApplicationContext, Object>> requests = new LinkedHashMap<>();
		requests.put("/actuator/uform", (context) -> endpoint(context).uform());
		requests.put("/actuator/uform/capabilities", (context) -> endpoint(context).part(UformEndpoint.CAPABILITIES));
		requests.put("/actuator/uform/devices", (context) -> endpoint(context).part(UformEndpoint.DEVICES));
		requests.put("/actuator/uform/executors", (context) -> endpoint(context).part(UformEndpoint.EXECUTORS));
		requests.put("/actuator/uform/executors/uformRamExecutor", (context) -> endpoint(context)
			.executor(UformEndpoint.EXECUTORS, UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME));
		requests.put("/actuator/uform/executors/uformVramExecutor", (context) -> endpoint(context)
			.executor(UformEndpoint.EXECUTORS, UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME));
		requests.put("/actuator/health/uform", (context) -> context.getBean(UformHealthIndicator.class).health());
		requests.put("/actuator/info", (context) -> {
			Info.Builder builder = new Info.Builder();
			context.getBean(UformInfoContributor.class).contribute(builder);
			return builder.build().getDetails();
		});
		List<String> checked = new ArrayList<>();
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			documented.forEach((path, example) -> {
				if (requests.containsKey(path)) {
					assertSameKeys(path, example, json(context, requests.get(path).apply(context)));
					checked.add(path);
				}
			});
		});
		AtomicReference<JsonNode> mesh = new AtomicReference<>();
		this.contextRunner.withPropertyValues("uform.mesh.host-domain-count=1")
			.run((context) -> mesh.set(json(context, endpoint(context).part(UformEndpoint.MESH))));
		if (documented.containsKey("/actuator/uform/mesh")) {
			assertSameKeys("/actuator/uform/mesh", documented.get("/actuator/uform/mesh"), mesh.get());
			checked.add("/actuator/uform/mesh");
		}
		assertThat(checked).as("documented responses checked").containsExactlyInAnyOrderElementsOf(documented.keySet());
	}

	/**
	 * Walks both trees: objects must have the same keys (order aside), each compared in turn; every
	 * element of a documented array is compared with the answer's element at the same position (or its
	 * last one, where the machines differ in how many devices they have). Other values are not compared.
	 */
	private static void assertSameKeys(String where, JsonNode documented, JsonNode actual) {
		if (documented.isObject()) {
			if (!actual.isObject()) {
				fail("%s is an object in docs/actuator.md but %s in the answer", where, actual.getNodeType());
			}
			assertThat(documented.propertyNames()).as("keys of %s in docs/actuator.md", where)
				.containsExactlyInAnyOrderElementsOf(actual.propertyNames());
			for (String key : documented.propertyNames()) {
				assertSameKeys(where + "." + key, documented.get(key), actual.get(key));
			}
		}
		else if (documented.isArray()) {
			if (!actual.isArray()) {
				fail("%s is an array in docs/actuator.md but %s in the answer", where, actual.getNodeType());
			}
			if (actual.isEmpty()) {
				assertThat(documented.isEmpty()).as("%s is empty in the answer", where).isTrue();
				return;
			}
			for (int index = 0; index < documented.size(); index++) {
				assertSameKeys(where + "[" + index + "]", documented.get(index),
						actual.get(Math.min(index, actual.size() - 1)));
			}
		}
		else if (actual.isObject() || actual.isArray()) {
			fail("%s is a plain value in docs/actuator.md but %s in the answer", where, actual.getNodeType());
		}
	}

	private static UformEndpoint endpoint(AssertableApplicationContext context) {
		return context.getBean(UformEndpoint.class);
	}

	private static JsonNode json(AssertableApplicationContext context, Object response) {
		return context.getBean(EndpointJsonMapper.class).get().valueToTree(response);
	}
}
