package io.uform.spring.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Boot finds uform's background preinitializer where it looks for its own (in
 * {@code META-INF/spring.factories}), and running it never throws, whatever the machine offers.
 */
class UformBackgroundPreinitializerTest {

	@Test
	void bootLoadsItBesideItsOwnPreinitializers() {
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(BackgroundPreinitializer.class))
			.hasAtLeastOneElementOfType(UformBackgroundPreinitializer.class);
	}

	@Test
	void runningItTwiceNeverThrows() {
		assertThatNoException().isThrownBy(() -> {
			new UformBackgroundPreinitializer().preinitialize();
			new UformBackgroundPreinitializer().preinitialize();
		});
	}
}
