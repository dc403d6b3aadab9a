package io.uform.spring.autoconfigure.actuate;

import java.lang.reflect.RecordComponent;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints an AOT build gets for the {@code uform} endpoint bean: Boot's for its read operations'
 * declared return types, and the endpoint's own {@code @RegisterReflectionForBinding} for what
 * {@link UformEndpoint#part(String)} returns as {@code Object}. Jackson serialises every descriptor
 * reflectively, so each one must be reachable.
 */
class UformEndpointRuntimeHintsTest {

	@Test
	void everyDescriptorTheEndpointAnswersWithIsRegisteredForBinding() {
		RuntimeHints hints = new RuntimeHints();
		// What Spring's ReflectiveProcessorBeanFactoryInitializationAotProcessor does for the endpoint bean.
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, UformEndpoint.class);
		Class<?>[] nested = UformEndpoint.class.getDeclaredClasses();
		assertThat(nested).filteredOn(Class::isRecord).hasSizeGreaterThanOrEqualTo(8);
		for (Class<?> descriptor : nested) {
			if (!descriptor.isRecord()) {
				continue;
			}
			assertThat(RuntimeHintsPredicates.reflection().onType(descriptor)).as(descriptor.getSimpleName())
				.accepts(hints);
			for (RecordComponent component : descriptor.getRecordComponents()) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
					.as("%s.%s()", descriptor.getSimpleName(), component.getName())
					.accepts(hints);
			}
		}
	}
}
