package io.uform.spring.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import io.uform.Executor;
import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshOptions;
import io.uform.UformException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mesh beans made from {@code uform.mesh.*}, on this module's two simulated devices: made only
 * when {@code host-domain-count} is set, joined before the context is ready, left first when it
 * closes (before the VRAM executor it borrows is freed), with the user's own options winning and
 * customizers applied in order. Two contexts in one JVM stand for two processes of one run: each
 * VRAM executor takes the device the other does not hold.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class UformMeshAutoConfigurationTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1");

	@Test
	void noMeshUnlessHostDomainCountIsSet() {
		this.contextRunner.withPropertyValues("uform.mesh.directory=/tmp", "uform.mesh.job=run-1")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(MeshOptions.class)
				.doesNotHaveBean(UformAutoConfiguration.MESH_BEAN_NAME));
	}

	@Test
	void aTimeoutWithoutAUnitIsSecondsAsMeshOptionsCountsThem() {
		this.contextRunner.withPropertyValues("uform.mesh.host-domain-count=1", "uform.mesh.timeout=300")
			.run((context) -> assertThat(context.getBean(MeshOptions.class).timeout()).hasSeconds(300));
	}

	@Test
	void aRunOfOneJoinsWithTheContextAndLeavesBeforeTheExecutorIsFreed(CapturedOutput output) {
		Mesh[] mesh = new Mesh[1];
		Executor[] vram = new Executor[1];
		this.contextRunner.withPropertyValues("uform.mesh.host-domain-count=1", "uform.mesh.timeout=30s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				MeshOptions options = context.getBean(MeshOptions.class);
				assertThat(options.hostDomainCount()).isEqualTo(1);
				assertThat(options.timeout()).hasSeconds(30);
				mesh[0] = context.getBean(UformAutoConfiguration.MESH_BEAN_NAME, Mesh.class);
				vram[0] = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
				MeshDescription description = mesh[0].describe();
				assertThat(description.hostDomainCount()).isEqualTo(1);
				assertThat(description.gpusPerHost()).isEqualTo(vram[0].devices().size());
			});
		assertThatThrownBy(() -> mesh[0].describe()).isInstanceOf(UformException.class)
			.hasMessageContaining("was freed");
		assertThat(vram[0].statistics().state()).isEqualTo(Executor.State.FREED);
		// Freeing the executor under a live mesh is refused and would have been logged as a WARN.
		assertThat(output).contains("Joined uform mesh bean 'uformMesh'")
			.doesNotContain("could not be freed cleanly")
			.doesNotContain("could not leave cleanly");
	}

	/**
	 * Lifecycles stop from the highest phase down: the mesh before Boot's graceful shutdown of the web
	 * server, the executors after it. {@link UformMeshWebServerTest} shows the order with a real server.
	 */
	@Test
	void theMeshLeavesFirstAndTheExecutorsAfterTheWebServer() {
		assertThat(UformMeshLifecycle.PHASE).isGreaterThan(WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE);
		assertThat(UformExecutorLifecycle.PHASE).isLessThan(WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE);
	}

	@Test
	void twoProcessesOfOneRunMeetThroughTheDirectoryAndTheLastOutRemovesIt(@TempDir Path directory)
			throws Exception {
		List<CompletableFuture<ConfigurableApplicationContext>> started = new ArrayList<>();
		// Each waits in its bean creation for the other, so each starts on a thread of its own (not the
		// common pool, which on a 2-core machine may run one task at a time).
		ExecutorService threads = Executors.newFixedThreadPool(2);
		for (int index = 0; index < 2; index++) {
			String[] args = { "--uform.mesh.host-domain-index=" + index, "--uform.mesh.host-domain-count=2",
					"--uform.mesh.directory=" + directory, "--uform.mesh.job=run-7", "--uform.mesh.timeout=30s" };
			started.add(CompletableFuture.supplyAsync(() -> start(args), threads));
			// The second starts once the first is waiting in its bean creation (its member file is
			// written): two SpringApplications initialising logging at once in one JVM race in Logback.
			awaitMemberFiles(directory.resolve("run-7"), index + 1);
		}
		threads.shutdown();
		List<ConfigurableApplicationContext> contexts = new ArrayList<>();
		try {
			for (CompletableFuture<ConfigurableApplicationContext> context : started) {
				contexts.add(context.get(45, TimeUnit.SECONDS));
			}
			for (int index = 0; index < 2; index++) {
				MeshDescription description = contexts.get(index).getBean(Mesh.class).describe();
				assertThat(description.hostDomainIndex()).isEqualTo(index);
				assertThat(description.hostDomainCount()).isEqualTo(2);
				assertThat(description.job()).isEqualTo("run-7");
				assertThat(description.peerHosts()).hasSize(2);
			}
			assertThat(directory.resolve("run-7")).isDirectory();
		}
		finally {
			contexts.forEach(ConfigurableApplicationContext::close);
		}
		assertThat(Files.exists(directory.resolve("run-7"))).as("job directory after both left").isFalse();
	}

	@Test
	void theUsersOwnOptionsWinAndCustomizersApplyInOrder() {
		this.contextRunner.withBean(MeshOptions.class, () -> new MeshOptions(null, 1, null, null, "mine", null))
			.withBean("second", MeshOptionsCustomizer.class, () -> new AppendSecond())
			.withBean("first", MeshOptionsCustomizer.class, () -> new AppendFirst())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(MeshOptions.class).job()).isEqualTo("mine");
				assertThat(context.getBean(Mesh.class).describe().job()).isEqualTo("mine");
			});
		this.contextRunner.withPropertyValues("uform.mesh.host-domain-count=1", "uform.mesh.job=run")
			.withBean("second", MeshOptionsCustomizer.class, () -> new AppendSecond())
			.withBean("first", MeshOptionsCustomizer.class, () -> new AppendFirst())
			.run((context) -> assertThat(context.getBean(Mesh.class).describe().job()).isEqualTo("run-1-2"));
	}

	private static void awaitMemberFiles(Path job, int count) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (memberFiles(job) < count) {
			assertThat(System.nanoTime()).as("%d member file(s) in %s within 30 s", count, job).isLessThan(deadline);
			Thread.sleep(10);
		}
	}

	private static long memberFiles(Path job) throws Exception {
		if (!Files.isDirectory(job)) {
			return 0;
		}
		try (var files = Files.list(job)) {
			return files.map((file) -> file.getFileName().toString())
				.filter((name) -> name.startsWith("member-") && name.endsWith(".properties"))
				.count();
		}
	}

	private static ConfigurableApplicationContext start(String... args) {
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "uform.ram.threads=1")
			.run(args);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(UformAutoConfiguration.class)
	static class App {

	}

	@Order(1)
	static class AppendFirst implements MeshOptionsCustomizer {

		@Override
		public MeshOptions customize(MeshOptions options) {
			return new MeshOptions(options.hostDomainIndex(), options.hostDomainCount(), options.gpusPerMultimemDomain(),
					options.directory(), options.job() + "-1", options.timeout());
		}
	}

	@Order(2)
	static class AppendSecond implements MeshOptionsCustomizer {

		@Override
		public MeshOptions customize(MeshOptions options) {
			return new MeshOptions(options.hostDomainIndex(), options.hostDomainCount(), options.gpusPerMultimemDomain(),
					options.directory(), options.job() + "-2", options.timeout());
		}
	}
}
