package io.uform.spring.autoconfigure;

import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;

import io.uform.Uform;

/**
 * Discovers the GPUs ({@link Uform#gpuDevices()}), binds uform's native calls where they will be
 * needed (JNA and libc, for thread pinning on a machine with several NUMA nodes), reads the CPU's
 * classes and loads the classes of an executor's host side on Spring Boot's {@code background-preinit}
 * thread,
 * while the main thread prepares the context, so that neither the {@code uform.vram.enabled=auto}
 * condition nor the RAM executor bean pays for them on the main thread: {@link Uform#preinitialize()}
 * and discovery.
 *
 * <p>Discovery comes first: the condition, evaluated while the auto-configurations are parsed, needs
 * it before the executor beans are made; where there is a sign of an NVIDIA driver it loads JNA, which
 * the thread pinning then reuses. It may
 * run here, unlike in {@link Uform#preinitialize()}, because Boot runs this after the environment
 * post-processors, so {@code uform.devices.simulated} has been applied by then. It runs whatever
 * {@code uform.vram.enabled} says (the environment is not known here): the metrics, the endpoint and
 * the health indicator list the devices too.
 *
 * <p>Boot runs it as it runs its own preinitializers: once the environment is prepared, on machines
 * with more than one processor, unless the system property
 * {@code spring.backgroundpreinitializer.ignore} is {@code true}. The system property
 * {@value #IGNORE_PROPERTY} set to {@code true} turns off this one alone. Where it has not finished
 * when the executor is made, the main thread waits only for what it still needs (class
 * initialisation is thread-safe and done once). Registered in {@code META-INF/spring.factories}.
 */
public class UformBackgroundPreinitializer implements BackgroundPreinitializer {

	/**
	 * System property that, set to {@code true}, leaves uform's one-time work to the main thread. Named
	 * outside {@code uform.*}, where every key is a Spring property that the unknown-key check would
	 * warn about: this one is read with {@link Boolean#getBoolean}, before the environment exists.
	 */
	public static final String IGNORE_PROPERTY = "io.uform.backgroundpreinitializer.ignore";

	@Override
	public void preinitialize() {
		if (!Boolean.getBoolean(IGNORE_PROPERTY)) {
			try {
				// No driver, or a failing one, is no devices, with the reason kept: this never throws
				// unless discovery itself is broken, which the condition then meets again and reports.
				Uform.gpuDevices();
			}
			catch (RuntimeException ex) {
				// Reported by the condition or bean that needs the devices.
			}
			Uform.preinitialize();
		}
	}
}
