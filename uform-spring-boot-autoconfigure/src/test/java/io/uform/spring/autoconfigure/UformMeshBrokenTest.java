package io.uform.spring.autoconfigure;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.uform.Mesh;
import io.uform.MeshLiveness;
import io.uform.mesh.FileRendezvous;
import io.uform.spring.autoconfigure.actuate.UformEndpoint;
import io.uform.spring.autoconfigure.actuate.UformHealthIndicator;
import io.uform.spring.autoconfigure.child.MeshPeer;
import io.uform.spring.autoconfigure.metrics.UformMeshMetrics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A context whose mesh peer, a real process, is killed with SIGKILL: the uform health goes DOWN naming
 * the dead process, {@code /actuator/uform/mesh} says {@code broken} and who died,
 * {@code uform.mesh.deaths} counts it, a {@link UformMeshBrokenEvent} is published, and the context
 * stays open unless {@code uform.mesh.close-context-when-broken} is set.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UformMeshBrokenTest {

	@TempDir
	Path directory;

	private Process peer;

	@AfterEach
	void killThePeer() throws InterruptedException {
		if (this.peer != null && this.peer.isAlive()) {
			this.peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void aPeerKilledAfterTheJoinMakesTheHealthDownTheEndpointBrokenAndTheEventPublished() throws Exception {
		ConfigurableApplicationContext context = start("broken", false);
		try {
			Mesh mesh = context.getBean(Mesh.class);
			UformHealthIndicator health = new UformHealthIndicator(context);
			assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			new UformMeshMetrics(mesh, "uformMesh").bindTo(registry);
			assertThat(registry.get("uform.mesh.deaths").functionCounter().count()).isZero();
			long pid = this.peer.pid();
			this.peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			Events events = context.getBean(Events.class);
			awaitEvent(events);
			assertThat(events.received.get(0).getLiveness().state()).isEqualTo(MeshLiveness.State.BROKEN);
			assertThat(events.received.get(0).getLiveness().deadPid()).isEqualTo(pid);
			Health down = health.health(true);
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) down.getDetails().get("reason")).contains("mesh 'uformMesh' is broken: index 1 (host "
					+ FileRendezvous.hostName() + ", pid " + pid + ") died").contains("the run must be restarted");
			assertThat(down.getDetails().get("mesh")).isEqualTo(Map.of("uformMesh", "broken"));
			UformEndpoint.MeshDescriptor described = (UformEndpoint.MeshDescriptor) new UformEndpoint(
					context.getBeanFactory()).part(UformEndpoint.MESH);
			assertThat(described.state()).isEqualTo("broken");
			assertThat(described.hostDomainCount()).as("the description stays").isEqualTo(2);
			assertThat(described.dead().index()).isEqualTo(1);
			assertThat(described.dead().pid()).isEqualTo(pid);
			assertThat(registry.get("uform.mesh.deaths").functionCounter().count()).isEqualTo(1);
			assertThat(context.isActive()).as("not closed: off by default").isTrue();
		}
		finally {
			context.close();
		}
		assertThat(this.directory.resolve("broken")).as("the dead index marked, the last one out removed it")
			.doesNotExist();
	}

	@Test
	void withCloseContextWhenBrokenTheContextClosesWhenAPeerDies() throws Exception {
		ConfigurableApplicationContext context = start("closing", true);
		try {
			Events events = context.getBean(Events.class);
			this.peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (context.isActive()) {
				assertThat(System.nanoTime() - deadline).as("the context never closed").isNegative();
				Thread.sleep(20);
			}
			assertThat(events.received).hasSize(1);
		}
		finally {
			context.close();
		}
	}

	private ConfigurableApplicationContext start(String job, boolean close) throws IOException {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Duform.devices.simulated=1", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
				System.getProperty("java.class.path"), MeshPeer.class.getName(), this.directory.toString(), job, "1", "2",
				"1000"));
		this.peer = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		SpringApplication application = new SpringApplication(Listening.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		return application.run("--uform.ram.threads=1", "--uform.vram.devices=0", "--uform.mesh.host-domain-index=0",
				"--uform.mesh.host-domain-count=2", "--uform.mesh.directory=" + this.directory, "--uform.mesh.job=" + job,
				"--uform.mesh.timeout=30s", "--uform.mesh.liveness-timeout=1s",
				"--uform.mesh.close-context-when-broken=" + close);
	}

	private static void awaitEvent(Events events) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (events.received.isEmpty()) {
			assertThat(System.nanoTime() - deadline).as("no UformMeshBrokenEvent").isNegative();
			Thread.sleep(20);
		}
	}

	/** Collects the broken-mesh events. */
	static final class Events implements ApplicationListener<UformMeshBrokenEvent> {

		final List<UformMeshBrokenEvent> received = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(UformMeshBrokenEvent event) {
			this.received.add(event);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@org.springframework.boot.autoconfigure.ImportAutoConfiguration(UformAutoConfiguration.class)
	static class Listening {

		@Bean
		Events events() {
			return new Events();
		}
	}
}
