package io.uform.host;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * JVM shutdown hooks that uform registers lazily, the first time something needs one, and at most
 * once each: the one that completes the futures of deferred calls still queued at exit, and the one
 * that leaves the meshes still joined. Executor and mesh threads are daemons, so these hooks are
 * what a normal exit ({@code main} returning, {@code System.exit}, SIGTERM) gives them.
 */
public final class ExitHooks {

	private static final Set<String> REGISTERED = ConcurrentHashMap.newKeySet();

	private ExitHooks() {
	}

	/**
	 * Registers {@code action} to run at JVM exit, on a thread called {@code name}, unless a hook of
	 * that name was registered already. Where the JVM is already exiting nothing is registered: what
	 * the action would have tidied up is left, as after a crash.
	 * @param name the hook thread's name, which also tells hooks apart
	 * @param action what to run
	 */
	public static void once(String name, Runnable action) {
		if (REGISTERED.contains(name) || !REGISTERED.add(name)) {
			return;
		}
		try {
			Runtime.getRuntime().addShutdownHook(new Thread(action, name));
		}
		catch (IllegalStateException ex) {
			// The JVM is already exiting.
		}
	}
}
