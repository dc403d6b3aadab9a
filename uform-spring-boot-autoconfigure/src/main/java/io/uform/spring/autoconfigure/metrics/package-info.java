/**
 * Micrometer binders for uform: executors (Micrometer's own {@code executor.*} names, so JVM
 * dashboards show uform executors too, and {@code uform.executor.*} for what only uform has), their
 * activation scratch ({@code uform.scratch.*}), GPU devices ({@code uform.gpu.*}, tagged with the
 * vendor's {@code uuid} for joins with NVIDIA's DCGM exporter) and the mesh ({@code uform.mesh.*}),
 * with the auto-configuration that binds them to the application's registry. Loaded only where
 * Micrometer is on the class path. Every meter is listed in {@code docs/actuator.md}.
 */
@NullMarked
package io.uform.spring.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
