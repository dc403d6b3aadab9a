/**
 * uform's executors API: what applications use, and the only package (with {@code io.uform.cli})
 * that the module exports. {@link io.uform.Executor} runs work on host threads
 * ({@link io.uform.Executor#forRam}) or GPU streams ({@link io.uform.Executor#forVram}), made from
 * immutable configs ({@link io.uform.ExecutorForRamConfig}, {@link io.uform.ExecutorForVramConfig})
 * whose absent fields the machine decides; a VRAM executor's work reaches its devices through
 * {@link io.uform.DeviceLane}s, with {@link io.uform.HostBuffer}s, {@link io.uform.DeviceBuffer}s and
 * {@link io.uform.Kernel}s. {@link io.uform.Mesh} places this process among the processes of a
 * multi-host run, and {@link io.uform.Uform} describes the machine: its GPUs and the capabilities
 * compiled in and available here.
 *
 * <h2>Failures</h2>
 * Every call fails with {@link io.uform.UformException}: a status to branch on and a message that
 * names what was wrong, with the value, and how to fix it. The runtime below makes those exceptions
 * itself, through the {@link io.uform.failure.FailureFactory} this package implements, so that what
 * the runtime throws reaches callers as it is, never caught and rewritten on the way.
 *
 * <h2>Dependencies</h2>
 * They run one way: this package uses the runtime ({@code io.uform.host}: host threads, pinning and
 * deferred calls; {@code io.uform.gpu}: CUDA, NVML, AMD discovery and simulated devices;
 * {@code io.uform.mesh}: the file rendezvous), which names no type of this package. The runtime's
 * own description types (such as {@code io.uform.gpu.DeviceFacts}) become this package's
 * ({@link io.uform.GpuDevice}) where it calls in, so that no application compiles against the
 * runtime.
 */
package io.uform;
