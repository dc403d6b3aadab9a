/**
 * What the starter says about {@code uform.*} settings beyond Boot's own reports: a WARN for each key
 * that binds to nothing and each text value none of its hints list, with the nearest valid one, and a
 * bind failure report that says what the property takes. All read the configuration metadata through
 * one reader, {@link io.uform.spring.autoconfigure.diagnostics.UformMetadata}. Registered in
 * {@code META-INF/spring.factories}; this package uses the starter's root package, never the reverse.
 */
@NullMarked
package io.uform.spring.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
