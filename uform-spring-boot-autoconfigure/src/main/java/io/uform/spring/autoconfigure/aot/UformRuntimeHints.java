package io.uform.spring.autoconfigure.aot;

import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.MeshOptions;

/**
 * {@link RuntimeHintsRegistrar} for what the uform-java library loads by name rather than by a
 * reference the native-image compiler can follow:
 * <ul>
 * <li>the GPU kernels ({@code io/uform/kernels/*}: the PTX the CUDA driver compiles, and its launch
 * shape), read as class-path resources;</li>
 * <li>uform-java's Maven {@code pom.properties}, where the Actuator endpoint, health indicator and
 * info entry read its version when the jar manifest is not there to ask (as in a native image);</li>
 * <li>the JNA {@code ByReference} types uform passes to the CUDA driver and NVML: JNA makes one of
 * each through its no-argument constructor, reflectively, to learn how to pass it;</li>
 * <li>uform's libc binding for thread pinning ({@code sched_setaffinity}, bound by JNA direct
 * mapping): JNA lists the class's declared methods and registers them as JNI natives;</li>
 * <li>the config records' components, which the starter reads to name the property behind a field
 * uform refused.</li>
 * </ul>
 * JNA's own needs (its {@code jnidispatch} library and the JNI calls that library makes into JNA)
 * are JNA's to declare, whatever application uses it; the Actuator endpoint's replies are
 * registered by its own {@code @RegisterReflectionForBinding}, and the starter's
 * {@code spring.factories} entries and {@code @ConfigurationProperties} by Spring itself.
 */
public class UformRuntimeHints implements RuntimeHintsRegistrar {

	/** The kernels' directory in the uform-java jar; every file in it is read by name. */
	static final String KERNELS = "io/uform/kernels/*";

	/** uform-java's Maven properties, its version's source where no manifest is read. */
	static final String POM_PROPERTIES = "META-INF/maven/io.uform/uform-java/pom.properties";

	/** uform's libc binding, bound by JNA direct mapping (a private class: named, not referenced). */
	static final String LIBC_BINDING = "io.uform.host.LinuxThreadPinner$Libc";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(KERNELS).registerPattern(POM_PROPERTIES);
		for (Class<?> byReference : new Class<?>[] { IntByReference.class, LongByReference.class,
				PointerByReference.class }) {
			hints.reflection().registerType(byReference, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
		}
		TypeReference libc = TypeReference.of(LIBC_BINDING);
		hints.reflection().registerType(libc, MemberCategory.INVOKE_DECLARED_METHODS);
		hints.jni().registerType(libc, MemberCategory.INVOKE_DECLARED_METHODS);
		for (Class<?> config : new Class<?>[] { ExecutorForRamConfig.class, ExecutorForVramConfig.class,
				MeshOptions.class }) {
			hints.reflection().registerType(config, MemberCategory.INVOKE_PUBLIC_METHODS);
		}
	}
}
