package io.uform.spring.autoconfigure.aot;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints {@link UformRuntimeHints} gives, as an AOT build gets them: every
 * {@link RuntimeHintsRegistrar} in {@code META-INF/spring/aot.factories} applied (Spring's own among
 * them). What needs a hint is found in uform's classes and resources, not listed again here, so a new
 * kernel, {@code ByReference} type or direct-mapped class without its hint fails.
 */
class UformRuntimeHintsTest {

	private static final PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();

	private static final RuntimeHints hints = new RuntimeHints();

	@BeforeAll
	static void applyEveryAotFactoriesRegistrar() {
		ClassLoader loader = UformRuntimeHintsTest.class.getClassLoader();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", loader)
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, loader));
	}

	@Test
	void registeredInAotFactoriesSoEveryAotBuildWithTheStarterAppliesThem() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(UformRuntimeHints.class);
	}

	@Test
	void everyKernelFileIsAResource() throws IOException {
		Resource[] kernels = resolver.getResources("classpath*:io/uform/kernels/*");
		assertThat(kernels).extracting(Resource::getFilename).contains("uform_dot_f32.ptx", "uform_dot_f32.launch");
		for (Resource kernel : kernels) {
			assertThat(RuntimeHintsPredicates.resource().forResource("io/uform/kernels/" + kernel.getFilename()))
				.as(kernel.getFilename())
				.accepts(hints);
		}
	}

	@Test
	void uformJavasMavenPropertiesAreAResourceForItsVersion() {
		// Where UformFacts reads the version when no jar manifest says it (a native image has none).
		assertThat(RuntimeHintsPredicates.resource().forResource("/META-INF/maven/io.uform/uform-java/pom.properties"))
			.accepts(hints);
	}

	@Test
	void everyJnaByReferenceTypeUformPassesCanBeMadeReflectively() throws Exception {
		Set<String> used = new TreeSet<>();
		Pattern byReference = Pattern.compile("com/sun/jna/ptr/([A-Za-z]+ByReference)");
		for (Resource type : uformClasses()) {
			Matcher found = byReference.matcher(classFileText(type));
			while (found.find()) {
				used.add("com.sun.jna.ptr." + found.group(1));
			}
		}
		// The CUDA driver and NVML bindings pass these; finding none means the scan is broken.
		assertThat(used).contains("com.sun.jna.ptr.IntByReference", "com.sun.jna.ptr.PointerByReference");
		for (String name : used) {
			Class<?> type = Class.forName(name);
			assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(type.getConstructor()))
				.as("JNA's NativeMappedConverter makes a %s with new %s()", name, type.getSimpleName())
				.accepts(hints);
		}
	}

	@Test
	void everyJnaDirectMappedClassIsRegisteredForReflectionAndJni() throws Exception {
		List<Class<?>> directMapped = new ArrayList<>();
		for (Resource type : uformClasses()) {
			Class<?> loaded = load(type);
			for (Method method : loaded.getDeclaredMethods()) {
				if (Modifier.isNative(method.getModifiers())) {
					directMapped.add(loaded);
					break;
				}
			}
		}
		assertThat(directMapped).extracting(Class::getName).contains(UformRuntimeHints.LIBC_BINDING);
		for (Class<?> type : directMapped) {
			for (Method method : type.getDeclaredMethods()) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method))
					.as("Native.register lists %s's declared methods", type.getName())
					.accepts(hints);
			}
			TypeHint jni = hints.jni().getTypeHint(TypeReference.of(type));
			assertThat(jni).as("JNI registration of %s's natives", type.getName()).isNotNull();
			assertThat(jni.getMemberCategories()).contains(MemberCategory.INVOKE_DECLARED_METHODS);
		}
	}

	@Test
	void theStartersSpringFactoriesEntriesAreLeftToSpringsOwnHints() throws Exception {
		// SpringFactoriesLoaderRuntimeHints (spring-core's aot.factories) registers them; nothing here
		// repeats it, and this shows that it still does.
		for (String name : List.of("io.uform.spring.autoconfigure.UformFailureAnalyzer",
				"io.uform.spring.autoconfigure.diagnostics.UformBindFailureAnalyzer",
				"io.uform.spring.autoconfigure.UformSimulatedDevices",
				"io.uform.spring.autoconfigure.diagnostics.UformUnknownProperties",
				"io.uform.spring.autoconfigure.UformAotDecisions")) {
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(name))
				.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(name).accepts(hints);
		}
	}

	/** uform-java's classes (those of io.uform outside the starter's own package). */
	private static List<Resource> uformClasses() throws IOException {
		List<Resource> classes = new ArrayList<>();
		for (Resource type : resolver.getResources("classpath*:io/uform/**/*.class")) {
			if (!type.getURL().toString().contains("/io/uform/spring/")) {
				classes.add(type);
			}
		}
		assertThat(classes).as("uform-java's classes on the test class path").hasSizeGreaterThan(50);
		return classes;
	}

	private static String classFileText(Resource type) throws IOException {
		try (InputStream in = type.getInputStream()) {
			// Class names are in the constant pool as modified UTF-8: ASCII for these names.
			return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
		}
	}

	private static Class<?> load(Resource type) throws Exception {
		String url = type.getURL().toString();
		String path = url.substring(url.lastIndexOf("io/uform/"), url.length() - ".class".length());
		// Not initialised: a binding's static initialiser would load its native library.
		return Class.forName(path.replace('/', '.'), false, UformRuntimeHintsTest.class.getClassLoader());
	}
}
