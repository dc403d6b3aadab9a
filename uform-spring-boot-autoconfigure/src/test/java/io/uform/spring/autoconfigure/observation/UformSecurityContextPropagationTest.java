package io.uform.spring.autoconfigure.observation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

import io.micrometer.context.ContextRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderThreadLocalAccessor;
import org.springframework.security.core.context.SecurityContextImpl;

import io.uform.DeferredCallDecorator;
import io.uform.Executor;
import io.uform.ExecutorHooks;
import io.uform.ForkDecorator;
import io.uform.spring.autoconfigure.UformAutoConfiguration;
import io.uform.spring.autoconfigure.UformExecutorHooks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Security's context with the starter's context propagation, where spring-security-core is on
 * the class path (its jar registers {@link SecurityContextHolderThreadLocalAccessor} with Micrometer's
 * {@link ContextRegistry}): the {@link SecurityContextHolder} authentication of the thread that submits
 * a deferred call is the call's, and the forking thread's is every fork body's where
 * {@code uform.ram.fork-context-propagation} asks; and uform's threads keep none of it afterwards, as
 * a {@link ThreadStateProbe} around the starter's own hooks reads on each thread just before the
 * starter's scope opens there and just after it closes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UformSecurityContextPropagationTest {

	private static final String RAM = UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME;

	private static final String NONE = "none";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(UformAutoConfiguration.class, UformObservationAutoConfiguration.class))
		.withBean(ThreadStateProbe.class, ThreadStateProbe::new)
		.withPropertyValues("uform.ram.threads=3", "uform.vram.enabled=false");

	@AfterEach
	void clearTheTestThreadsSecurityContext() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void springSecurityRegistersItsAccessorWithTheContextRegistryTheStarterCaptures() {
		assertThat(ContextRegistry.getInstance().getThreadLocalAccessors())
			.hasAtLeastOneElementOfType(SecurityContextHolderThreadLocalAccessor.class);
	}

	@Test
	void aDeferredCallRunsInTheSubmittersSecurityContextAndItsThreadKeepsNoneOfIt() {
		this.contextRunner.run((context) -> {
			Executor executor = context.getBean(RAM, Executor.class);
			ThreadStateProbe probe = context.getBean(ThreadStateProbe.class);
			signIn("alice");
			assertThat(executor.defer(UformSecurityContextPropagationTest::currentUser).get(10, TimeUnit.SECONDS))
				.isEqualTo("alice");
			// A call that runs as someone else, replacing the context, leaves that behind neither.
			assertThat(executor.defer(() -> {
				signIn("batch");
				return currentUser();
			}).get(10, TimeUnit.SECONDS)).isEqualTo("batch");
			assertThat(currentUser()).as("the submitting thread").isEqualTo("alice");
			SecurityContextHolder.clearContext();
			assertThat(executor.defer(UformSecurityContextPropagationTest::currentUser).get(10, TimeUnit.SECONDS))
				.as("a call submitted by a thread signed in as nobody").isEqualTo(NONE);
			assertThat(probe.scopes).hasSize(3)
				.allSatisfy((scope) -> assertThat(scope).startsWith("uform-").endsWith(": none before, none after"));
		});
	}

	@Test
	void forkBodiesOnWorkersRunInTheForkingThreadsSecurityContextOnlyWhenThePropertyAsksAndKeepNoneOfIt() {
		this.contextRunner.withPropertyValues("uform.ram.fork-context-propagation=true").run((context) -> {
			Executor executor = context.getBean(RAM, Executor.class);
			ThreadStateProbe probe = context.getBean(ThreadStateProbe.class);
			signIn("alice");
			int n = 300;
			AtomicReferenceArray<String> seen = new AtomicReferenceArray<>(n);
			executor.forN(n, (index, thread, colocation) -> seen.set(index, currentUser()));
			AtomicReferenceArray<String> perThread = new AtomicReferenceArray<>(executor.threads());
			executor.forThreads((thread, colocation) -> perThread.set(thread, currentUser()));
			for (int i = 0; i < n; i++) {
				assertThat(seen.get(i)).as("index %d", i).isEqualTo("alice");
			}
			for (int t = 0; t < perThread.length(); t++) {
				assertThat(perThread.get(t)).as("thread %d", t).isEqualTo("alice");
			}
			assertThat(probe.scopes).as("a scope opened on each worker of forThreads")
				.hasSizeGreaterThanOrEqualTo(executor.threads() - 1)
				.allSatisfy((scope) -> assertThat(scope).startsWith("uform-").endsWith(": none before, none after"));
		});
		this.contextRunner.run((context) -> {
			Executor executor = context.getBean(RAM, Executor.class);
			signIn("alice");
			AtomicReferenceArray<String> perThread = new AtomicReferenceArray<>(executor.threads());
			executor.forThreads((thread, colocation) -> perThread.set(thread, currentUser()));
			assertThat(perThread.get(0)).as("the forking thread").isEqualTo("alice");
			assertThat(perThread.get(1)).as("a worker, off by default").isEqualTo(NONE);
			assertThat(context.getBean(ThreadStateProbe.class).scopes).as("no fork scopes").isEmpty();
		});
	}

	private static void signIn(String user) {
		Authentication authentication = UsernamePasswordAuthenticationToken.authenticated(user, null,
				AuthorityUtils.createAuthorityList("ROLE_USER"));
		SecurityContextHolder.setContext(new SecurityContextImpl(authentication));
	}

	private static String currentUser() {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		return (authentication != null) ? authentication.getName() : NONE;
	}

	/**
	 * Wraps the starter's hooks bean before the executor beans get it, to read the security context of
	 * each uform thread just before the starter's scope opens there and just after it closes: what the
	 * thread had, and what it keeps once the work is done. Each scope is recorded as
	 * {@code "thread: user before, user after"}, after it closed and before the work's future or fork
	 * returns.
	 */
	static final class ThreadStateProbe implements BeanPostProcessor {

		final List<String> scopes = new CopyOnWriteArrayList<>();

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			return (bean instanceof UformExecutorHooks hooks) ? probed(hooks) : bean;
		}

		private UformExecutorHooks probed(UformExecutorHooks hooks) {
			return (executorBeanName, forkContextPropagation) -> {
				ExecutorHooks starters = hooks.hooksFor(executorBeanName, forkContextPropagation);
				DeferredCallDecorator deferredCalls = starters.deferredCalls();
				ForkDecorator forks = starters.forks();
				return new ExecutorHooks((deferredCalls != null) ? (executor) -> probed(deferredCalls.decorate(executor)) : null,
						(forks != null) ? () -> probed(forks.capture()) : null);
			};
		}

		private DeferredCallDecorator.Decoration probed(DeferredCallDecorator.Decoration decoration) {
			return (decoration != null) ? new DeferredCallDecorator.Decoration() {

				@Override
				public ExecutorHooks.Scope open() {
					return around(decoration::open);
				}

				@Override
				public void completed(Throwable failure) {
					decoration.completed(failure);
				}
			} : null;
		}

		private ForkDecorator.Context probed(ForkDecorator.Context context) {
			return (context != null) ? () -> around(context::restore) : null;
		}

		private ExecutorHooks.Scope around(Supplier<ExecutorHooks.Scope> open) {
			String before = currentUser();
			ExecutorHooks.Scope scope = open.get();
			return () -> {
				scope.close();
				this.scopes.add(Thread.currentThread().getName() + ": " + before + " before, " + currentUser() + " after");
			};
		}
	}
}
