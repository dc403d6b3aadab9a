package io.uform.spring.autoconfigure.actuate;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.SingletonBeanRegistry;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.Uform;

/**
 * What the endpoint, the health indicator and the info contributor read alike: uform's version, its
 * capability tokens, and the executor and mesh beans that already exist.
 */
final class UformFacts {

	/** Written into every jar by Maven; read when the manifest has no {@code Implementation-Version}. */
	static final String POM_PROPERTIES = "/META-INF/maven/io.uform/uform-java/pom.properties";

	/** The version reported when neither the manifest nor the Maven properties say. */
	static final String UNKNOWN_VERSION = "unknown";

	private static volatile @Nullable String version;

	private UformFacts() {
	}

	/**
	 * The version of the uform-java library on the class path: its jar manifest's
	 * {@code Implementation-Version} where it has one, else the {@code version} of the
	 * {@code pom.properties} Maven writes into the jar, else {@value #UNKNOWN_VERSION} (classes run from
	 * a build directory, as in an IDE).
	 * @return the version
	 */
	static String version() {
		String known = version;
		if (known == null) {
			known = readVersion();
			version = known;
		}
		return known;
	}

	private static String readVersion() {
		String implementation = Uform.class.getPackage().getImplementationVersion();
		if (implementation != null && !implementation.isBlank()) {
			return implementation;
		}
		try (InputStream in = Uform.class.getResourceAsStream(POM_PROPERTIES)) {
			if (in != null) {
				Properties properties = new Properties();
				properties.load(in);
				String fromPom = properties.getProperty("version");
				if (fromPom != null && !fromPom.isBlank()) {
					return fromPom.trim();
				}
			}
		}
		catch (IOException ex) {
			// Unreadable: the version is not worth failing an actuator call for.
		}
		return UNKNOWN_VERSION;
	}

	/**
	 * Every capability token this build of uform knows ({@link Uform#capabilitiesCompiled()}).
	 * @return the tokens, in uform's vocabulary order
	 */
	static List<String> compiled() {
		return tokens(Uform.capabilitiesCompiled());
	}

	/**
	 * The capability tokens this machine offers now ({@link Uform#capabilitiesAvailable()}).
	 * @return the tokens, a subset of {@link #compiled()} in the same order
	 */
	static List<String> available() {
		return tokens(Uform.capabilitiesAvailable());
	}

	private static List<String> tokens(String joined) {
		return Arrays.stream(joined.split(",")).map(String::trim).filter((token) -> !token.isEmpty()).toList();
	}

	/**
	 * The beans of a type that exist, by bean name, in registration order: the executor or mesh beans.
	 * Non-default candidates (the VRAM executor) are included; a bean that is not made yet (lazy) or not
	 * a singleton is left out, so that looking never makes one.
	 *
	 * <p>Threads meet here: a health check or an endpoint read on a request thread while the context
	 * closes on another and destroys its singletons. So each bean is read once, from the singleton
	 * registry, which answers {@code null} for one destroyed since its name was listed; never with
	 * {@code getBean} after a check that it exists, which for a bean destroyed in between would make it
	 * again, or throw {@code BeanCreationNotAllowedException} while the singletons are being destroyed.
	 * @param beans the bean factory
	 * @param type {@code Executor} or {@code Mesh}
	 * @param <T> the type
	 * @return the beans
	 */
	static <T> Map<String, T> existing(ListableBeanFactory beans, Class<T> type) {
		SingletonBeanRegistry singletons = singletons(beans);
		Map<String, T> made = new LinkedHashMap<>();
		for (String name : beans.getBeanNamesForType(type, false, false)) {
			if (singletons == null) {
				made.put(name, beans.getBean(name, type));
				continue;
			}
			// A FactoryBean's singleton is the factory: asking for its object could make an executor.
			Object bean = isFactoryBean(beans, name) ? null : singletons.getSingleton(name);
			if (type.isInstance(bean)) {
				made.put(name, type.cast(bean));
			}
		}
		return made;
	}

	private static boolean isFactoryBean(ListableBeanFactory beans, String name) {
		ListableBeanFactory factory = (beans instanceof ConfigurableApplicationContext context) ? context.getBeanFactory()
				: beans;
		try {
			return factory instanceof ConfigurableListableBeanFactory configurable && configurable.isFactoryBean(name);
		}
		catch (NoSuchBeanDefinitionException ex) {
			return false;
		}
	}

	private static @Nullable SingletonBeanRegistry singletons(ListableBeanFactory beans) {
		if (beans instanceof SingletonBeanRegistry registry) {
			return registry;
		}
		if (beans instanceof ApplicationContext context) {
			try {
				return (context.getAutowireCapableBeanFactory() instanceof SingletonBeanRegistry registry) ? registry
						: null;
			}
			catch (IllegalStateException ex) {
				// Not refreshed yet, or closed: the lookups that follow say so themselves.
				return null;
			}
		}
		return null;
	}
}
