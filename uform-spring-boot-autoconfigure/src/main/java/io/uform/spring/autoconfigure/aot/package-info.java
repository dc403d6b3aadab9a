/**
 * Spring AOT support: the runtime hints for what uform reads as resources and what JNA reflects on
 * for it, so that an application AOT-processed by Spring Boot's build plugins (and compiled by
 * GraalVM's {@code native-image}) finds them. Registered in {@code META-INF/spring/aot.factories}, so
 * they apply wherever uform is on the class path, whichever beans the application has.
 */
@NullMarked
package io.uform.spring.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
