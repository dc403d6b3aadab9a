/**
 * Actuator support for uform, each piece in its own auto-configuration guarded by
 * {@code @ConditionalOnClass}, so that an application without Spring Boot Actuator (or without
 * {@code spring-boot-health}) starts without them: the read-only {@code uform} endpoint
 * ({@link io.uform.spring.autoconfigure.actuate.UformEndpoint}), the {@code uform} health indicator
 * ({@link io.uform.spring.autoconfigure.actuate.UformHealthIndicator}) and the {@code uform} entry of
 * the info endpoint ({@link io.uform.spring.autoconfigure.actuate.UformInfoContributor}).
 */
@NullMarked
package io.uform.spring.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
