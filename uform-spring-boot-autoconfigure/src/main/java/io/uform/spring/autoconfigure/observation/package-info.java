/**
 * Observation of uform's deferred calls ({@code uform.deferred}, with Micrometer's Observation API)
 * and context propagation (with Micrometer's context-propagation library) from the thread that
 * submits a deferred call or starts a fork to the executor's threads that run it.
 */
@NullMarked
package io.uform.spring.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
