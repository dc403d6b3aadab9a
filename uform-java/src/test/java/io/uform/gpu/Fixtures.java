package io.uform.gpu;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/** Roots of the sysfs fixture trees under {@code src/test/resources/gpu/}. */
final class Fixtures {

	private Fixtures() {
	}

	static Path root(String name) {
		URL url = Fixtures.class.getResource("/gpu/" + name);
		if (url == null) {
			throw new IllegalArgumentException("No fixture tree gpu/" + name);
		}
		try {
			return Path.of(url.toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}
}
