package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.uform.GpuDevice;
import io.uform.GpuVendor;
import io.uform.Uform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Boot finds uform's background preinitializer where it looks for its own (in
 * {@code META-INF/spring.factories}), running it never throws, whatever the machine offers, and the
 * GPU discovery it starts sees the simulated devices that a Spring property asks for.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
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

	/**
	 * Discovery runs once per JVM, and on the background thread it may run before the main thread
	 * needs it: it must still see {@code uform.devices.simulated} set as a Spring property (applied
	 * to the JVM by an environment post-processor), so ask a fresh JVM that has no such system
	 * property, with the property on its command line.
	 */
	@Test
	void discoveryInTheBackgroundSeesSimulatedDevicesSetAsASpringProperty() throws Exception {
		String report = SimulatedByProperty.runInChildJvm("--uform.devices.simulated=1");
		assertThat(report).contains("SIMULATED 1").contains("VRAM-BEAN true");
	}

	/** An application in a child JVM that reports the simulated devices it sees and its VRAM bean. */
	static final class SimulatedByProperty {

		public static void main(String[] args) {
			try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
				.web(WebApplicationType.NONE)
				.properties("spring.main.banner-mode=off", "uform.ram.threads=1")
				.run(args)) {
				List<GpuDevice> devices = Uform.gpuDevices();
				System.out.println("SIMULATED " + devices.stream().filter((d) -> d.vendor() == GpuVendor.SIMULATED).count());
				System.out.println("VRAM-BEAN " + context.containsBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME));
			}
		}

		static String runInChildJvm(String... args) throws IOException, InterruptedException {
			// No -Duform.devices.simulated: the child must get its devices from the Spring property alone.
			return ChildJvm.run(SimulatedByProperty.class, List.of("--enable-native-access=ALL-UNNAMED", "-Xshare:auto"),
					0, 60, args);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(UformAutoConfiguration.class)
	static class App {

	}
}
