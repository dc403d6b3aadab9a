package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

import ch.qos.logback.classic.pattern.TargetLengthBasedClassNameAbbreviator;
import org.apache.commons.logging.Log;
import org.junit.jupiter.api.Test;

import org.springframework.boot.logging.DeferredLogFactory;
import io.uform.spring.autoconfigure.diagnostics.UformUnknownProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every class of the starter that logs has a name that Boot's console format shows whole: its logger
 * column is {@code %-40.40logger{39}}, which shortens the packages to initials and then cuts the name
 * at the front, so {@code i.u.s.a.UnknownPropertiesEnvironmentPostProcessor} reads
 * {@code nknownPropertiesEnvironmentPostProcessor}.
 */
class LoggerNamesTest {

	/** Boot's console column: abbreviated to 39, then cut to 40 from the front. */
	private static final int COLUMN = 40;

	@Test
	void everyClassThatLogsFitsBootsLoggerColumnWhole() throws IOException, URISyntaxException {
		TreeSet<String> logging = classesThatLog();
		assertThat(logging).as("classes found that log").contains(UformUnknownProperties.class.getName(),
				UformSimulatedDevices.class.getName(), UformAutoConfiguration.class.getName());
		TargetLengthBasedClassNameAbbreviator abbreviator = new TargetLengthBasedClassNameAbbreviator(COLUMN - 1);
		for (String name : logging) {
			assertThat(abbreviator.abbreviate(name)).as("logger name of %s in Boot's console", name)
				.hasSizeLessThanOrEqualTo(COLUMN);
		}
	}

	/** The top-level classes of the starter with a {@link Log} or made with Boot's deferred log factory. */
	private static TreeSet<String> classesThatLog() throws IOException, URISyntaxException {
		Path root = Path.of(UformAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		TreeSet<String> found = new TreeSet<>();
		List<Path> classes;
		try (Stream<Path> files = Files.walk(root)) {
			classes = files.filter((file) -> file.toString().endsWith(".class")).toList();
		}
		for (Path file : classes) {
			String name = root.relativize(file).toString().replace(".class", "").replace(file.getFileSystem()
				.getSeparator(), ".");
			Class<?> type;
			try {
				type = Class.forName(name, false, LoggerNamesTest.class.getClassLoader());
			}
			catch (ClassNotFoundException | LinkageError ex) {
				continue;
			}
			if (logs(type)) {
				found.add(name.contains("$") ? name.substring(0, name.indexOf('$')) : name);
			}
		}
		return found;
	}

	private static boolean logs(Class<?> type) {
		for (Field field : type.getDeclaredFields()) {
			if (Log.class.isAssignableFrom(field.getType())) {
				return true;
			}
		}
		for (Constructor<?> constructor : type.getDeclaredConstructors()) {
			if (List.of(constructor.getParameterTypes()).contains(DeferredLogFactory.class)) {
				return true;
			}
		}
		return false;
	}
}
