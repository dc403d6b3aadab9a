package io.uform.spring.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.uform.Executor;
import io.uform.GpuReadings;
import io.uform.ExecutorForRamConfig;
import io.uform.GpuDevice;
import io.uform.GpuVendor;
import io.uform.Mesh;
import io.uform.Uform;
import io.uform.UformException;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.actuate.UformEndpoint.DeviceDescriptor;
import io.uform.spring.autoconfigure.actuate.UformEndpoint.ExecutorDescriptor;
import io.uform.spring.autoconfigure.actuate.UformEndpoint.MeshDescriptor;
import io.uform.spring.autoconfigure.actuate.UformEndpoint.UformDescriptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the {@code uform} endpoint shows, on this module's two simulated devices: every section at the
 * root, each selector showing its section as the root does, one executor bean by name (both the RAM
 * and the non-default-candidate VRAM one), {@code null} (a 404 over HTTP) for what does not exist,
 * and the mesh while joined and once freed. JSON is written by Boot's own endpoint mapper, which
 * leaves out absent values.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformEndpointTest {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformEndpointAutoConfiguration.class,
				JacksonEndpointAutoConfiguration.class))
		.withPropertyValues("uform.ram.threads=1", "management.endpoints.web.exposure.include=uform");

	@Test
	void theRootShowsEverySection() {
		this.contextRunner.run((context) -> {
			UformDescriptor uform = endpoint(context).uform();
			assertThat(uform.version()).isNotBlank();
			assertThat(uform.capabilities().compiled()).contains("serial", "numa", "cuda", "rocm");
			assertThat(uform.capabilities().compiled()).containsAll(uform.capabilities().available());
			assertThat(uform.capabilities().available()).contains("serial")
				.doesNotContain("cuda", "rocm")
				.containsExactlyElementsOf(UformFacts.available());
			assertThat(uform.devices()).hasSize(Uform.gpuDevices().size()).hasSize(2);
			assertThat(uform.executors()).containsOnlyKeys(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
					UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
			assertThat(uform.mesh()).isNull();
			JsonNode json = json(context, uform);
			assertThat(json.propertyNames()).containsExactly("version", "capabilities", "devices", "executors");
		});
	}

	@Test
	void devicesShowEveryFieldOfGpuDeviceWhetherSimulatedAndWhatTheVendorReports() {
		this.contextRunner.run((context) -> {
			List<DeviceDescriptor> devices = endpoint(context).uform().devices();
			for (int ordinal = 0; ordinal < devices.size(); ordinal++) {
				DeviceDescriptor device = devices.get(ordinal);
				GpuDevice listed = Uform.gpuDevices().get(ordinal);
				assertThat(device.ordinal()).isEqualTo(ordinal);
				assertThat(device.vendor()).isEqualTo(GpuVendor.SIMULATED).isEqualTo(listed.vendor());
				assertThat(device.simulated()).isTrue();
				assertThat(device.name()).isEqualTo(listed.name());
				assertThat(device.memoryBytes()).isEqualTo(listed.memoryBytes()).isEqualTo(256L * 1024 * 1024);
				assertThat(device.computeUnits()).isEqualTo(listed.computeUnits());
				assertThat(device.vendorOrdinal()).isEqualTo(listed.vendorOrdinal());
				assertThat(device.gpuClass()).isEqualTo(listed.gpuClass());
				assertThat(device.uuid()).isEqualTo(listed.uuid());
				assertThat(device.pciBusId()).isEqualTo(listed.pciBusId());
				// Host memory reports memory used and total; utilisation, power and temperature it has not.
				assertThat(device.readings()).containsOnlyKeys("memoryUsedBytes", "memoryTotalBytes");
			}
			JsonNode first = json(context, devices).get(0);
			assertThat(first.get("simulated").asBoolean()).isTrue();
			assertThat(first.get("vendor").asString()).isEqualTo("SIMULATED");
			assertThat(first.get("readings").propertyNames()).containsExactly("memoryUsedBytes", "memoryTotalBytes");
		});
	}

	@Test
	void aDeviceThatCannotBeReadIsListedWithoutReadings() {
		this.contextRunner.run((context) -> {
			UformEndpoint endpoint = new UformEndpoint(context, Uform::gpuDevices, (ordinal) -> {
				throw new UformException(UformException.Status.DEVICE_ERROR, "lost");
			});
			List<DeviceDescriptor> devices = endpoint.uform().devices();
			assertThat(devices).hasSize(2).allSatisfy((device) -> assertThat(device.readings()).isNull());
			assertThat(json(context, devices).get(0).has("readings")).isFalse();
		});
	}

	@Test
	void everyReadingAVendorReportsIsShownUnderItsDocumentedKey() {
		// Simulated devices report memory only; a vendor's utilisation, power and temperature come
		// through the same record.
		this.contextRunner.run((context) -> {
			UformEndpoint endpoint = new UformEndpoint(context, Uform::gpuDevices,
					(ordinal) -> new GpuReadings(1000L + ordinal, 4000L, 87, 612.5, 71.0));
			DeviceDescriptor device = endpoint.uform().devices().get(1);
			assertThat(json(context, device).get("readings").propertyNames()).containsExactly("memoryUsedBytes",
					"memoryTotalBytes", "utilizationPercent", "powerWatts", "temperatureCelsius");
			assertThat(json(context, device).get("readings").get("memoryUsedBytes").asLong()).isEqualTo(1001L);
			assertThat(json(context, device).get("readings").get("utilizationPercent").asInt()).isEqualTo(87);
			assertThat(json(context, device).get("readings").get("powerWatts").asDouble()).isEqualTo(612.5);
			assertThat(json(context, device).get("readings").get("temperatureCelsius").asDouble()).isEqualTo(71.0);
		});
	}

	@Test
	void anExecutorShowsItsEffectiveConfigStateAndCounters() {
		this.contextRunner.withPropertyValues("uform.ram.deferred-limit=16").run((context) -> {
			Executor ram = context.getBean(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME, Executor.class);
			ram.forN(4, (index) -> {
			});
			ram.defer(() -> 42).get(10, TimeUnit.SECONDS);
			ExecutorDescriptor described = endpoint(context).executor(UformEndpoint.EXECUTORS,
					UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME);
			assertThat(described).isNotNull();
			assertThat(described.name()).isEqualTo(ram.name());
			assertThat(described.kind()).isEqualTo(Executor.Kind.RAM);
			assertThat(described.state()).isEqualTo(Executor.State.RUNNING);
			assertThat(described.config().threads()).isEqualTo(1);
			assertThat(described.config().deferredLimit()).isEqualTo(16);
			assertThat(described.config().memoryDomains()).isEqualTo(ram.statistics().memoryDomains()).isNotEmpty();
			assertThat(described.config().cpuClass()).isEqualTo(ram.statistics().cpuClass());
			assertThat(described.config().devices()).isEmpty();
			assertThat(described.config().scratchLimitBytes()).isNull();
			assertThat(described.colocations()).isEqualTo(ram.colocations());
			assertThat(described.pinning()).isEqualTo(ram.statistics().pinning());
			assertThat(described.forks()).isGreaterThanOrEqualTo(1);
			assertThat(described.deferred().limit()).isEqualTo(16);
			assertThat(described.deferred().completed()).isEqualTo(1);
			assertThat(described.deferred().inFlight()).isZero();
			assertThat(described.deferred().failed()).isZero();
			assertThat(described.deferred().cancelled()).isZero();
			assertThat(described.deferred().rejected()).isZero();
			assertThat(described.scratch()).isEmpty();
			JsonNode json = json(context, described);
			assertThat(json.propertyNames()).containsExactly("name", "kind", "state", "mood", "config", "colocations",
					"pinning", "forks", "deferred", "scratch");
			assertThat(json.get("kind").asString()).isEqualTo("RAM");
			assertThat(json.get("state").asString()).isEqualTo("RUNNING");
			assertThat(json.get("config").propertyNames()).containsExactly("threads", "memoryDomains", "cpuClass",
					"deferredLimit", "devices", "gpuClasses");
			assertThat(json.get("config").get("gpuClasses").isEmpty()).isTrue();
			assertThat(json.get("deferred").propertyNames()).containsExactly("inFlight", "limit", "completed",
					"failed", "cancelled", "rejected");
		});
	}

	@Test
	void theVramExecutorIsFoundByNameThoughItIsNotADefaultCandidate() {
		this.contextRunner.withPropertyValues("uform.vram.scratch-limit=64MB").run((context) -> {
			Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
			ExecutorDescriptor described = endpoint(context).executor(UformEndpoint.EXECUTORS,
					UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
			assertThat(described).isNotNull();
			assertThat(described.kind()).isEqualTo(Executor.Kind.VRAM);
			assertThat(described.name()).isEqualTo(vram.name());
			assertThat(described.config().devices()).isEqualTo(vram.statistics().devices()).hasSize(1);
			assertThat(described.config().scratchLimitBytes()).isEqualTo(64L * 1024 * 1024);
			// Simulated devices dispatch as their own class, on streams of the executor's own.
			assertThat(described.config().gpuClasses()).containsExactly("simulated");
			assertThat(described.config().streams()).isEqualTo("own");
			assertThat(described.scratch()).hasSize(1).allSatisfy((scratch) -> {
				assertThat(scratch.device()).isZero();
				assertThat(scratch.ordinal()).isEqualTo(vram.statistics().devices().get(0));
				assertThat(scratch.limitBytes()).isEqualTo(64L * 1024 * 1024);
				assertThat(scratch.inUseBytes()).isZero();
			});
			assertThat(json(context, described).get("scratch").get(0).propertyNames()).containsExactly("device",
					"ordinal", "reservedBytes", "inUseBytes", "highWaterBytes", "limitBytes");
		});
	}

	@Test
	void withoutAScratchLimitItIsLeftOut() {
		this.contextRunner.run((context) -> {
			ExecutorDescriptor described = endpoint(context).executor(UformEndpoint.EXECUTORS,
					UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
			JsonNode json = json(context, described);
			assertThat(json.get("config").has("scratchLimitBytes")).isFalse();
			assertThat(json.get("scratch").get(0).has("limitBytes")).isFalse();
		});
	}

	@Test
	void anExecutorNameThatIsNotAnExecutorBeanIsNullAndMakesNothing() {
		AtomicInteger made = new AtomicInteger();
		List<Executor> toFree = new ArrayList<>();
		this.contextRunner
			// No default candidates, so that the RAM executor is still made beside them.
			.withBean("lazyExecutor", Executor.class, () -> make(made, toFree), (definition) -> {
				definition.setLazyInit(true);
				((AbstractBeanDefinition) definition).setDefaultCandidate(false);
			})
			.withBean("prototypeExecutor", Executor.class, () -> make(made, toFree), (definition) -> {
				definition.setScope(BeanDefinition.SCOPE_PROTOTYPE);
				((AbstractBeanDefinition) definition).setDefaultCandidate(false);
			})
			// Its singleton is the factory; asking it for its object would make the executor.
			.withBean("factoryExecutor", ExecutorFactory.class, () -> new ExecutorFactory(made, toFree),
					(definition) -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false))
			.run((context) -> {
				UformEndpoint endpoint = endpoint(context);
				assertThat(endpoint.executor(UformEndpoint.EXECUTORS, "nope")).isNull();
				assertThat(endpoint.executor(UformEndpoint.EXECUTORS, "uformEndpoint")).isNull();
				assertThat(endpoint.executor(UformEndpoint.DEVICES, UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME))
					.isNull();
				assertThat(endpoint.executor(UformEndpoint.EXECUTORS, "lazyExecutor")).isNull();
				assertThat(endpoint.executor(UformEndpoint.EXECUTORS, "prototypeExecutor")).isNull();
				assertThat(endpoint.executor(UformEndpoint.EXECUTORS, "factoryExecutor")).isNull();
				assertThat(endpoint.uform().executors()).containsOnlyKeys(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
						UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
				assertThat(made).as("executors made by looking").hasValue(0);
			});
		toFree.forEach(Executor::free);
	}

	/**
	 * A reader (the endpoint on a request thread, the health indicator) and the context's close (on
	 * another thread, destroying the singletons) meet in the bean factory. The factory below destroys the
	 * executor at the worst moment of the old lookup, right after answering that it exists: the reader
	 * must then leave it out or show the instance it found, never make a new executor (in a closing
	 * context Spring refuses that with {@code BeanCreationNotAllowedException}, a 500 or a DOWN).
	 */
	@Test
	void anExecutorDestroyedWhileTheEndpointLooksIsNeverMadeAgain() {
		AtomicInteger made = new AtomicInteger();
		List<Executor> toFree = new ArrayList<>();
		DestroyedWhileLookedAt beans = new DestroyedWhileLookedAt("userExecutor");
		try {
			beans.registerBeanDefinition("userExecutor", BeanDefinitionBuilder
				.genericBeanDefinition(Executor.class, () -> make(made, toFree))
				.setDestroyMethodName("free")
				.getBeanDefinition());
			Executor existing = beans.getBean("userExecutor", Executor.class);
			UformEndpoint endpoint = new UformEndpoint(beans, List::of, (ordinal) -> {
				throw new IllegalStateException("no devices here");
			});
			Map<String, ExecutorDescriptor> shown = endpoint.uform().executors();
			assertThat(made).as("executors made, the one before the endpoint looked included").hasValue(1);
			if (!shown.isEmpty()) {
				assertThat(shown.get("userExecutor").name()).isEqualTo(existing.name());
			}
		}
		finally {
			beans.destroySingletons();
			toFree.forEach(Executor::free);
		}
	}

	/**
	 * A bean factory that destroys one singleton right after telling {@link UformFacts} that it exists
	 * (the factory asks itself the same question while it lists names; those answers are left alone).
	 */
	static final class DestroyedWhileLookedAt extends DefaultListableBeanFactory {

		private final String destroyed;

		DestroyedWhileLookedAt(String destroyed) {
			this.destroyed = destroyed;
		}

		@Override
		public boolean containsSingleton(String beanName) {
			boolean contains = super.containsSingleton(beanName);
			boolean askedByUformFacts = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
				.walk((frames) -> frames.skip(1).findFirst())
				.map((caller) -> caller.getDeclaringClass() == UformFacts.class)
				.orElse(false);
			if (contains && askedByUformFacts && beanName.equals(this.destroyed)) {
				destroySingleton(beanName);
			}
			return contains;
		}
	}

	@Test
	void eachSelectorShowsItsSectionAsTheRootShowsIt() {
		this.contextRunner.run((context) -> {
			UformEndpoint endpoint = endpoint(context);
			JsonNode root = json(context, endpoint.uform());
			JsonNode devices = json(context, endpoint.part(UformEndpoint.DEVICES));
			assertThat(devices.isArray()).isTrue();
			assertThat(devices.size()).isEqualTo(2);
			assertThat(devices.get(0).propertyNames())
				.containsExactlyElementsOf(root.get("devices").get(0).propertyNames());
			assertThat(json(context, endpoint.part(UformEndpoint.CAPABILITIES)))
				.isEqualTo(root.get("capabilities"));
			JsonNode executors = json(context, endpoint.part(UformEndpoint.EXECUTORS));
			assertThat(executors.propertyNames()).containsExactly(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
					UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME);
			assertThat(executors.get(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME).propertyNames())
				.containsExactlyElementsOf(
						root.get("executors").get(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME).propertyNames());
			assertThat(endpoint.part("nope")).isNull();
			assertThat(endpoint.part("version")).isNull();
		});
	}

	@Test
	void withoutAMeshTheMeshSelectorIsNull() {
		this.contextRunner.run((context) -> assertThat(endpoint(context).part(UformEndpoint.MESH)).isNull());
	}

	@Test
	void aJoinedMeshShowsWhatDescribeSaysAndAFreedOneOnlyItsState() {
		// No launcher's variables, whatever the build runs under: every origin below is a property or unset.
		this.contextRunner.withPropertyValues("uform.mesh.host-domain-count=1")
			.withInitializer((context) -> context.getEnvironment().getPropertySources().replace(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
							StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of())))
			.run((context) -> {
			UformEndpoint endpoint = endpoint(context);
			Mesh mesh = context.getBean(UformAutoConfiguration.MESH_BEAN_NAME, Mesh.class);
			Executor vram = context.getBean(UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, Executor.class);
			MeshDescriptor described = (MeshDescriptor) endpoint.part(UformEndpoint.MESH);
			assertThat(described).isNotNull().isEqualTo(endpoint.uform().mesh());
			assertThat(described.bean()).isEqualTo(UformAutoConfiguration.MESH_BEAN_NAME);
			assertThat(described.state()).isEqualTo("joined");
			assertThat(described.hostDomainIndex()).isEqualTo(mesh.describe().hostDomainIndex()).isZero();
			assertThat(described.hostDomainCount()).isEqualTo(1);
			assertThat(described.gpusPerHost()).isEqualTo(1);
			assertThat(described.gpusPerMultimemDomain()).isEqualTo(mesh.describe().gpusPerMultimemDomain());
			assertThat(described.multimemDomains()).isEqualTo(mesh.describe().multimemDomains());
			assertThat(described.multimemTier()).isEqualTo("peer-read");
			assertThat(described.devices()).isEqualTo(vram.statistics().devices());
			assertThat(described.peerHosts()).isEqualTo(mesh.describe().peerHosts()).hasSize(1);
			assertThat(json(context, described).propertyNames()).containsExactly("bean", "state", "hostDomainIndex",
					"hostDomainCount", "gpusPerHost", "gpusPerMultimemDomain", "multimemDomains", "multimemTier",
					"devices", "peerHosts", "origins");
			assertThat(described.origins()).containsEntry("launcher", "none (auto)")
				.containsEntry("hostDomainIndex", "unset: 0")
				.containsEntry("directory", "unset")
				.containsEntry("timeout", "unset: 120s")
				.hasEntrySatisfying("hostDomainCount", (origin) -> assertThat(origin).startsWith("uform.mesh.host-domain-count"));
			mesh.free();
			MeshDescriptor freed = (MeshDescriptor) endpoint.part(UformEndpoint.MESH);
			assertThat(freed).isNotNull();
			assertThat(freed.state()).isEqualTo("freed");
			assertThat(json(context, freed).propertyNames()).containsExactly("bean", "state");
			assertThat(json(context, endpoint.uform()).get("mesh").get("state").asString()).isEqualTo("freed");
		});
	}

	/** Makes its executor only when asked for its object. */
	static final class ExecutorFactory implements org.springframework.beans.factory.FactoryBean<Executor> {

		private final AtomicInteger made;

		private final List<Executor> toFree;

		ExecutorFactory(AtomicInteger made, List<Executor> toFree) {
			this.made = made;
			this.toFree = toFree;
		}

		@Override
		public Executor getObject() {
			return make(this.made, this.toFree);
		}

		@Override
		public Class<?> getObjectType() {
			return Executor.class;
		}
	}

	private static Executor make(AtomicInteger made, List<Executor> toFree) {
		made.incrementAndGet();
		Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
		toFree.add(executor);
		return executor;
	}

	private static UformEndpoint endpoint(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed().hasSingleBean(UformEndpoint.class);
		return context.getBean(UformEndpoint.class);
	}

	/** Writes a response as Boot writes endpoint responses over HTTP: with its endpoint JSON mapper. */
	static JsonNode json(AssertableApplicationContext context, Object response) {
		return context.getBean(EndpointJsonMapper.class).get().valueToTree(response);
	}
}
