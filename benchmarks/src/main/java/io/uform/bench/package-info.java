/**
 * Benchmarks of uform's host executors against the JDK's and Spring's pools on the same work:
 * fork-join latency ({@link io.uform.bench.ForkJoinLatencyBenchmark}), a 128-body n-body step
 * ({@link io.uform.bench.NBodyBenchmark}, checked bit-for-bit by {@link io.uform.bench.NBodyCheck})
 * and the CPU an idle pool burns ({@link io.uform.bench.IdleCpu}); also the mesh's join
 * ({@link io.uform.bench.MeshJoinBenchmark}) and its file-system work per process as a run grows
 * ({@link io.uform.bench.MeshScaleBenchmark}). How to run them and how to read
 * the numbers: {@code docs/benchmarks.md}.
 */
package io.uform.bench;
