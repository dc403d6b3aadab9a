package io.uform.host;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SystemThreadPinnerTest {

	@Test
	void withoutJnaThePinnerSaysSoInsteadOfThrowing() throws Exception {
		// uform's own classes in a loader that cannot see JNA, as in an application that left it out.
		URL classes = ThreadPinner.class.getProtectionDomain().getCodeSource().getLocation();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { classes }, ClassLoader.getPlatformClassLoader())) {
			Class<?> pinnerType = loader.loadClass(ThreadPinner.class.getName());
			Object pinner = pinnerType.getMethod("system").invoke(null);
			Method pin = pinnerType.getMethod("pinCurrentThread", int[].class);
			Object reason = pin.invoke(pinner, (Object) new int[] { 0 });
			if (System.getProperty("os.name", "").startsWith("Linux")) {
				assertThat(reason).asString().startsWith("JNA is not on the class path").contains("com/sun/jna");
			}
			else {
				assertThat(reason).asString().startsWith("pinning uses Linux's sched_setaffinity");
			}
		}
	}
}
