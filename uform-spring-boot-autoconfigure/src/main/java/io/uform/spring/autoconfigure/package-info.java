/**
 * Spring Boot auto-configuration for uform: the {@code uform.*} properties, the executor and mesh
 * beans made from them, their lifecycle in the application context, and the failure analysis that
 * turns a bad value into a report naming the property.
 */
@NullMarked
package io.uform.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
