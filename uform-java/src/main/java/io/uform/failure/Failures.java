package io.uform.failure;

/**
 * The one place {@code io.uform.gpu} and {@code io.uform.mesh} get their {@link FailureFactory}: the
 * API ({@code io.uform}) installs its own here as its factory class is initialised.
 *
 * <p>A hook rather than a constructor argument, because those packages fail from process-wide
 * singletons and static entry points (GPU discovery, the CUDA and simulated runtimes, the simulated
 * devices' settings, the file rendezvous) that the {@code uform-info} command, benchmarks and tests
 * also reach without going through the API; {@code io.uform.host}, whose every object the API makes,
 * takes the factory as an argument instead. The hook lives here and names no API type, so that
 * dependencies between the packages stay one way ({@code PackageCyclesTest}); the first runtime
 * failure loads the API's factory class by name, so that whichever class was used first, the runtime
 * never throws anything but the API's exception.
 */
public final class Failures {

	/** The API's factory class, initialised on the first failure if nothing installed it yet. */
	private static final String API_FACTORY = "io.uform.UformFailures";

	private static volatile FailureFactory installed;

	private Failures() {
	}

	/**
	 * Installs the API's factory; called once, from that factory's class initialiser.
	 * @param factory the factory every runtime failure is made with from now on
	 */
	public static void install(FailureFactory factory) {
		installed = factory;
	}

	/**
	 * The factory the runtime makes its exceptions with.
	 * @return the API's factory
	 * @throws IllegalStateException when the API's factory class is missing from this build or did not
	 *         install itself
	 */
	public static FailureFactory factory() {
		FailureFactory factory = installed;
		if (factory == null) {
			try {
				Class.forName(API_FACTORY, true, Failures.class.getClassLoader());
			}
			catch (ClassNotFoundException ex) {
				throw new IllegalStateException(API_FACTORY + " is missing: uform's runtime needs the API of the "
						+ "same jar to make its exceptions", ex);
			}
			factory = installed;
			if (factory == null) {
				// Only while that class's own initialiser runs on this thread, which fails nothing.
				throw new IllegalStateException(API_FACTORY + " did not install itself in "
						+ Failures.class.getName());
			}
		}
		return factory;
	}
}
