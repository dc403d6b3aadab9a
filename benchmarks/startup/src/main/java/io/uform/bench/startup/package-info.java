/**
 * A minimal Spring Boot WebMVC application that benchmarks/startup.sh starts many times, with and
 * without the uform starter on its class path, to measure what the starter adds to startup time. It
 * references no uform type, so the same classes run either way. See {@code docs/benchmarks.md}.
 */
package io.uform.bench.startup;
