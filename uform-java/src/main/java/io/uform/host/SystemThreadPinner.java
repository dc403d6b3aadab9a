package io.uform.host;

/**
 * Holds the machine's {@link ThreadPinner}, probed once when first asked for. Kept apart from
 * {@link LinuxThreadPinner} so that the only reference to JNA's classes sits inside the guard that
 * turns their absence into a reason.
 */
final class SystemThreadPinner {

	static final ThreadPinner INSTANCE = probe();

	private SystemThreadPinner() {
	}

	static ThreadPinner probe() {
		String os = System.getProperty("os.name", "unknown");
		if (!os.startsWith("Linux")) {
			return ThreadPinner.unavailable("pinning uses Linux's sched_setaffinity; this OS is " + os);
		}
		try {
			return LinuxThreadPinner.load();
		}
		catch (NoClassDefFoundError ex) {
			return ThreadPinner.unavailable("JNA is not on the class path (" + ex.getMessage() + ")");
		}
		catch (LinkageError ex) {
			// UnsatisfiedLinkError (JNA's stub or libc not loadable, e.g. a noexec temp directory) or
			// ExceptionInInitializerError around one, or around a refused native access on newer JDKs.
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			return ThreadPinner.unavailable("JNA could not bind libc's sched_setaffinity: " + cause);
		}
		catch (RuntimeException ex) {
			return ThreadPinner.unavailable("JNA could not bind libc's sched_setaffinity: " + ex);
		}
	}
}
